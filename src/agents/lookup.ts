// The agents by id, alias and meta.json name, each adapter loaded only when it is asked for. A
// hook serves one agent and `wmem context` reads one agent's transcript: loading all eleven
// adapters (their installers and config readers included, registry.ts) cost every prompt ~13 ms
// on a slow machine against ~4 ms for one. registry.ts stays the list of the adapters themselves;
// test/unit/agent-lookup.test.ts checks that this table names each of them exactly as it does.
import type { AgentAdapter } from './adapter.js';

/** The agent a hook serves when `--agent` is not given. */
export const DEFAULT_AGENT = 'claude';

interface AgentName {
  id: string;
  aliases: readonly string[];
  /** The name meta.json records (the id, unless it says otherwise). */
  metaName?: string;
  load: () => Promise<AgentAdapter>;
}

export const AGENT_NAMES: readonly AgentName[] = [
  { id: 'claude', aliases: ['claude-code'], metaName: 'claude-code', load: () => import('./claude/index.js').then((m) => m.claude) },
  { id: 'codex', aliases: ['codex-cli'], load: () => import('./codex/index.js').then((m) => m.codex) },
  { id: 'gemini', aliases: ['gemini-cli'], load: () => import('./gemini/index.js').then((m) => m.gemini) },
  { id: 'opencode', aliases: ['open-code'], load: () => import('./opencode/index.js').then((m) => m.opencode) },
  { id: 'copilot', aliases: ['copilot-cli', 'github-copilot'], load: () => import('./copilot/index.js').then((m) => m.copilot) },
  { id: 'qwen', aliases: ['qwen-code'], load: () => import('./qwen/index.js').then((m) => m.qwen) },
  { id: 'droid', aliases: ['factory-droid', 'factory'], load: () => import('./droid/index.js').then((m) => m.droid) },
  { id: 'kilo', aliases: ['kilo-code', 'kilocode'], load: () => import('./kilo/index.js').then((m) => m.kilo) },
  { id: 'auggie', aliases: ['augment'], load: () => import('./auggie/index.js').then((m) => m.auggie) },
  { id: 'amp', aliases: ['amp-code', 'ampcode'], load: () => import('./amp/index.js').then((m) => m.amp) },
  { id: 'crush', aliases: ['charm-crush'], load: () => import('./crush/index.js').then((m) => m.crush) },
];

/** The adapter named `name` (its id or an alias, any case), or undefined: registry.ts's findAgent, loading only that one. */
export async function loadAgent(name: string): Promise<AgentAdapter | undefined> {
  const key = name.trim().toLowerCase();
  return AGENT_NAMES.find((a) => a.id === key || a.aliases.includes(key))?.load();
}

/** The adapter whose meta.json name is `metaName` (`claude-code` → claude): registry.ts's agentByMetaName, loading only that one. */
export async function loadAgentByMetaName(metaName: string | undefined): Promise<AgentAdapter | undefined> {
  return metaName === undefined ? undefined : AGENT_NAMES.find((a) => (a.metaName ?? a.id) === metaName)?.load();
}
