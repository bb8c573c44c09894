// The agents by id, alias and meta.json name, each adapter loaded only when it is asked for. A
// hook serves one agent and `wmem context` reads one agent's transcript: loading all eleven
// adapters (their installers and config readers included, registry.ts) cost every prompt ~13 ms
// on a slow machine against ~4 ms for one. Each agent's names live in its folder's names.ts, which
// its adapter spreads too; registry.ts stays the list of the adapters themselves, and
// test/unit/agent-lookup.test.ts checks that this list holds each of them.
import type { AgentAdapter, AgentNames } from './adapter.js';
import { CLAUDE_NAMES } from './claude/names.js';
import { CODEX_NAMES } from './codex/names.js';
import { GEMINI_NAMES } from './gemini/names.js';
import { OPENCODE_NAMES } from './opencode/names.js';
import { COPILOT_NAMES } from './copilot/names.js';
import { QWEN_NAMES } from './qwen/names.js';
import { DROID_NAMES } from './droid/names.js';
import { KILO_NAMES } from './kilo/names.js';
import { AUGGIE_NAMES } from './auggie/names.js';
import { AMP_NAMES } from './amp/names.js';
import { CRUSH_NAMES } from './crush/names.js';

/** The agent a hook serves when `--agent` is not given. */
export const DEFAULT_AGENT = 'claude';

interface AgentName extends AgentNames {
  load: () => Promise<AgentAdapter>;
}

// registry.ts's order. The import paths are written out so that the bundler sees each one.
export const AGENT_NAMES: readonly AgentName[] = [
  { ...CLAUDE_NAMES, load: () => import('./claude/index.js').then((m) => m.claude) },
  { ...CODEX_NAMES, load: () => import('./codex/index.js').then((m) => m.codex) },
  { ...GEMINI_NAMES, load: () => import('./gemini/index.js').then((m) => m.gemini) },
  { ...OPENCODE_NAMES, load: () => import('./opencode/index.js').then((m) => m.opencode) },
  { ...COPILOT_NAMES, load: () => import('./copilot/index.js').then((m) => m.copilot) },
  { ...QWEN_NAMES, load: () => import('./qwen/index.js').then((m) => m.qwen) },
  { ...DROID_NAMES, load: () => import('./droid/index.js').then((m) => m.droid) },
  { ...KILO_NAMES, load: () => import('./kilo/index.js').then((m) => m.kilo) },
  { ...AUGGIE_NAMES, load: () => import('./auggie/index.js').then((m) => m.auggie) },
  { ...AMP_NAMES, load: () => import('./amp/index.js').then((m) => m.amp) },
  { ...CRUSH_NAMES, load: () => import('./crush/index.js').then((m) => m.crush) },
];

/** The adapter named `name` (its id or an alias, any case), or undefined: registry.ts's findAgent, loading only that one. */
export async function loadAgent(name: string): Promise<AgentAdapter | undefined> {
  const key = name.trim().toLowerCase();
  return AGENT_NAMES.find((a) => a.id === key || a.aliases.includes(key))?.load();
}

/** The adapter whose meta.json name is `metaName` (`claude-code` → claude): registry.ts's agentByMetaName, loading only that one. */
export async function loadAgentByMetaName(metaName: string | undefined): Promise<AgentAdapter | undefined> {
  return metaName === undefined ? undefined : AGENT_NAMES.find((a) => a.metaName === metaName)?.load();
}
