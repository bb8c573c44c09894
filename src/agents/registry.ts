// The agents wmem knows, in one list. Adding an agent = its folder `src/agents/<id>/` (an
// index.ts exporting an AgentAdapter, see adapter.ts) and one line below.
import type { AgentAdapter, Scope } from './adapter.js';
import { claude } from './claude/index.js';
import { codex } from './codex/index.js';
import { copilot } from './copilot/index.js';
import { gemini } from './gemini/index.js';
import { opencode } from './opencode/index.js';
import { qwen } from './qwen/index.js';
import { droid } from './droid/index.js';
import { kilo } from './kilo/index.js';
import { auggie } from './auggie/index.js';
import { amp } from './amp/index.js';
import { crush } from './crush/index.js';

export const AGENTS: readonly AgentAdapter[] = [
  claude,
  codex,
  gemini,
  opencode,
  copilot,
  qwen,
  droid,
  kilo,
  auggie,
  amp,
  crush,
];

export { DEFAULT_AGENT } from './lookup.js';

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

/** `a`, `a and b`, `a, b and c`. */
function andList(words: string[]): string {
  return words.length < 2 ? words.join('') : `${words.slice(0, -1).join(', ')} and ${words[words.length - 1]}`;
}

/** Each agent's default scope, neighbours that share one said once (`claude project, codex and gemini user`). */
export function defaultScopesHelp(): string {
  const runs: { ids: string[]; scope: Scope }[] = [];
  for (const a of AGENTS) {
    const last = runs[runs.length - 1];
    if (last?.scope === a.config.defaultScope) last.ids.push(a.id);
    else runs.push({ ids: [a.id], scope: a.config.defaultScope });
  }
  return runs.map((r) => `${andList(r.ids)} ${r.scope}`).join(', ');
}

/** Every scope some agent has, in the order help lists them. */
export function allScopes(): Scope[] {
  return (['project', 'user', 'local'] as const).filter((s) => AGENTS.some((a) => a.config.scopes.includes(s)));
}

/** The agents `--mcp` registers with (`claude, codex, gemini, opencode`). */
export function mcpAgents(): string {
  return AGENTS.filter((a) => a.mcp).map((a) => a.id).join(', ');
}
