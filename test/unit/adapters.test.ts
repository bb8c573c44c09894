// The contract every agent adapter keeps (src/agents/adapter.ts), checked over the whole registry
// so a new adapter is held to it by being registered; then Claude Code's config plans as a
// property: whatever else a settings file holds, install then uninstall gives it back.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ConfigShapeError, MOMENTS, type AgentAdapter, type HookInput } from '../../src/agents/adapter.js';
import { AGENTS, DEFAULT_AGENT, findAgent, knownAgents } from '../../src/agents/registry.js';
import { claude } from '../../src/agents/claude/index.js';

const place = { cwd: '/home/me/app', env: { HOME: '/home/me' } };
const request = { command: 'wmem' };

function inputFor(adapter: AgentAdapter, moment: (typeof MOMENTS)[number]): HookInput | undefined {
  const event = adapter.events.find((e) => e.moment === moment);
  return event && { agent: adapter.id, event: event.name, moment };
}

describe('the registry', () => {
  it('finds each adapter by id and by alias, in any case, and nothing else', () => {
    for (const adapter of AGENTS) {
      expect(findAgent(adapter.id)).toBe(adapter);
      expect(findAgent(adapter.id.toUpperCase())).toBe(adapter);
      for (const alias of adapter.aliases) expect(findAgent(alias)).toBe(adapter);
    }
    expect(findAgent('cursor')).toBeUndefined();
    expect(findAgent(DEFAULT_AGENT)).toBeDefined();
    expect(knownAgents()).toContain('claude (claude-code)');
  });

  it('has no two adapters answering to the same name', () => {
    const names = AGENTS.flatMap((a) => [a.id, ...a.aliases]);
    expect(new Set(names).size).toBe(names.length);
    expect(new Set(AGENTS.map((a) => a.metaName)).size).toBe(AGENTS.length);
  });
});

describe.each(AGENTS.map((a) => [a.id, a] as const))('adapter %s', (_id, adapter) => {
  it('names every event once, each resolving to itself in a forgiving spelling', () => {
    const names = adapter.events.map((e) => e.name);
    expect(new Set(names).size).toBe(names.length);
    for (const event of adapter.events) {
      expect(MOMENTS).toContain(event.moment);
      expect(adapter.eventFor(event.name)).toBe(event);
      expect(adapter.eventFor(event.name.toLowerCase())).toBe(event);
    }
    expect(adapter.eventFor('NoSuchEvent')).toBeUndefined();
  });

  it('answers the start of a session and a prompt, never past its cap, and nothing on a tool event', () => {
    for (const moment of ['session-start', 'prompt'] as const) {
      const input = inputFor(adapter, moment);
      if (!input) continue;
      // An agent whose session-start text does harm (Gemini CLI) takes the memory with the first prompt.
      if (moment === 'session-start' && adapter.answer.memoryAtStart === false) {
        expect(adapter.answer.answer(input, 'memory')).toBeUndefined();
        continue;
      }
      const answer = adapter.answer.answer(input, 'memory');
      expect(JSON.stringify(answer)).toContain('memory');
      expect(() => adapter.answer.answer(input, 'x'.repeat(adapter.answer.contextCap + 1))).toThrow();
    }
    const tool = inputFor(adapter, 'tool-done');
    if (tool) expect(adapter.answer.answer(tool, 'memory')).toBeUndefined();
  });

  it('plans an install into a new file, idempotently, that diagnose sees and uninstall takes back', () => {
    // An agent reached through MCP only (no hook event) refuses a hooks install, pointing at --mcp.
    if (!adapter.events.length) {
      expect(() => adapter.config.planInstall(adapter.config.file(adapter.config.defaultScope, place), undefined, request)).toThrow(/through MCP only/);
      return;
    }
    for (const scope of adapter.config.scopes) {
      const file = adapter.config.file(scope, place);
      const first = adapter.config.planInstall(file, undefined, request);
      expect(first.changed).toBe(true);
      expect(first.events.length).toBeGreaterThan(0);
      const again = adapter.config.planInstall(file, first.after, request);
      expect(again).toMatchObject({ changed: false, after: first.after });
      const status = adapter.config.diagnose(scope, file, first.after, {});
      expect(status).toMatchObject({ scope, file, exists: true, missing: [] });
      expect(adapter.config.commandPrefix(status.command!)).toBe('wmem');
      const removed = adapter.config.planUninstall(file, first.after);
      expect(removed.changed).toBe(true);
      expect(removed.removed).toBeGreaterThan(0);
      expect(adapter.config.diagnose(scope, file, removed.after, {}).installed).toEqual([]);
      expect(adapter.config.planUninstall(file, removed.after).changed).toBe(false);
    }
  });
});

describe("Claude Code's config plans", () => {
  const file = '/home/me/app/.claude/settings.json';
  const json = fc.jsonValue({ maxDepth: 3 });
  const others = fc.dictionary(fc.string({ minLength: 1, maxLength: 12 }).filter((k) => k !== 'hooks' && k !== '__proto__'), json, { maxKeys: 6 });

  it('install then uninstall gives back every other setting, and a second install changes nothing', () => {
    fc.assert(
      fc.property(others, fc.constantFrom(2, 4, '\t'), (settings, indent) => {
        const before = JSON.stringify(settings, null, indent) + '\n';
        const installed = claude.config.planInstall(file, before, request);
        expect(claude.config.planInstall(file, installed.after, request).changed).toBe(false);
        const removed = claude.config.planUninstall(file, installed.after);
        expect(JSON.parse(removed.after)).toEqual(JSON.parse(before));
      }),
    );
  });

  it('refuses a file that is not a JSON object, naming it, with the fix', () => {
    for (const text of ['{ "model": "opus", // note\n}', '[1]', '{"hooks": []}']) {
      let error: unknown;
      try {
        claude.config.planInstall(file, text, request);
      } catch (err) {
        error = err;
      }
      expect(error).toBeInstanceOf(ConfigShapeError);
      expect((error as Error).message).toContain(file);
      expect((error as ConfigShapeError).hint).toMatch(/fix that file/);
    }
    expect(claude.config.diagnose('project', file, '{ oops', {}).error).toContain('is not valid JSON');
  });
});
