// Crush (Charm, 0.9x): through MCP only. Its one hook (PreToolUse) cannot give the model text;
// `"mcp": {"wmem": {"type": "stdio", "command", "args"}}` in the project's crush.json, or the
// user's ~/.config/crush/crush.json.
import path from 'node:path';
import { userHome } from '../adapter.js';
import { mcpOnlyAdapter } from '../mcp-only.js';
import { crushHook } from './hook.js';

export const crush = mcpOnlyAdapter(crushHook, {
  scopes: ['project', 'user'],
  defaultScope: 'project',
  file: (scope, { cwd, env }) => (scope === 'user' ? path.join(env.XDG_CONFIG_HOME || path.join(userHome(env), '.config'), 'crush', 'crush.json') : path.join(path.resolve(cwd), 'crush.json')),
  shape: { format: 'json', container: 'mcp', before: { type: 'stdio' }, command: 'split' },
});
