// Auggie (Augment Code's CLI, 0.36): through MCP only. Its SessionStart and prompt hook results
// are discarded, so nothing a hook says reaches the model; `mcpServers` in
// ~/.augment/settings.json (also `--mcp-config`) starts `wmem mcp`.
import path from 'node:path';
import { userHome } from '../adapter.js';
import { mcpOnlyAdapter } from '../mcp-only.js';
import { auggieHook } from './hook.js';

export const auggie = mcpOnlyAdapter(auggieHook, {
  scopes: ['user'],
  defaultScope: 'user',
  file: (_scope, { env }) => path.join(userHome(env), '.augment', 'settings.json'),
  shape: { format: 'json', container: 'mcpServers', command: 'split' },
});
