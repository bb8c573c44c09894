// Every agent's whole adapter (its folder's index.ts: the hook part with its installer, diagnosis
// and MCP registration), for install, uninstall, doctor, `--mcp`, help and the report, in
// lookup.ts's order. lookup.ts is the list of the agents by name; this one holds their adapters,
// imported statically: derived from lookup.ts's list by a dynamic import of each index.ts, every
// full-CLI command (`wmem note` among them) loaded eleven more ES module chunks, ~10-30 ms more
// CPU on a loaded 2-core machine. test/unit/agent-lookup.test.ts checks that the two agree.
import type { AgentAdapter, Scope } from './adapter.js';
import { entryByMetaName, entryByName } from './lookup.js';
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

export { DEFAULT_AGENT, knownAgents } from './lookup.js';

export const AGENTS: readonly AgentAdapter[] = [claude, codex, gemini, opencode, copilot, qwen, droid, kilo, auggie, amp, crush];

const byId = (id: string | undefined) => AGENTS.find((a) => a.id === id);

/** The adapter named `name` (its id or an alias, any case), or undefined. */
export function findAgent(name: string): AgentAdapter | undefined {
  return byId(entryByName(name)?.id);
}

/** The adapter whose meta.json name is `metaName` (`claude-code` → claude). */
export function agentByMetaName(metaName: string | undefined): AgentAdapter | undefined {
  return byId(entryByMetaName(metaName)?.id);
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
