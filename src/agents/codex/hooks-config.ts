// Pure: wmem's entries in a Codex hooks.json (docs/hooks.md): `$CODEX_HOME/hooks.json` (user) or the
// project's `.codex/hooks.json`, shaped `{"hooks":{"<Event>":[{"matcher"?, "hooks":[{"type":
// "command","command","timeout" (s)}]}]}}`. Merging keeps every other key and hook in place;
// wmem's entries are recognised by their command (`… wmem … hook --agent codex EVENT`), so a
// second install changes nothing and uninstall removes only them.
import os from 'node:os';
import path from 'node:path';
import { ConfigShapeError, type ConfigPlan, type InstallRequest, type Scope } from '../adapter.js';
import { jsonBreak } from '../../ui/errors.js';
import { hookCommandRule } from '../hook-command.js';

export interface CodexHookSpec {
  event: string;
  /** Seconds. Codex clamps SessionEnd to 3 s (and warns when asked for more). */
  timeout: number;
}

export const CODEX_HOOKS: readonly CodexHookSpec[] = [
  { event: 'SessionStart', timeout: 10 },
  { event: 'UserPromptSubmit', timeout: 10 },
  { event: 'PostToolUse', timeout: 10 },
  { event: 'PreCompact', timeout: 60 },
  { event: 'PostCompact', timeout: 30 },
  { event: 'SessionEnd', timeout: 3 },
];

export const TRUST_NOTE =
  "Codex runs these hooks only once you trust them: start `codex`, choose 'Trust all and continue' when it says hooks need review (or open /hooks), or run `codex exec --dangerously-bypass-hook-trust` in automation that vets its hooks.";

/** Project hooks also need the project trusted (checked on Codex 0.169: else never read). */
export const PROJECT_TRUST_NOTE =
  "A project's .codex/hooks.json is read only in a project Codex trusts: say yes when codex asks whether to trust the folder, or run `codex exec --trust` there once.";

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function codexHome(env: NodeJS.ProcessEnv): string {
  return env.CODEX_HOME || path.join(os.homedir(), '.codex');
}

export function codexHooksFile(scope: Scope, place: { cwd: string; env: NodeJS.ProcessEnv }): string {
  if (scope === 'user') return path.join(codexHome(place.env), 'hooks.json');
  return path.join(path.resolve(place.cwd), '.codex', 'hooks.json');
}

const HOOK_COMMAND = hookCommandRule('codex');
export const isWmemCodexCommand = HOOK_COMMAND.isWmem;
/** What runs wmem in an installed command, without `hook --agent codex EVENT`. */
export const codexCommandPrefix = HOOK_COMMAND.prefixOf;
export const codexHookCommand = HOOK_COMMAND.command;

/** The parsed file, refused by name when it cannot be changed safely. */
export function parseHooksFile(file: string, text: string | undefined): { json: Json; indent: string | number } {
  if (text === undefined || !text.trim()) return { json: {}, indent: 2 };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw shapeError(`${file} is not valid JSON (${jsonBreak(err, text)}); left untouched`);
  }
  if (!isObject(parsed)) throw shapeError(`${file} does not hold a JSON object; left untouched`);
  if (parsed.hooks !== undefined) {
    if (!isObject(parsed.hooks)) throw shapeError(`${file}: "hooks" is not an object; left untouched`);
    for (const [event, groups] of Object.entries(parsed.hooks)) {
      if (!Array.isArray(groups)) throw shapeError(`${file}: "hooks.${event}" is not a list; left untouched`);
      groups.forEach((group, i) => {
        if (!isObject(group) || (group.hooks !== undefined && !Array.isArray(group.hooks))) throw shapeError(`${file}: "hooks.${event}[${i}]" is not a matcher group; left untouched`);
      });
    }
  }
  const indent = /^\{[^\n]*\n([ \t]+)\S/.exec(text)?.[1];
  return { json: parsed, indent: indent === undefined ? 2 : indent.includes('\t') ? '\t' : indent.length };
}

function shapeError(message: string): ConfigShapeError {
  return Object.assign(new ConfigShapeError(message), { hint: 'fix that file (or move it away) and run the command again' });
}

function hooksOf(json: Json): Record<string, Json[]> {
  return (isObject(json.hooks) ? json.hooks : {}) as Record<string, Json[]>;
}

function handlers(group: Json): unknown[] {
  return Array.isArray(group.hooks) ? group.hooks : [];
}

/** A group list without wmem's handlers; groups left empty go. */
function withoutWmem(groups: Json[]): Json[] {
  const out: Json[] = [];
  for (const group of groups) {
    const list = handlers(group);
    const kept = list.filter((h) => !(isObject(h) && isWmemCodexCommand(h.command)));
    if (kept.length === list.length) out.push(group);
    else if (kept.length) out.push({ ...group, hooks: kept });
  }
  return out;
}

function format(json: Json, indent: string | number): string {
  return JSON.stringify(json, null, indent) + '\n';
}

export function planCodexInstall(file: string, text: string | undefined, request: InstallRequest): ConfigPlan {
  const { json, indent } = parseHooksFile(file, text);
  const hooks = { ...hooksOf(json) };
  const events: string[] = [];
  for (const spec of CODEX_HOOKS) {
    const wanted: Json = { hooks: [{ type: 'command', command: codexHookCommand(request.command, spec.event, request.tokensMax), timeout: spec.timeout }] };
    const groups = hooks[spec.event] ?? [];
    const ours = groups.filter((g) => handlers(g).some((h) => isObject(h) && isWmemCodexCommand(h.command)));
    if (ours.length === 1 && JSON.stringify(ours[0]) === JSON.stringify(wanted)) continue;
    hooks[spec.event] = [...withoutWmem(groups), wanted];
    events.push(spec.event);
  }
  const next = events.length ? { ...json, hooks } : json;
  const after = events.length || text === undefined || !text.trim() ? format(next, indent) : text;
  // Which scope the file is cannot be told from its path alone ($CODEX_HOME is ~/.codex, the
  // project file of ~ too): the project condition is said every time.
  return { file, before: text, after, changed: after !== text, events, notes: [TRUST_NOTE, PROJECT_TRUST_NOTE], preview: next };
}

export function planCodexUninstall(file: string, text: string | undefined): ConfigPlan {
  const { json, indent } = parseHooksFile(file, text);
  const current = hooksOf(json);
  const hooks: Record<string, Json[]> = {};
  let removed = 0;
  const count = (groups: Json[]) => groups.reduce((n, g) => n + handlers(g).length, 0);
  for (const [event, groups] of Object.entries(current)) {
    const kept = withoutWmem(groups);
    const gone = count(groups) - count(kept);
    removed += gone;
    if (gone === 0) hooks[event] = groups;
    else if (kept.length) hooks[event] = kept;
  }
  if (!removed || text === undefined) return { file, before: text, after: text ?? '', changed: false, events: [], removed: 0, notes: [], preview: json };
  const next: Json = { ...json, hooks };
  if (!Object.keys(hooks).length) delete next.hooks;
  return { file, before: text, after: format(next, indent), changed: true, events: [], removed, notes: [], preview: next };
}

export interface InstalledCodexHook {
  event: string;
  installed: boolean;
  command?: string;
  /** Codex's key for the handler: `<file>:<snake_event>:<group index>:<handler index>`. */
  key?: string;
}

/** snake_case of an event name, as Codex spells it in hook keys (`PostToolUse` → `post_tool_use`). */
export function snakeEvent(event: string): string {
  return event.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();
}

/** Which of wmem's events the file has, the command and Codex's trust key of each. */
export function installedCodexHooks(file: string, json: Json): InstalledCodexHook[] {
  const hooks = hooksOf(json);
  return CODEX_HOOKS.map(({ event }) => {
    const groups = Array.isArray(hooks[event]) ? hooks[event] : [];
    for (const [g, group] of groups.entries()) {
      const list = isObject(group) ? handlers(group) : [];
      const h = list.findIndex((x) => isObject(x) && isWmemCodexCommand(x.command));
      if (h !== -1) return { event, installed: true, command: String((list[h] as Json).command), key: `${file}:${snakeEvent(event)}:${g}:${h}` };
    }
    return { event, installed: false };
  });
}
