// The agents wmem knows, by id, alias and meta.json name, each one's hook part (its
// folder's hook.ts) loaded only when it is asked for. A hook serves one agent and `wmem context`
// reads one agent's transcript: loading all eleven adapters (their installers and config readers
// included, registry.ts) cost every prompt ~13 ms on a slow machine against ~4 ms for one, and an
// adapter's installer (settings planners, trust checks, TOML) is more than its hook needs. Each
// agent's names live in its folder's names.ts, which its hook part spreads too. registry.ts holds the
// whole adapters (index.ts) in the same order (test/unit/agent-lookup.test.ts checks that they
// agree); the hook's first stage (src/entries/build-first-hook.mjs) serves every agent listed here.
import type { AgentHook, AgentNames } from './adapter.js';
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

export interface AgentEntry extends AgentNames {
  /** Its hook part (hook.ts), without its installer. */
  hook: () => Promise<AgentHook>;
}

// The order of help, install and doctor. The import paths are written out so that the bundler sees
// each one (and the first stage can leave the others' out).
export const AGENT_NAMES: readonly AgentEntry[] = [
  { ...CLAUDE_NAMES, hook: () => import('./claude/hook.js').then((m) => m.claudeHook) },
  { ...CODEX_NAMES, hook: () => import('./codex/hook.js').then((m) => m.codexHook) },
  { ...GEMINI_NAMES, hook: () => import('./gemini/hook.js').then((m) => m.geminiHook) },
  { ...OPENCODE_NAMES, hook: () => import('./opencode/hook.js').then((m) => m.opencodeHook) },
  { ...COPILOT_NAMES, hook: () => import('./copilot/hook.js').then((m) => m.copilotHook) },
  { ...QWEN_NAMES, hook: () => import('./qwen/hook.js').then((m) => m.qwenHook) },
  { ...DROID_NAMES, hook: () => import('./droid/hook.js').then((m) => m.droidHook) },
  { ...KILO_NAMES, hook: () => import('./kilo/hook.js').then((m) => m.kiloHook) },
  { ...AUGGIE_NAMES, hook: () => import('./auggie/hook.js').then((m) => m.auggieHook) },
  { ...AMP_NAMES, hook: () => import('./amp/hook.js').then((m) => m.ampHook) },
  { ...CRUSH_NAMES, hook: () => import('./crush/hook.js').then((m) => m.crushHook) },
];

/** The entry of the agent called `name` on the command line (its id or an alias, any case), or undefined: nothing loaded. */
export function entryByName(name: string): AgentEntry | undefined {
  const key = name.trim().toLowerCase();
  return AGENT_NAMES.find((a) => a.id === key || a.aliases.includes(key));
}

/** The entry of the agent whose meta.json name is `metaName` (`claude-code` → claude), or undefined: nothing loaded. */
export function entryByMetaName(metaName: string | undefined): AgentEntry | undefined {
  return metaName === undefined ? undefined : AGENT_NAMES.find((a) => a.metaName === metaName);
}

/** The hook part of the agent named `name` (entryByName), loading only that one's hook.ts. */
export async function loadAgentHook(name: string): Promise<AgentHook | undefined> {
  return entryByName(name)?.hook();
}

/** The hook part of the agent whose meta.json name is `metaName` (entryByMetaName), loading only that one's hook.ts. */
export async function loadAgentHookByMetaName(metaName: string | undefined): Promise<AgentHook | undefined> {
  return entryByMetaName(metaName)?.hook();
}

/** The ids and aliases, for messages (`claude (claude-code), codex (codex-cli), …`). */
export function knownAgents(): string {
  return AGENT_NAMES.map((a) => (a.aliases.length ? `${a.id} (${a.aliases.join(', ')})` : a.id)).join(', ');
}
