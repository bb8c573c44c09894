// Kilo Code CLI (docs/hooks.md, checked on 7.7.9): an OpenCode fork with OpenCode's plugin API and
// no command hooks, so wmem's OpenCode plugin (templates/opencode-plugin.ts) serves it too,
// rendered with its own mark and `--agent kilo`, in Kilo's plugin folders: the project's
// `.kilo/plugins/` or `$XDG_CONFIG_HOME/kilo/plugins/` (`.opencode` folders are not loaded). Kilo
// does not contain a plugin's throw (in system.transform it ends the run): the plugin guards every
// hook. Everything else (events, input, answers, token use from the messages it passes) is
// OpenCode's. MCP: `mcp` in kilo.json, as OpenCode's in opencode.json.
import path from 'node:path';
import { userHome, type AgentAdapter, type AgentConfig, type Scope } from '../adapter.js';
import { readTemplate } from '../../store/templates.js';
import { opencode, template, TEMPLATE } from '../opencode/index.js';
import { diagnosePlugin, planPluginInstall, planPluginUninstall, type PluginHost } from '../opencode/plugin-file.js';
import { kiloHook } from './hook.js';
import { KILO_NAMES } from './names.js';

const HOST: PluginHost = { id: KILO_NAMES.id, mark: '// wmem:kilo-plugin' };

export function kiloPluginFile(scope: Scope, place: { cwd: string; env: NodeJS.ProcessEnv }): string {
  if (scope === 'user') return path.join(place.env.XDG_CONFIG_HOME || path.join(userHome(place.env), '.config'), 'kilo', 'plugins', 'wmem.ts');
  return path.join(path.resolve(place.cwd), '.kilo', 'plugins', 'wmem.ts');
}

const config: AgentConfig = {
  ...opencode.config,
  file: kiloPluginFile,
  planInstall: (file, text, request) => planPluginInstall(file, text, request, readTemplate(TEMPLATE), HOST, KILO_NAMES.displayName),
  planUninstall: (file, text) => planPluginUninstall(file, text, HOST),
  diagnose: (scope, file, text) => diagnosePlugin(scope, file, text, template(), HOST),
};

export const kilo: AgentAdapter = {
  ...kiloHook,
  config,
  mcp: {
    ...opencode.mcp!,
    file: (scope, { cwd, env }) => (scope === 'user' ? path.join(env.XDG_CONFIG_HOME || path.join(userHome(env), '.config'), 'kilo', 'kilo.json') : path.join(path.resolve(cwd), 'kilo.json')),
  },
};
