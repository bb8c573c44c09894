// agents/lookup.ts lists the agents by name (id, aliases, meta.json name), so that a hook loads only
// the hook part (hook.ts) of the one it serves; registry.ts holds their whole adapters (index.ts),
// imported statically. The two must agree, each loader must give that adapter's own hook part,
// every field of it the adapter's, and each name must find the same agent both ways.
import { describe, expect, it } from 'vitest';
import type { AgentAdapter, AgentHook } from '../../src/agents/adapter.js';
import { AGENTS, agentByMetaName, findAgent } from '../../src/agents/registry.js';
import { AGENT_NAMES, entryByMetaName, entryByName, knownAgents, loadAgentHook, loadAgentHookByMetaName } from '../../src/agents/lookup.js';

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
  it('is the list the registry holds, in its order, each adapter with its folder\'s names', () => {
    expect(AGENT_NAMES.map((a) => ({ id: a.id, aliases: [...a.aliases], metaName: a.metaName, displayName: a.displayName }))).toEqual(
      AGENTS.map((a) => ({ id: a.id, aliases: [...a.aliases], metaName: a.metaName, displayName: a.displayName })),
    );
    expect(new Set(AGENT_NAMES.map((a) => a.id)).size).toBe(AGENT_NAMES.length);
  });

  it('finds one agent by each name, the same one as the registry, and lists every name in messages', () => {
    for (const adapter of AGENTS) {
      for (const name of [adapter.id, ...adapter.aliases]) {
        expect(entryByName(` ${name.toUpperCase()} `)?.id).toBe(adapter.id);
        expect(findAgent(name)).toBe(adapter);
        expect(knownAgents()).toContain(name);
      }
      expect(entryByMetaName(adapter.metaName)?.id).toBe(adapter.id);
    }
    expect(entryByName('no-such-agent')).toBeUndefined();
    expect(findAgent('no-such-agent')).toBeUndefined();
    expect(agentByMetaName('no-such-agent')).toBeUndefined();
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
