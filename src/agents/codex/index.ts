// Codex CLI (docs/hooks.md, checked on 0.169.0): hooks in $CODEX_HOME/hooks.json or the project's
// .codex/hooks.json, run only once the user trusts them. What a hook needs is its hook part
// (hook.ts); here the hooks file's planner, doctor's trust check and the MCP registration.
import path from 'node:path';
import { userHome, type AgentAdapter, type AgentConfig, type ConfigStatus } from '../adapter.js';
import { codexCommandPrefix, codexHome, codexHooksFile, diagnoseCodexHooks, installedCodexHooks, planCodexInstall, planCodexUninstall } from './hooks-config.js';
import { trustProblems } from './trust.js';
import { codexHook } from './hook.js';

const config: AgentConfig = {
  scopes: ['user', 'project'],
  defaultScope: 'user',
  file: codexHooksFile,
  // Trust lives in the user's config.toml whichever hooks file the entries are in.
  related: (_scope, place) => [path.join(codexHome(place.env), 'config.toml')],
  planInstall: planCodexInstall,
  planUninstall: planCodexUninstall,
  diagnose(scope, file, text, related): ConfigStatus {
    const [configFile] = Object.keys(related);
    return diagnoseCodexHooks(scope, file, text, (json) => (configFile ? trustProblems(scope, file, installedCodexHooks(file, json), configFile, related[configFile]) : []));
  },
  commandPrefix: codexCommandPrefix,
};

export const codex: AgentAdapter = {
  ...codexHook,
  config,
  mcp: {
    scopes: ['user', 'project'],
    defaultScope: 'user',
    // Codex reads a project's .codex/ layer too (once the project is trusted).
    file: (scope, { cwd, env }) => path.join(scope === 'project' ? path.join(path.resolve(cwd), '.codex') : env.CODEX_HOME || path.join(userHome(env), '.codex'), 'config.toml'),
    shape: { format: 'toml', table: 'mcp_servers' },
  },
};

