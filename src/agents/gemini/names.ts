// Gemini CLI's names: what the command line, messages and meta.json call it. Its own small module so that
// agents/lookup.ts can find an agent by any of them without loading the adapter.
import type { AgentNames } from '../adapter.js';

export const GEMINI_NAMES: AgentNames = {
  id: 'gemini',
  aliases: ['gemini-cli'],
  displayName: 'Gemini CLI',
  metaName: 'gemini',
};
