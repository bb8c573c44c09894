// Pure: wmem's entries in a Qwen Code settings.json (docs/hooks.md): `~/.qwen/settings.json` (user)
// or the project's `.qwen/settings.json`, Claude Code's shape
// `{"hooks":{"<Event>":[{"matcher"?, "hooks":[{"type":"command","command","timeout" (s)}]}]}}`.
// The shared hooks-file planner does the merging; wmem's entries are recognised by their command
// (`… wmem … hook --agent qwen EVENT`). No matcher: every tool's result is tracked. Qwen reads
// settings.json with comments stripped; wmem refuses a file it cannot parse as JSON rather than
// drop them.
import path from 'node:path';
import { userHome, type ConfigPlace, type ConfigStatus, type Scope } from '../adapter.js';
import { hookCommandRule } from '../hook-command.js';
import { hooksFile, type HookSpec } from '../hooks-file.js';
import { isObject } from '../../ui/json.js';

/** Timeouts in seconds (Qwen's default is 60; 1,000 or more it reads as legacy milliseconds). */
export const QWEN_HOOKS: readonly HookSpec[] = [
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

export function qwenSettingsFile(scope: Scope, place: ConfigPlace): string {
  if (scope === 'user') return path.join(userHome(place.env), '.qwen', 'settings.json');
  return path.join(path.resolve(place.cwd), '.qwen', 'settings.json');
}

export const QWEN_HOOKS_FILE = hooksFile({
  agent: 'qwen',
  hooks: QWEN_HOOKS,
  isWmem: HOOK_COMMAND.isWmem,
  handler: (spec, prefix, tokensMax) => ({ type: 'command', command: HOOK_COMMAND.command(prefix, spec.event, tokensMax), timeout: spec.timeout }),
  keepNonLists: true,
  groupNoun: 'hook definition',
  explainComments: true,
});

export function diagnoseQwen(scope: Scope, file: string, text: string | undefined): ConfigStatus {
  return QWEN_HOOKS_FILE.diagnose(scope, file, text, (json) =>
    json.disableAllHooks === true || (isObject(json.hooksConfig) && json.hooksConfig.enabled === false) ? [`${file} turns hooks off: Qwen Code runs none of wmem's`] : [],
  );
}
