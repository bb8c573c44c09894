// Pure: install, uninstall and diagnose of Claude Code's settings files as plans over their text
// (the shared hooks-file planner, set up in settings.ts). A file that does not parse, or whose
// hooks are not the shape Claude Code reads, is refused by name and left untouched.
import os from 'node:os';
import path from 'node:path';
import type { AgentConfig, ConfigPlace, Scope } from '../adapter.js';
import { CLAUDE_HOOKS_FILE, wmemPrefix } from './settings.js';

export function claudeSettingsFile(scope: Scope, cwd: string, env: NodeJS.ProcessEnv): string {
  if (scope === 'user') return path.join(env.CLAUDE_CONFIG_DIR || path.join(os.homedir(), '.claude'), 'settings.json');
  return path.join(path.resolve(cwd), '.claude', scope === 'local' ? 'settings.local.json' : 'settings.json');
}

export const claudeConfig: AgentConfig = {
  scopes: ['project', 'local', 'user'],
  defaultScope: 'project',
  file: (scope: Scope, place: ConfigPlace) => claudeSettingsFile(scope, place.cwd, place.env),

  planInstall: CLAUDE_HOOKS_FILE.planInstall,
  // A dry run over a missing file has always printed the empty settings object it stands for.
  planUninstall: (file, text) => ({ ...CLAUDE_HOOKS_FILE.planUninstall(file, text), ...(text === undefined ? { after: '{}\n' } : {}) }),

  // Only whether it parses: a hooks value of the wrong shape reads as wmem's hooks missing.
  diagnose: (scope, file, text) => CLAUDE_HOOKS_FILE.diagnose(scope, file, text, undefined, false),

  commandPrefix: wmemPrefix,
};
