// agents/lookup.ts names every adapter of registry.ts (id, aliases, meta.json name) so that a hook
// loads only the one it serves: the two lists must agree, and each loader must give that adapter.
import { describe, expect, it } from 'vitest';
import { AGENTS, agentByMetaName, findAgent } from '../../src/agents/registry.js';
import { AGENT_NAMES, loadAgent, loadAgentByMetaName } from '../../src/agents/lookup.js';

describe('the lazy agent lookup', () => {
  it('names every adapter of the registry, in its order, with its aliases and meta.json name', () => {
    expect(AGENT_NAMES.map((a) => ({ id: a.id, aliases: [...a.aliases], metaName: a.metaName }))).toEqual(
      AGENTS.map((a) => ({ id: a.id, aliases: [...a.aliases], metaName: a.metaName })),
    );
  });

  it('loads the same adapter object as the registry finds, by id, alias (any case) and meta.json name', async () => {
    for (const adapter of AGENTS) {
      expect(await loadAgent(adapter.id)).toBe(adapter);
      for (const alias of adapter.aliases) expect(await loadAgent(` ${alias.toUpperCase()} `)).toBe(findAgent(alias));
      expect(await loadAgentByMetaName(adapter.metaName)).toBe(agentByMetaName(adapter.metaName));
    }
    expect(await loadAgent('no-such-agent')).toBeUndefined();
    expect(await loadAgentByMetaName(undefined)).toBeUndefined();
  });
});
