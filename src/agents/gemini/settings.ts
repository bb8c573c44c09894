// Pure: wmem's entries in a Gemini CLI settings.json (docs/hooks.md): `~/.gemini/settings.json`
// (user; `$GEMINI_CLI_HOME/.gemini` when set) or the project's `.gemini/settings.json`, shaped
// `{"hooks":{"<Event>":[{"matcher"?, "hooks":[{"type":"command","command","name","timeout" (ms)}]}]}}`.
// Merging keeps every other key and hook in place; wmem's entries are recognised by their command
// (`… wmem … hook --agent gemini EVENT`), so a second install changes nothing and uninstall
// removes only them. No matcher: Gemini 0.61 compares a matcher on a non-tool event with the
// event's source or trigger and then skips the hook; without one AfterTool fires for every tool.
// Gemini reads settings.json with comments stripped; wmem refuses a file it cannot parse as JSON
// (comments included) rather than drop them.
import os from 'node:os';
import path from 'node:path';
import { ConfigShapeError, type ConfigPlan, type ConfigPlace, type InstallRequest, type Scope } from '../adapter.js';
import { jsonBreak } from '../../ui/errors.js';
import { hookCommandRule } from '../hook-command.js';

export interface GeminiHookSpec {
  event: string;
  /** Milliseconds (Gemini's default is 60,000). */
  timeout: number;
}

export const GEMINI_HOOKS: readonly GeminiHookSpec[] = [
  { event: 'SessionStart', timeout: 10_000 },
  { event: 'BeforeAgent', timeout: 10_000 },
  { event: 'AfterTool', timeout: 10_000 },
  { event: 'PreCompress', timeout: 60_000 },
  { event: 'SessionEnd', timeout: 10_000 },
];

export const PROJECT_TRUST_NOTE =
  "Gemini CLI loads a project's hooks only in a trusted folder: trust it when Gemini asks (or with /permissions), or install for your user instead: 'wmem install gemini --scope user'.";

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Gemini's home folder: `$GEMINI_CLI_HOME/.gemini`, else `~/.gemini`. */
export function geminiDir(env: NodeJS.ProcessEnv): string {
  return path.join(env.GEMINI_CLI_HOME || os.homedir(), '.gemini');
}

export function geminiSettingsFile(scope: Scope, place: ConfigPlace): string {
  if (scope === 'user') return path.join(geminiDir(place.env), 'settings.json');
  return path.join(path.resolve(place.cwd), '.gemini', 'settings.json');
}

const HOOK_COMMAND = hookCommandRule('gemini');
export const isWmemGeminiCommand = HOOK_COMMAND.isWmem;
/** What runs wmem in an installed command, without `hook --agent gemini EVENT`. */
export const geminiCommandPrefix = HOOK_COMMAND.prefixOf;
export const geminiHookCommand = HOOK_COMMAND.command;

/** The name Gemini shows for the hook (and that `hooksConfig.disabled` can list). */
export function geminiHookName(event: string): string {
  return `wmem-${event.replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase()}`;
}

function shapeError(message: string): ConfigShapeError {
  return Object.assign(new ConfigShapeError(message), { hint: 'fix that file (or move it away) and run the command again' });
}

/** The parsed file, refused by name when it cannot be changed safely. */
export function parseSettingsFile(file: string, text: string | undefined): { json: Json; indent: string | number } {
  if (text === undefined || !text.trim()) return { json: {}, indent: 2 };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    const comments = /^\s*\/\/|\/\*/m.test(text) ? ' (wmem does not rewrite a settings file with comments: it would lose them)' : '';
    throw shapeError(`${file} is not valid JSON${comments} (${jsonBreak(err, text)}); left untouched`);
  }
  if (!isObject(parsed)) throw shapeError(`${file} does not hold a JSON object; left untouched`);
  if (parsed.hooks !== undefined) {
    if (!isObject(parsed.hooks)) throw shapeError(`${file}: "hooks" is not an object; left untouched`);
    for (const [event, groups] of Object.entries(parsed.hooks)) {
      if (!Array.isArray(groups)) continue; // Gemini skips such an entry too; wmem leaves it alone
      groups.forEach((group, i) => {
        if (!isObject(group) || (group.hooks !== undefined && !Array.isArray(group.hooks))) throw shapeError(`${file}: "hooks.${event}[${i}]" is not a hook definition; left untouched`);
      });
    }
  }
  const indent = /^\{[^\n]*\n([ \t]+)\S/.exec(text)?.[1];
  return { json: parsed, indent: indent === undefined ? 2 : indent.includes('\t') ? '\t' : indent.length };
}

function hooksOf(json: Json): Record<string, unknown> {
  return isObject(json.hooks) ? json.hooks : {};
}

function groupsOf(hooks: Record<string, unknown>, event: string): Json[] {
  const groups = hooks[event];
  return Array.isArray(groups) ? (groups as Json[]) : [];
}

function handlers(group: Json): unknown[] {
  return Array.isArray(group.hooks) ? group.hooks : [];
}

const isOurs = (h: unknown) => isObject(h) && isWmemGeminiCommand(h.command);

/** A group list without wmem's handlers; groups left empty go. */
function withoutWmem(groups: Json[]): Json[] {
  const out: Json[] = [];
  for (const group of groups) {
    const list = handlers(group);
    const kept = list.filter((h) => !isOurs(h));
    if (kept.length === list.length) out.push(group);
    else if (kept.length) out.push({ ...group, hooks: kept });
  }
  return out;
}

function format(json: Json, indent: string | number): string {
  return JSON.stringify(json, null, indent) + '\n';
}

export function planGeminiInstall(file: string, text: string | undefined, request: InstallRequest, scope: Scope): ConfigPlan {
  const { json, indent } = parseSettingsFile(file, text);
  const hooks = { ...hooksOf(json) };
  const events: string[] = [];
  for (const spec of GEMINI_HOOKS) {
    const command = geminiHookCommand(request.command, spec.event, request.tokensMax);
    const wanted: Json = { hooks: [{ type: 'command', command, name: geminiHookName(spec.event), timeout: spec.timeout }] };
    const groups = groupsOf(hooks, spec.event);
    const ours = groups.filter((g) => handlers(g).some(isOurs));
    if (ours.length === 1 && JSON.stringify(ours[0]) === JSON.stringify(wanted)) continue;
    hooks[spec.event] = [...withoutWmem(groups), wanted];
    events.push(spec.event);
  }
  const next = events.length ? { ...json, hooks } : json;
  const after = events.length || text === undefined || !text.trim() ? format(next, indent) : text;
  const notes = scope === 'project' ? [PROJECT_TRUST_NOTE] : [];
  return { file, before: text, after, changed: after !== text, events, notes, preview: next };
}

export function planGeminiUninstall(file: string, text: string | undefined): ConfigPlan {
  const { json, indent } = parseSettingsFile(file, text);
  const current = hooksOf(json);
  const hooks: Record<string, unknown> = {};
  let removed = 0;
  const count = (groups: Json[]) => groups.reduce((n, g) => n + handlers(g).length, 0);
  for (const [event, value] of Object.entries(current)) {
    if (!Array.isArray(value)) {
      hooks[event] = value;
      continue;
    }
    const groups = value as Json[];
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

export interface InstalledGeminiHook {
  event: string;
  installed: boolean;
  command?: string;
  name?: string;
}

/** Which of wmem's events the settings have, with the command and name of each. */
export function installedGeminiHooks(json: Json): InstalledGeminiHook[] {
  const hooks = hooksOf(json);
  return GEMINI_HOOKS.map(({ event }) => {
    for (const group of groupsOf(hooks, event)) {
      const found = isObject(group) ? handlers(group).find(isOurs) : undefined;
      if (isObject(found)) return { event, installed: true, command: String(found.command), ...(typeof found.name === 'string' ? { name: found.name } : {}) };
    }
    return { event, installed: false };
  });
}

/** The names `hooksConfig.disabled` lists (Gemini skips those hooks), and whether hooks are off altogether. */
export function disabledHooks(json: Json): { all: boolean; names: string[] } {
  const config = isObject(json.hooksConfig) ? json.hooksConfig : {};
  const names = Array.isArray(config.disabled) ? config.disabled.filter((n): n is string => typeof n === 'string') : [];
  return { all: config.enabled === false, names };
}
