// The agents wmem knows, in one list. Adding an agent = its folder `src/agents/<id>/` (an
// index.ts exporting an AgentAdapter, see adapter.ts) and one line below.
import type { AgentAdapter } from './adapter.js';
import { claude } from './claude/index.js';
import { codex } from './codex/index.js';
import { gemini } from './gemini/index.js';
import { opencode } from './opencode/index.js';

export const AGENTS: readonly AgentAdapter[] = [
  claude,
  codex,
  gemini,
  opencode,
];

/** The agent a hook serves when `--agent` is not given. */
export const DEFAULT_AGENT = 'claude';

/** The adapter named `name` (its id or an alias, any case), or undefined. */
export function findAgent(name: string): AgentAdapter | undefined {
  const key = name.trim().toLowerCase();
  return AGENTS.find((a) => a.id === key || a.aliases.includes(key));
}

/** The ids and aliases, for messages (`claude (claude-code)`). */
export function knownAgents(): string {
  return AGENTS.map((a) => (a.aliases.length ? `${a.id} (${a.aliases.join(', ')})` : a.id)).join(', ');
}

/** The adapter whose meta.json name is `metaName` (`claude-code` → claude). */
export function agentByMetaName(metaName: string | undefined): AgentAdapter | undefined {
  return metaName === undefined ? undefined : AGENTS.find((a) => a.metaName === metaName);
}
