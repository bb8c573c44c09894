// Factory Droid's names: what the command line, messages and meta.json call it. Its own small module so that
// agents/lookup.ts can find an agent by any of them without loading the adapter.
import type { AgentNames } from '../adapter.js';

export const DROID_NAMES: AgentNames = {
  id: 'droid',
  aliases: ['factory-droid', 'factory'],
  displayName: 'Factory Droid',
  metaName: 'droid',
};
