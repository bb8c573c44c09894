// Pure: wmem's entries in a Factory Droid hooks.json (docs/hooks.md, checked on 0.215.0):
// `~/.factory/hooks.json` (user) or the project's `.factory/hooks.json`, keyed by event name at
// the top, with no outer `hooks` key (Droid ignores that as an unknown event):
// `{"<Event>":[{"matcher"?, "hooks":[{"type":"command","command","timeout" (s)}]}]}`. Merging
// keeps every other event and hook in place; wmem's entries are recognised by their command
// (`… wmem … hook --agent droid EVENT`), so a second install changes nothing and uninstall
// removes only them. The matcher is a regex over Droid's tool names, on PostToolUse only.
import os from 'node:os';
import path from 'node:path';
import { ConfigShapeError, type ConfigPlan, type ConfigStatus, type InstallRequest, type Scope } from '../adapter.js';
import { jsonBreak } from '../../ui/errors.js';
import { hookCommandRule } from '../hook-command.js';
import { isObject } from '../hook-json.js';

export const DROID_HOOKS: readonly { event: string; matcher?: string; timeout: number }[] = [
  { event: 'SessionStart', timeout: 10 },
  { event: 'UserPromptSubmit', timeout: 10 },
  { event: 'PostToolUse', matcher: 'Execute|Edit|MultiEdit|Create|Read|Grep|Glob|LS|TodoWrite', timeout: 10 },
  { event: 'Stop', timeout: 10 },
  { event: 'PreCompact', timeout: 60 },
  { event: 'SessionEnd', timeout: 10 },
];

type Json = Record<string, unknown>;

export function factoryDir(env: NodeJS.ProcessEnv): string {
  return path.join(env.HOME || os.homedir(), '.factory');
}

export function droidHooksFile(scope: Scope, place: { cwd: string; env: NodeJS.ProcessEnv }): string {
  return path.join(scope === 'user' ? factoryDir(place.env) : path.join(path.resolve(place.cwd), '.factory'), 'hooks.json');
}

export const DROID_COMMAND = hookCommandRule('droid');

function shapeError(message: string): ConfigShapeError {
  return Object.assign(new ConfigShapeError(message), { hint: 'fix that file (or move it away) and run the command again' });
}

/** The parsed file, refused by name when it cannot be changed safely. */
export function parseDroidHooks(file: string, text: string | undefined): { json: Record<string, Json[]>; indent: string | number } {
  if (text === undefined || !text.trim()) return { json: {}, indent: 2 };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw shapeError(`${file} is not valid JSON (${jsonBreak(err, text)}); left untouched`);
  }
  if (!isObject(parsed)) throw shapeError(`${file} does not hold a JSON object; left untouched`);
  if (isObject(parsed.hooks)) throw shapeError(`${file} keeps its events under an outer "hooks" key, which Droid ignores (it reads them at the top); left untouched`);
  for (const [event, groups] of Object.entries(parsed)) {
    if (!Array.isArray(groups)) throw shapeError(`${file}: "${event}" is not a list of hook groups; left untouched`);
    groups.forEach((group, i) => {
      if (!isObject(group) || (group.hooks !== undefined && !Array.isArray(group.hooks))) throw shapeError(`${file}: "${event}[${i}]" is not a hook group; left untouched`);
    });
  }
  const indent = /^\{[^\n]*\n([ \t]+)\S/.exec(text)?.[1];
  return { json: parsed as Record<string, Json[]>, indent: indent === undefined ? 2 : indent.includes('\t') ? '\t' : indent.length };
}

const handlers = (group: Json): unknown[] => (Array.isArray(group.hooks) ? group.hooks : []);
const isOurs = (h: unknown) => isObject(h) && DROID_COMMAND.isWmem(h.command);

/** A group list without wmem's handlers; groups left empty go. */
function withoutWmem(groups: Json[]): Json[] {
  return groups.flatMap((group) => {
    const kept = handlers(group).filter((h) => !isOurs(h));
    return kept.length === handlers(group).length ? [group] : kept.length ? [{ ...group, hooks: kept }] : [];
  });
}

const format = (json: unknown, indent: string | number) => JSON.stringify(json, null, indent) + '\n';

export function planDroidInstall(file: string, text: string | undefined, request: InstallRequest): ConfigPlan {
  const { json, indent } = parseDroidHooks(file, text);
  const next = { ...json };
  const events: string[] = [];
  for (const spec of DROID_HOOKS) {
    const wanted: Json = { ...(spec.matcher ? { matcher: spec.matcher } : {}), hooks: [{ type: 'command', command: DROID_COMMAND.command(request.command, spec.event, request.tokensMax), timeout: spec.timeout }] };
    const groups = next[spec.event] ?? [];
    const ours = groups.filter((g) => handlers(g).some(isOurs));
    if (ours.length === 1 && JSON.stringify(ours[0]) === JSON.stringify(wanted)) continue;
    next[spec.event] = [...withoutWmem(groups), wanted];
    events.push(spec.event);
  }
  const after = events.length || !text?.trim() ? format(next, indent) : text;
  return { file, before: text, after, changed: after !== text, events, notes: [], preview: next };
}

export function planDroidUninstall(file: string, text: string | undefined): ConfigPlan {
  const { json, indent } = parseDroidHooks(file, text);
  const next: Record<string, Json[]> = {};
  let removed = 0;
  for (const [event, groups] of Object.entries(json)) {
    const kept = withoutWmem(groups);
    const gone = groups.flatMap(handlers).filter(isOurs).length;
    removed += gone;
    if (!gone || kept.length) next[event] = gone ? kept : groups;
  }
  if (!removed || text === undefined) return { file, before: text, after: text ?? '', changed: false, events: [], removed: 0, notes: [], preview: json };
  return { file, before: text, after: format(next, indent), changed: true, events: [], removed, notes: [], preview: next };
}

export function diagnoseDroidHooks(scope: Scope, file: string, text: string | undefined): ConfigStatus {
  const all = DROID_HOOKS.map((h) => h.event);
  let json: Record<string, Json[]>;
  try {
    json = parseDroidHooks(file, text).json;
  } catch (err) {
    return { scope, file, exists: true, error: (err as Error).message, installed: [], missing: all, problems: [] };
  }
  const commandOf = (event: string) => (json[event] ?? []).flatMap(handlers).find(isOurs) as Json | undefined;
  const installed = all.filter((e) => commandOf(e));
  const missing = all.filter((e) => !commandOf(e));
  const command = installed.length ? String(commandOf(installed[0]!)!.command) : undefined;
  const problems = installed.length && missing.length ? [`${file} lacks ${missing.join(', ')}: run 'wmem install droid --scope ${scope}'`] : [];
  return { scope, file, exists: text !== undefined, installed, missing, ...(command ? { command } : {}), problems };
}
