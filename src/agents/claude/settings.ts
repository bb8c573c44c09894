// Pure: wmem's entries in a Claude Code settings file. Hooks live under
// `hooks.<Event>[] = {matcher?, hooks: [{type: "command", command, timeout (s)}]}`. Merging keeps
// every other setting and hook, in place; wmem's own entries are recognised by their command
// (`… wmem hook EVENT`), so a second install changes nothing and uninstall removes only them.
import type { ClaudeHookEvent } from './protocol.js';

export interface WmemHookSpec {
  event: ClaudeHookEvent;
  matcher?: string;
  /** Seconds. */
  timeout: number;
}

/**
 * What wmem installs. Tool events only for the tools whose effects hot state follows; SessionEnd
 * must be fast anyway (Claude Code gives all SessionEnd hooks about 1.5 s).
 */
export const WMEM_HOOKS: WmemHookSpec[] = [
  { event: 'SessionStart', timeout: 10 },
  { event: 'UserPromptSubmit', timeout: 10 },
  { event: 'PostToolUse', matcher: 'Edit|MultiEdit|Write|NotebookEdit|Read|Grep|Glob|Bash|TodoWrite|TaskCreate|TaskUpdate', timeout: 10 },
  { event: 'PostToolUseFailure', matcher: 'Edit|MultiEdit|Write|NotebookEdit|Read|Grep|Glob|Bash', timeout: 10 },
  { event: 'PreCompact', timeout: 60 },
  { event: 'PostCompact', timeout: 30 },
  { event: 'SessionEnd', timeout: 5 },
];

export type Settings = Record<string, unknown>;

export class SettingsShapeError extends Error {
  override name = 'SettingsShapeError';
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export { shellQuote } from '../../ui/shell.js';

/** The hook's own flags, after the event: `--tokens-max N` (the user's window). */
const HOOK_FLAGS = String.raw`(?:\s+--tokens-max[= ]\d+)?`;
const WMEM_HOOK_COMMAND = new RegExp(String.raw`(?:^|[\s'"/\\])wmem(?:\.js)?['"]?(?:\s+\S+)*?\s+hook\s+[A-Za-z]+${HOOK_FLAGS}\s*$`);
const HOOK_SUFFIX = new RegExp(String.raw`\s+hook\s+[A-Za-z]+${HOOK_FLAGS}\s*$`);

export function hookCommand(prefix: string, event: ClaudeHookEvent, tokensMax?: number): string {
  return `${prefix} hook ${event}${tokensMax ? ` --tokens-max ${tokensMax}` : ''}`;
}

/** A command wmem installed: `<…wmem or …wmem.js> [flags] hook <Event>`. */
export function isWmemCommand(command: unknown): boolean {
  return typeof command === 'string' && WMEM_HOOK_COMMAND.test(command);
}

/** The command prefix of an installed wmem hook (what runs wmem), for doctor. */
export function wmemPrefix(command: string): string {
  return command.replace(HOOK_SUFFIX, '');
}

function checkShape(settings: Settings): Record<string, unknown> | undefined {
  if (settings.hooks === undefined) return undefined;
  if (!isObject(settings.hooks)) throw new SettingsShapeError('"hooks" is not an object');
  for (const [event, groups] of Object.entries(settings.hooks)) {
    if (!Array.isArray(groups)) throw new SettingsShapeError(`"hooks.${event}" is not a list`);
    groups.forEach((group, i) => {
      if (!isObject(group)) throw new SettingsShapeError(`"hooks.${event}[${i}]" is not an object`);
      if (group.hooks !== undefined && !Array.isArray(group.hooks)) throw new SettingsShapeError(`"hooks.${event}[${i}].hooks" is not a list`);
    });
  }
  return settings.hooks;
}

function wmemGroup(spec: WmemHookSpec, prefix: string, tokensMax?: number): Record<string, unknown> {
  return {
    ...(spec.matcher ? { matcher: spec.matcher } : {}),
    hooks: [{ type: 'command', command: hookCommand(prefix, spec.event, tokensMax), timeout: spec.timeout }],
  };
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** Removes wmem's hooks from a group list; groups left empty go too. */
function withoutWmem(groups: unknown[]): unknown[] {
  const out: unknown[] = [];
  for (const group of groups) {
    const g = group as Record<string, unknown>;
    const hooks = Array.isArray(g.hooks) ? g.hooks : [];
    const kept = hooks.filter((h) => !(isObject(h) && isWmemCommand(h.command)));
    if (kept.length === hooks.length) out.push(group);
    else if (kept.length) out.push({ ...g, hooks: kept });
  }
  return out;
}

export interface MergeResult {
  settings: Settings;
  changed: boolean;
  /** Events whose wmem entry was added or updated. */
  events: ClaudeHookEvent[];
}

/** Adds (or updates) wmem's hooks; an entry already exactly as wanted stays where it is. */
export function mergeWmemHooks(settings: Settings, prefix: string, specs: WmemHookSpec[] = WMEM_HOOKS, tokensMax?: number): MergeResult {
  const hooks = { ...(checkShape(settings) ?? {}) } as Record<string, unknown[]>;
  const events: ClaudeHookEvent[] = [];
  for (const spec of specs) {
    const wanted = wmemGroup(spec, prefix, tokensMax);
    const groups = hooks[spec.event] ?? [];
    const wmemGroups = groups.filter((g) => ((g as Record<string, unknown>).hooks as unknown[] | undefined)?.some((h) => isObject(h) && isWmemCommand(h.command)));
    if (wmemGroups.length === 1 && sameJson(wmemGroups[0], wanted)) continue;
    hooks[spec.event] = [...withoutWmem(groups), wanted];
    events.push(spec.event);
  }
  if (!events.length) return { settings, changed: false, events };
  return { settings: { ...settings, hooks }, changed: true, events };
}

export interface RemoveResult {
  settings: Settings;
  changed: boolean;
  removed: number;
}

/** Removes only wmem's hooks; an event left without hooks goes, and `hooks` too when empty. */
export function removeWmemHooks(settings: Settings): RemoveResult {
  const current = checkShape(settings);
  if (!current) return { settings, changed: false, removed: 0 };
  const hooks: Record<string, unknown> = {};
  let removed = 0;
  for (const [event, groups] of Object.entries(current) as [string, unknown[]][]) {
    const count = (gs: unknown[]) => gs.reduce<number>((n, g) => n + (((g as Record<string, unknown>).hooks as unknown[] | undefined)?.length ?? 0), 0);
    const kept = withoutWmem(groups);
    const gone = count(groups) - count(kept);
    removed += gone;
    if (gone === 0) hooks[event] = groups;
    else if (kept.length) hooks[event] = kept;
  }
  if (!removed) return { settings, changed: false, removed: 0 };
  const next: Settings = { ...settings, hooks };
  if (!Object.keys(hooks).length) delete next.hooks;
  return { settings: next, changed: true, removed };
}

export interface InstalledReport {
  event: ClaudeHookEvent;
  installed: boolean;
  command?: string;
}

/** Which of wmem's events a settings object has, and the command each runs. */
export function installedHooks(settings: Settings): InstalledReport[] {
  const hooks = isObject(settings.hooks) ? settings.hooks : {};
  return WMEM_HOOKS.map(({ event }) => {
    const groups = Array.isArray(hooks[event]) ? (hooks[event] as unknown[]) : [];
    for (const group of groups) {
      const list = isObject(group) && Array.isArray(group.hooks) ? group.hooks : [];
      const found = list.find((h) => isObject(h) && isWmemCommand(h.command)) as Record<string, unknown> | undefined;
      if (found) return { event, installed: true, command: String(found.command) };
    }
    return { event, installed: false };
  });
}

/** The indentation a settings file uses, so a rewrite keeps its look. */
export function detectIndent(text: string): string | number {
  const match = /^[{[][^\n]*\n([ \t]+)\S/.exec(text);
  if (!match) return 2;
  return match[1].includes('\t') ? '\t' : match[1].length;
}

export function formatSettings(settings: Settings, indent: string | number): string {
  return JSON.stringify(settings, null, indent) + '\n';
}
