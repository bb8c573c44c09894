// Auggie (Augment Code's CLI, 0.36): through MCP only. Its SessionStart and prompt hook results
// are discarded, so nothing a hook says reaches the model; `mcpServers` in
// ~/.augment/settings.json (also `--mcp-config`) starts `wmem mcp`.
import path from 'node:path';
import { userHome } from '../adapter.js';
import { mcpOnlyAdapter } from '../mcp-only.js';
import { AUGGIE_NAMES } from './names.js';

export const auggie = mcpOnlyAdapter({
  ...AUGGIE_NAMES,
  mcp: {
    scopes: ['user'],
    defaultScope: 'user',
    file: (_scope, { env }) => path.join(userHome(env), '.augment', 'settings.json'),
    shape: { format: 'json', container: 'mcpServers', command: 'split' },
  },
});
