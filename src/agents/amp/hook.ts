// Amp's hook part (adapter.ts's AgentHook): through MCP only, it answers no hook event.
import { mcpOnlyHook } from '../mcp-only.js';
import { AMP_NAMES } from './names.js';

export const ampHook = mcpOnlyHook(AMP_NAMES);
