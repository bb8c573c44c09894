// Auggie's hook part (adapter.ts's AgentHook): through MCP only, it answers no hook event.
import { mcpOnlyHook } from '../mcp-only.js';
import { AUGGIE_NAMES } from './names.js';

export const auggieHook = mcpOnlyHook(AUGGIE_NAMES);
