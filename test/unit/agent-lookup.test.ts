// agents/lookup.ts names every adapter of registry.ts (id, aliases, meta.json name) so that a hook
// loads only the hook part (hook.ts) of the one it serves: the two lists must agree, and each
// loader must give that adapter's own hook part, every field of it the adapter's.
import { describe, expect, it } from 'vitest';
import type { AgentAdapter, AgentHook } from '../../src/agents/adapter.js';
import { AGENTS, agentByMetaName, findAgent } from '../../src/agents/registry.js';
import { AGENT_NAMES, loadAgentHook, loadAgentHookByMetaName } from '../../src/agents/lookup.js';

/** The hook part holds no installer, and the adapter is that part (the same values) plus its config. */
function expectHookOf(hook: AgentHook | undefined, adapter: AgentAdapter | undefined) {
  expect(hook).toBeDefined();
  expect(Object.keys(hook!)).not.toContain('config');
  expect(Object.keys(hook!)).not.toContain('mcp');
  for (const [key, value] of Object.entries(hook!)) expect({ key, value: adapter![key as keyof AgentAdapter] }).toEqual({ key, value });
  const rest = Object.keys(adapter!).filter((k) => !(k in hook!));
  expect(rest.sort()).toEqual(['config', ...(adapter!.mcp ? ['mcp'] : [])].sort());
}

describe('the lazy agent lookup', () => {
  it('names every adapter of the registry, in its order, with its aliases and meta.json name', () => {
    expect(AGENT_NAMES.map((a) => ({ id: a.id, aliases: [...a.aliases], metaName: a.metaName }))).toEqual(
      AGENTS.map((a) => ({ id: a.id, aliases: [...a.aliases], metaName: a.metaName })),
    );
  });

  it("loads the hook part of the adapter the registry finds, by id, alias (any case) and meta.json name", async () => {
    for (const adapter of AGENTS) {
      expectHookOf(await loadAgentHook(adapter.id), adapter);
      for (const alias of adapter.aliases) expectHookOf(await loadAgentHook(` ${alias.toUpperCase()} `), findAgent(alias));
      expectHookOf(await loadAgentHookByMetaName(adapter.metaName), agentByMetaName(adapter.metaName));
    }
    expect(await loadAgentHook('no-such-agent')).toBeUndefined();
    expect(await loadAgentHookByMetaName(undefined)).toBeUndefined();
  });
});
