// Claude Code's names: what the command line, messages and meta.json call it. Its own small module so that
// agents/lookup.ts can find an agent by any of them without loading the adapter.
import type { AgentNames } from '../adapter.js';

export const CLAUDE_NAMES: AgentNames = {
  id: 'claude',
  aliases: ['claude-code'],
  displayName: 'Claude Code',
  metaName: 'claude-code',
};
