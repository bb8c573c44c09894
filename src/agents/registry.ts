// Every agent's whole adapter (its folder's index.ts: the hook part with its installer, diagnosis
// and MCP registration), for install, uninstall, doctor, `--mcp`, help and the report. The list is
// lookup.ts's: each agent's index.ts is loaded by its id (the bundler takes every
// `agents/<id>/index.ts`), so adding an agent is its folder and its line in lookup.ts.
import type { AgentAdapter, Scope } from './adapter.js';
import { AGENT_NAMES, entryByMetaName, entryByName } from './lookup.js';

export { DEFAULT_AGENT, knownAgents } from './lookup.js';

/** The adapter index.ts exports under the agent's id (`export const claude: AgentAdapter`). */
async function adapterOf(id: string): Promise<AgentAdapter> {
  // The path is spelled with .ts so that esbuild's pattern `./*/index.ts` finds the sources.
  const adapter = ((await import(`./${id}/index.ts`)) as Record<string, AgentAdapter | undefined>)[id];
  if (adapter?.id !== id) throw new Error(`src/agents/${id}/index.ts exports no adapter named ${id}`);
  return adapter;
}

export const AGENTS: readonly AgentAdapter[] = await Promise.all(AGENT_NAMES.map((a) => adapterOf(a.id)));

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
