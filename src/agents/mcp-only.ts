// An agent wmem reaches through MCP only: its hooks cannot put text in front of the model (or it
// runs its model where no mock can stand in), so `wmem install <id> --mcp` is the whole
// integration. Its adapter answers no hook event; its hook config refuses an install by name,
// pointing at --mcp (exit 2), plans nothing on uninstall and reports nothing to doctor. The
// install scopes are its MCP scopes, so `install --help` tells them like any agent's.
// Its folder's hook.ts is `mcpOnlyHook(NAMES)`, its index.ts `mcpOnlyAdapter(hook, mcp)`.
import { ConfigShapeError, HookInputError, type AgentAdapter, type AgentHook, type AgentNames, type McpRegistration } from './adapter.js';

/** The hook part of an agent that runs no hook: no event, and an input refused by name. */
export function mcpOnlyHook(names: AgentNames): AgentHook {
  return {
    id: names.id,
    aliases: names.aliases,
    displayName: names.displayName,
    metaName: names.metaName,
    events: [],
    eventFor: () => undefined,
    parseInput: () => {
      throw new HookInputError(`${names.displayName} runs no wmem hook`);
    },
    toolEvent: () => ({}),
    answer: { contextCap: 10_000, answer: () => undefined },
  };
}

export function mcpOnlyAdapter(hook: AgentHook, mcp: McpRegistration): AgentAdapter {
  const { id, displayName } = hook;
  return {
    ...hook,
    config: {
      scopes: mcp.scopes,
      defaultScope: mcp.defaultScope,
      file: mcp.file,
      planInstall: () => {
        throw new ConfigShapeError(`${displayName} takes wmem through MCP only: its hooks cannot give the model wmem's memory`, `run 'wmem install ${id} --mcp'`);
      },
      planUninstall: (file, text) => ({ file, before: text, after: text ?? '', changed: false, events: [], removed: 0, notes: [] }),
      diagnose: (scope, file, text) => ({ scope, file, exists: text !== undefined, installed: [], missing: [], problems: [] }),
      commandPrefix: (command) => command,
    },
    mcp,
  };
}
