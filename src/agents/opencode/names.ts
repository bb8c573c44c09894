// OpenCode's names: what the command line, messages and meta.json call it. Its own small module so that
// agents/lookup.ts can find an agent by any of them without loading the adapter.
import type { AgentNames } from '../adapter.js';

export const OPENCODE_NAMES: AgentNames = {
  id: 'opencode',
  aliases: ['open-code'],
  displayName: 'OpenCode',
  metaName: 'opencode',
};
