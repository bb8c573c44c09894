// Crush's hook part (adapter.ts's AgentHook): through MCP only, it answers no hook event.
import { mcpOnlyHook } from '../mcp-only.js';
import { CRUSH_NAMES } from './names.js';

export const crushHook = mcpOnlyHook(CRUSH_NAMES);
