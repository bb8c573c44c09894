// Pure: wmem's entries in a Qwen Code settings.json (docs/hooks.md): `~/.qwen/settings.json` (user)
// or the project's `.qwen/settings.json`, Claude Code's shape
// `{"hooks":{"<Event>":[{"matcher"?, "hooks":[{"type":"command","command","timeout" (s)}]}]}}`.
// Merging keeps every other key and hook in place; wmem's entries are recognised by their command
// (`… wmem … hook --agent qwen EVENT`), so a second install changes nothing and uninstall removes
// only them. No matcher: every tool's result is tracked. Qwen reads settings.json with comments
// stripped; wmem refuses a file it cannot parse as JSON rather than drop them.
import os from 'node:os';
import path from 'node:path';
import { ConfigShapeError, type ConfigPlan, type ConfigPlace, type ConfigStatus, type InstallRequest, type Scope } from '../adapter.js';
import { jsonBreak } from '../../ui/errors.js';
import { hookCommandRule } from '../hook-command.js';
import { isObject } from '../hook-json.js';

/** The events wmem installs, with Qwen's timeout for each (seconds). */
export const QWEN_HOOKS: readonly { event: string; timeout: number }[] = [
  { event: 'SessionStart', timeout: 10 },
  { event: 'UserPromptSubmit', timeout: 10 },
  { event: 'PostToolUse', timeout: 10 },
  { event: 'PostToolUseFailure', timeout: 10 },
  { event: 'PreCompact', timeout: 60 },
  { event: 'PostCompact', timeout: 30 },
  { event: 'SessionEnd', timeout: 10 },
];

const HOOK_COMMAND = hookCommandRule('qwen');
export const qwenCommandPrefix = HOOK_COMMAND.prefixOf;

type Json = Record<string, unknown>;

export function qwenDir(env: NodeJS.ProcessEnv): string {
  return path.join(env.HOME || os.homedir(), '.qwen');
}

export function qwenSettingsFile(scope: Scope, place: ConfigPlace): string {
  if (scope === 'user') return path.join(qwenDir(place.env), 'settings.json');
  return path.join(path.resolve(place.cwd), '.qwen', 'settings.json');
}

function shapeError(message: string): ConfigShapeError {
  return Object.assign(new ConfigShapeError(message), { hint: 'fix that file (or move it away) and run the command again' });
}

/** The parsed file, refused by name when it cannot be changed safely. */
export function parseQwenSettings(file: string, text: string | undefined): { json: Json; indent: string | number } {
  if (text === undefined || !text.trim()) return { json: {}, indent: 2 };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw shapeError(`${file} is not valid JSON (${jsonBreak(err, text)}); left untouched`);
  }
  if (!isObject(parsed)) throw shapeError(`${file} does not hold a JSON object; left untouched`);
  if (parsed.hooks !== undefined && !isObject(parsed.hooks)) throw shapeError(`${file}: "hooks" is not an object; left untouched`);
  for (const [event, groups] of Object.entries(isObject(parsed.hooks) ? parsed.hooks : {})) {
    if (!Array.isArray(groups)) continue;
    groups.forEach((group, i) => {
      if (!isObject(group) || (group.hooks !== undefined && !Array.isArray(group.hooks))) throw shapeError(`${file}: "hooks.${event}[${i}]" is not a hook definition; left untouched`);
    });
  }
  const indent = /^\{[^\n]*\n([ \t]+)\S/.exec(text)?.[1];
  return { json: parsed, indent: indent === undefined ? 2 : indent.includes('\t') ? '\t' : indent.length };
}

const hooksOf = (json: Json): Json => (isObject(json.hooks) ? json.hooks : {});
const groupsOf = (hooks: Json, event: string): Json[] => (Array.isArray(hooks[event]) ? (hooks[event] as Json[]) : []);
const handlers = (group: Json): unknown[] => (Array.isArray(group.hooks) ? group.hooks : []);
const isOurs = (h: unknown) => isObject(h) && HOOK_COMMAND.isWmem(h.command);
const format = (json: Json, indent: string | number) => JSON.stringify(json, null, indent) + '\n';

/** A group list without wmem's handlers; groups left empty go. */
function withoutWmem(groups: Json[]): Json[] {
  const out: Json[] = [];
  for (const group of groups) {
    const kept = handlers(group).filter((h) => !isOurs(h));
    if (kept.length === handlers(group).length) out.push(group);
    else if (kept.length) out.push({ ...group, hooks: kept });
  }
  return out;
}

export function planQwenInstall(file: string, text: string | undefined, request: InstallRequest): ConfigPlan {
  const { json, indent } = parseQwenSettings(file, text);
  const hooks = { ...hooksOf(json) };
  const events: string[] = [];
  for (const { event, timeout } of QWEN_HOOKS) {
    const wanted: Json = { hooks: [{ type: 'command', command: HOOK_COMMAND.command(request.command, event, request.tokensMax), timeout }] };
    const groups = groupsOf(hooks, event);
    const ours = groups.filter((g) => handlers(g).some(isOurs));
    if (ours.length === 1 && JSON.stringify(ours[0]) === JSON.stringify(wanted)) continue;
    hooks[event] = [...withoutWmem(groups), wanted];
    events.push(event);
  }
  const next = events.length ? { ...json, hooks } : json;
  const after = events.length || text === undefined || !text.trim() ? format(next, indent) : text;
  return { file, before: text, after, changed: after !== text, events, notes: [], preview: next };
}

export function planQwenUninstall(file: string, text: string | undefined): ConfigPlan {
  const { json, indent } = parseQwenSettings(file, text);
  const hooks: Json = {};
  let removed = 0;
  const count = (groups: Json[]) => groups.reduce((n, g) => n + handlers(g).length, 0);
  for (const [event, value] of Object.entries(hooksOf(json))) {
    if (!Array.isArray(value)) {
      hooks[event] = value;
      continue;
    }
    const kept = withoutWmem(value as Json[]);
    const gone = count(value as Json[]) - count(kept);
    removed += gone;
    if (gone === 0) hooks[event] = value;
    else if (kept.length) hooks[event] = kept;
  }
  if (!removed || text === undefined) return { file, before: text, after: text ?? '', changed: false, events: [], removed: 0, notes: [], preview: json };
  const next: Json = { ...json, hooks };
  if (!Object.keys(hooks).length) delete next.hooks;
  return { file, before: text, after: format(next, indent), changed: true, events: [], removed, notes: [], preview: next };
}

export function diagnoseQwen(scope: Scope, file: string, text: string | undefined): ConfigStatus {
  const all = QWEN_HOOKS.map((h) => h.event);
  let json: Json;
  try {
    json = parseQwenSettings(file, text).json;
  } catch (err) {
    return { scope, file, exists: true, error: (err as Error).message, installed: [], missing: all, problems: [] };
  }
  const hooks = hooksOf(json);
  const found = new Map<string, string>();
  for (const event of all) {
    const handler = groupsOf(hooks, event).flatMap(handlers).find(isOurs);
    if (isObject(handler)) found.set(event, String(handler.command));
  }
  const installed = all.filter((e) => found.has(e));
  const missing = all.filter((e) => !found.has(e));
  const problems: string[] = [];
  if (installed.length && missing.length) problems.push(`${file} lacks ${missing.join(', ')}: run 'wmem install qwen --scope ${scope}'`);
  if (installed.length && (json.disableAllHooks === true || (isObject(json.hooksConfig) && json.hooksConfig.enabled === false))) problems.push(`${file} turns hooks off: Qwen Code runs none of wmem's`);
  const command = found.values().next().value;
  return { scope, file, exists: text !== undefined, installed, missing, ...(command ? { command } : {}), problems };
}
