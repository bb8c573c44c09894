// Codex CLI (docs/hooks.md, checked on 0.169.0): hooks in $CODEX_HOME/hooks.json or the project's
// .codex/hooks.json, run only once the user trusts them. What a hook needs is its hook part
// (hook.ts); here the hooks file's planner, doctor's trust check and the MCP registration.
import path from 'node:path';
import { userHome, type AgentAdapter, type AgentConfig, type ConfigStatus } from '../adapter.js';
import { CODEX_HOOKS, codexCommandPrefix, codexHome, codexHooksFile, installedCodexHooks, parseHooksFile, planCodexInstall, planCodexUninstall } from './hooks-config.js';
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
    const all = CODEX_HOOKS.map((h) => h.event);
    let json: Record<string, unknown>;
    try {
      json = parseHooksFile(file, text).json;
    } catch (err) {
      return { scope, file, exists: true, error: (err as Error).message, installed: [], missing: all, problems: [] };
    }
    const found = installedCodexHooks(file, json);
    const installed = found.filter((f) => f.installed).map((f) => f.event);
    const missing = found.filter((f) => !f.installed).map((f) => f.event);
    const problems: string[] = [];
    if (installed.length && missing.length) problems.push(`${file} lacks ${missing.join(', ')}: run 'wmem install codex --scope ${scope}'`);
    const [configFile] = Object.keys(related);
    if (installed.length && configFile) problems.push(...trustProblems(scope, file, found, configFile, related[configFile]));
    return { scope, file, exists: text !== undefined, installed, missing, command: found.find((f) => f.command)?.command, problems };
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

