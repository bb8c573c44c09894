// Qwen Code's names: what the command line, messages and meta.json call it. Its own small module so that
// agents/lookup.ts can find an agent by any of them without loading the adapter.
import type { AgentNames } from '../adapter.js';

export const QWEN_NAMES: AgentNames = {
  id: 'qwen',
  aliases: ['qwen-code'],
  displayName: 'Qwen Code',
  metaName: 'qwen',
};
