// Pure: wmem's entries in a Codex hooks.json (docs/hooks.md): `$CODEX_HOME/hooks.json` (user) or the
// project's `.codex/hooks.json`, shaped `{"hooks":{"<Event>":[{"matcher"?, "hooks":[{"type":
// "command","command","timeout" (s)}]}]}}`, through the shared hooks-file planner; wmem's entries
// are recognised by their command (`… wmem … hook --agent codex EVENT`).
import os from 'node:os';
import path from 'node:path';
import type { Scope } from '../adapter.js';
import { hookCommandRule } from '../hook-command.js';
import { hooksFile, type HookSpec } from '../hooks-file.js';

/** Timeouts in seconds. Codex clamps SessionEnd to 3 s (and warns when asked for more). */
export const CODEX_HOOKS: readonly HookSpec[] = [
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

const HOOKS_FILE = hooksFile({
  agent: 'codex',
  hooks: CODEX_HOOKS,
  isWmem: isWmemCodexCommand,
  handler: (spec, prefix, tokensMax) => ({ type: 'command', command: codexHookCommand(prefix, spec.event, tokensMax), timeout: spec.timeout }),
  groupNoun: 'matcher group',
  // Which scope the file is cannot be told from its path alone ($CODEX_HOME is ~/.codex, the
  // project file of ~ too): the project condition is said every time.
  notes: () => [TRUST_NOTE, PROJECT_TRUST_NOTE],
});

export const planCodexInstall = HOOKS_FILE.planInstall;
export const planCodexUninstall = HOOKS_FILE.planUninstall;
export const diagnoseCodexHooks = HOOKS_FILE.diagnose;

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
  return HOOKS_FILE.installed(json).map(({ event, installed, command, group, index }) =>
    installed ? { event, installed, command, key: `${file}:${snakeEvent(event)}:${group}:${index}` } : { event, installed },
  );
}
