// Pure: wmem's entries in a Factory Droid hooks.json (docs/hooks.md, checked on 0.215.0):
// `~/.factory/hooks.json` (user) or the project's `.factory/hooks.json`, keyed by event name at
// the top, with no outer `hooks` key (Droid ignores that as an unknown event; a file that has one
// is refused by name): `{"<Event>":[{"matcher"?, "hooks":[{"type":"command","command","timeout"
// (s)}]}]}`. The shared planner (../hooks-file.ts) does the merging; the matcher, a regex over
// Droid's tool names, is on PostToolUse only.
import os from 'node:os';
import path from 'node:path';
import { ConfigShapeError, type ConfigStatus, type Scope } from '../adapter.js';
import { hookCommandRule } from '../hook-command.js';
import { hooksFile } from '../hooks-file.js';
import { isObject } from '../../ui/json.js';

export const DROID_COMMAND = hookCommandRule('droid');

const HOOKS_FILE = hooksFile({
  agent: 'droid',
  hooks: [
    { event: 'SessionStart', timeout: 10 },
    { event: 'UserPromptSubmit', timeout: 10 },
    { event: 'PostToolUse', matcher: 'Execute|Edit|MultiEdit|Create|Read|Grep|Glob|LS|TodoWrite', timeout: 10 },
    { event: 'Stop', timeout: 10 },
    { event: 'PreCompact', timeout: 60 },
    { event: 'SessionEnd', timeout: 10 },
  ],
  isWmem: DROID_COMMAND.isWmem,
  handler: (spec, prefix, tokensMax) => ({ type: 'command', command: DROID_COMMAND.command(prefix, spec.event, tokensMax), timeout: spec.timeout }),
  outerKey: null,
  groupNoun: 'hook group',
  // A Claude-style file (events under "hooks") would be ignored by Droid: refused, not added to.
  refuse(file, json) {
    if (isObject(json.hooks)) throw new ConfigShapeError(`${file} keeps its events under an outer "hooks" key, which Droid ignores (it reads them at the top); left untouched`, 'move the events to the top of the file and run the command again');
  },
});

export function factoryDir(env: NodeJS.ProcessEnv): string {
  return path.join(env.HOME || os.homedir(), '.factory');
}

export function droidHooksFile(scope: Scope, place: { cwd: string; env: NodeJS.ProcessEnv }): string {
  return path.join(scope === 'user' ? factoryDir(place.env) : path.join(path.resolve(place.cwd), '.factory'), 'hooks.json');
}

export const planDroidInstall = HOOKS_FILE.planInstall;
export const planDroidUninstall = HOOKS_FILE.planUninstall;

export function diagnoseDroidHooks(scope: Scope, file: string, text: string | undefined): ConfigStatus {
  return HOOKS_FILE.diagnose(scope, file, text);
}
