// Pure: wmem's entries in a Claude Code settings file, through the shared hooks-file planner:
// `hooks.<Event>[] = {matcher?, hooks: [{type: "command", command, timeout (s)}]}`, wmem's own
// entries recognised by their command (`… wmem hook EVENT`, the one agent without `--agent`).
import { hookCommandRule } from '../hook-command.js';
import { hooksFile, HooksShapeError, type HookSpec } from '../hooks-file.js';
import type { ClaudeHookEvent } from './protocol.js';

export type WmemHookSpec = HookSpec & { event: ClaudeHookEvent };

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

/** A hooks value of the wrong shape (the config planner names the file). */
export const SettingsShapeError = HooksShapeError;

export { shellQuote } from '../../ui/shell.js';
export { detectIndent, formatJson as formatSettings } from '../hooks-file.js';

const HOOK_COMMAND = hookCommandRule();
export const hookCommand = (prefix: string, event: ClaudeHookEvent, tokensMax?: number) => HOOK_COMMAND.command(prefix, event, tokensMax);
/** A command wmem installed: `<…wmem or …wmem.js> [flags] hook <Event>`. */
export const isWmemCommand = HOOK_COMMAND.isWmem;
/** The command prefix of an installed wmem hook (what runs wmem), for doctor. */
export const wmemPrefix = HOOK_COMMAND.prefixOf;

export const CLAUDE_HOOKS_FILE = hooksFile({
  agent: 'claude',
  hooks: WMEM_HOOKS,
  isWmem: isWmemCommand,
  handler: (spec, prefix, tokensMax) => ({ type: 'command', command: hookCommand(prefix, spec.event as ClaudeHookEvent, tokensMax), timeout: spec.timeout }),
});

/** Adds (or updates) wmem's hooks; an entry already exactly as wanted stays where it is. */
export function mergeWmemHooks(settings: Settings, prefix: string, tokensMax?: number): { settings: Settings; changed: boolean; events: ClaudeHookEvent[] } {
  const merged = CLAUDE_HOOKS_FILE.merge(settings, prefix, tokensMax);
  return { settings: merged.json, changed: merged.changed, events: merged.events as ClaudeHookEvent[] };
}

/** Removes only wmem's hooks; an event left without hooks goes, and `hooks` too when empty. */
export function removeWmemHooks(settings: Settings): { settings: Settings; changed: boolean; removed: number } {
  const removed = CLAUDE_HOOKS_FILE.remove(settings);
  return { settings: removed.json, changed: removed.changed, removed: removed.removed };
}

/** Which of wmem's events a settings object has, and the command each runs. */
export function installedHooks(settings: Settings): { event: ClaudeHookEvent; installed: boolean; command?: string }[] {
  return CLAUDE_HOOKS_FILE.installed(settings).map(({ event, installed, command }) => ({ event: event as ClaudeHookEvent, installed, ...(command !== undefined ? { command } : {}) }));
}
