// Claude Code (docs/hooks.md): the first adapter. Hooks in .claude/settings*.json; what a hook
// needs is its hook part (hook.ts); here its settings planner and MCP registration besides.
import path from 'node:path';
import { userHome, type AgentAdapter } from '../adapter.js';
import { claudeConfig } from './config.js';
import { claudeHook } from './hook.js';

export const claude: AgentAdapter = {
  ...claudeHook,
  config: claudeConfig,
  mcp: {
    scopes: ['project', 'user'],
    defaultScope: 'project',
    // User scope: the `mcpServers` of ~/.claude.json (in CLAUDE_CONFIG_DIR when that is set).
    file: (scope, { cwd, env }) => (scope === 'user' ? path.join(env.CLAUDE_CONFIG_DIR || userHome(env), '.claude.json') : path.join(path.resolve(cwd), '.mcp.json')),
    shape: { format: 'json', container: 'mcpServers', before: { type: 'stdio' }, command: 'split' },
  },
};
