// Amp: through MCP only. It runs its model on its vendor's servers only, so no hook of it was seen
// to reach a model wmem can check; its settings keys are flat, dotted names, and the servers are
// the one key "amp.mcpServers" of ~/.config/amp/settings.json (what `amp mcp add` writes; `amp mcp
// list` reads it offline).
import path from 'node:path';
import { userHome } from '../adapter.js';
import { mcpOnlyAdapter } from '../mcp-only.js';
import { ampHook } from './hook.js';

export const amp = mcpOnlyAdapter(ampHook, {
  scopes: ['user'],
  defaultScope: 'user',
  file: (_scope, { env }) => path.join(env.XDG_CONFIG_HOME || path.join(userHome(env), '.config'), 'amp', 'settings.json'),
  shape: { format: 'json', container: 'amp.mcpServers', command: 'split' },
});
