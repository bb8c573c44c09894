// Crush's names: what the command line, messages and meta.json call it. Its own small module so that
// agents/lookup.ts can find an agent by any of them without loading the adapter.
import type { AgentNames } from '../adapter.js';

export const CRUSH_NAMES: AgentNames = {
  id: 'crush',
  aliases: ['charm-crush'],
  displayName: 'Crush',
  metaName: 'crush',
};
