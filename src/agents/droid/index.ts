// Factory Droid (docs/hooks.md, checked on 0.215.0): Claude Code's hook model in a hooks.json
// keyed by event (`~/.factory/hooks.json` or the project's `.factory/hooks.json`), timeouts in
// seconds; the answer in hookSpecificOutput.additionalContext; token use from the session's
// `<id>.settings.json` beside the transcript; a failed command from the transcript at Stop; the
// transcript archived at PreCompact. MCP: `mcpServers` in `~/.factory/mcp.json`.
import path from 'node:path';
import { userHome, type AgentAdapter, type AgentConfig } from '../adapter.js';
import { DROID_COMMAND, diagnoseDroidHooks, droidHooksFile, planDroidInstall, planDroidUninstall } from './hooks-file.js';
import { droidHook } from './hook.js';

const config: AgentConfig = {
  scopes: ['user', 'project'],
  defaultScope: 'user',
  file: droidHooksFile,
  planInstall: planDroidInstall,
  planUninstall: planDroidUninstall,
  diagnose: (scope, file, text) => diagnoseDroidHooks(scope, file, text),
  commandPrefix: DROID_COMMAND.prefixOf,
};

export const droid: AgentAdapter = {
  ...droidHook,
  config,
  mcp: {
    scopes: ['user', 'project'],
    defaultScope: 'user',
    // `droid mcp add` writes {type: "stdio", command, args} under `mcpServers` (checked on 0.215.0).
    file: (scope, { cwd, env }) => path.join(scope === 'user' ? userHome(env) : path.resolve(cwd), '.factory', 'mcp.json'),
    shape: { format: 'json', container: 'mcpServers', before: { type: 'stdio' }, command: 'split' },
  },
};
