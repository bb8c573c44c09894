// OpenCode (SPEC §10.4, checked on 1.18.33): no command hooks, so `wmem install opencode` writes a
// plugin file (templates/opencode-plugin.ts) that runs `wmem hook --agent opencode EVENT` from
// OpenCode's plugin hooks. The memory part goes into the system prompt, the meter into the user's
// turn; token use and the messages to archive come in the hook input (OpenCode keeps them in
// SQLite, which the plugin reads through its SDK client), the window from the model's limit.
import path from 'node:path';
import { userHome, type AgentAdapter, type AgentConfig } from '../adapter.js';
import { readTemplate } from '../../store/templates.js';
import { diagnosePlugin, opencodePluginFile, planPluginInstall, planPluginUninstall } from './plugin-file.js';
import { opencodeHook } from './hook.js';

export const TEMPLATE = 'opencode-plugin.ts';

/** The plugin template's text, or undefined when it cannot be read (doctor then skips the version check). */
export function template(): string | undefined {
  try {
    return readTemplate(TEMPLATE);
  } catch {
    return undefined;
  }
}

const config: AgentConfig = {
  scopes: ['project', 'user'],
  defaultScope: 'project',
  file: opencodePluginFile,
  planInstall: (file, text, request) => planPluginInstall(file, text, request, readTemplate(TEMPLATE)),
  planUninstall: planPluginUninstall,
  diagnose: (scope, file, text) => diagnosePlugin(scope, file, text, template()),
  // The plugin names the command itself (`const WMEM = "…"`): nothing to strip.
  commandPrefix: (command) => command,
};

export const opencode: AgentAdapter = {
  ...opencodeHook,
  config,
  mcp: {
    scopes: ['project', 'user'],
    defaultScope: 'project',
    file: (scope, { cwd, env }) => (scope === 'user' ? path.join(env.XDG_CONFIG_HOME || path.join(userHome(env), '.config'), 'opencode', 'opencode.json') : path.join(path.resolve(cwd), 'opencode.json')),
    shape: { format: 'json', container: 'mcp', before: { type: 'local' }, command: 'array', after: { enabled: true } },
  },
};
