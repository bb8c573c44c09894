// An agent wmem reaches through MCP only: its hooks cannot put text in front of the model (or it
// runs its model where no mock can stand in), so `wmem install <id> --mcp` is the whole
// integration. Its adapter answers no hook event; its hook config refuses an install by name,
// pointing at --mcp (exit 2), plans nothing on uninstall and reports nothing to doctor. The
// install scopes are its MCP scopes, so `install --help` tells them like any agent's.
import { ConfigShapeError, HookInputError, type AgentAdapter, type AgentNames, type McpRegistration } from './adapter.js';

export function mcpOnlyAdapter(agent: AgentNames & { mcp: McpRegistration }): AgentAdapter {
  const { id, displayName, mcp } = agent;
  return {
    id,
    aliases: agent.aliases,
    displayName,
    metaName: agent.metaName,
    events: [],
    eventFor: () => undefined,
    parseInput: () => {
      throw new HookInputError(`${displayName} runs no wmem hook`);
    },
    toolEvent: () => ({}),
    answer: { contextCap: 10_000, answer: () => undefined },
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
