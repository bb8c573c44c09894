// The planners that register `wmem mcp` with each agent: idempotent, byte-stable for everything
// but wmem's entry (an install then an uninstall gives the original bytes back), and refusing a
// file they cannot parse.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { parse as parseToml } from 'smol-toml';
import { MCP_TARGETS, mcpTarget, type ServerCommand } from '../../src/agents/mcp-register.js';
import { AGENTS } from '../../src/agents/registry.js';
import { ConfigShapeError } from '../../src/agents/adapter.js';

const server: ServerCommand = { command: 'wmem', args: ['mcp'] };
const moved: ServerCommand = { command: '/usr/bin/node', args: ['/opt/wmem/bin/wmem.js', 'mcp', '--home', '/home/me/.ai'] };
const target = (id: string) => mcpTarget(id)!;

const JSON_TARGETS = ['claude', 'gemini', 'opencode', 'copilot', 'qwen'];

/** Installs, checks idempotence and the round trip back to the original bytes. */
function roundTrip(id: string, before: string | undefined) {
  const t = target(id);
  const installed = t.planInstall('f', before, server);
  expect(installed.changed).toBe(true);
  expect(t.registered('f', installed.after)).toEqual(server);
  const again = t.planInstall('f', installed.after, server);
  expect(again.changed).toBe(false);
  expect(again.after).toBe(installed.after);
  const removed = t.planUninstall('f', installed.after);
  expect(removed).toMatchObject({ changed: true, removed: 1 });
  expect(t.registered('f', removed.after)).toBeUndefined();
  expect(t.planUninstall('f', removed.after)).toMatchObject({ changed: false, removed: 0 });
  return { installed: installed.after, removed: removed.after };
}

describe('JSON configs', () => {
  it('writes each agent\'s shape into a missing file', () => {
    expect(JSON.parse(target('claude').planInstall('f', undefined, server).after)).toEqual({ mcpServers: { wmem: { type: 'stdio', command: 'wmem', args: ['mcp'] } } });
    expect(JSON.parse(target('gemini').planInstall('f', undefined, server).after)).toEqual({ mcpServers: { wmem: { command: 'wmem', args: ['mcp'] } } });
    expect(JSON.parse(target('opencode').planInstall('f', undefined, server).after)).toEqual({ mcp: { wmem: { type: 'local', command: ['wmem', 'mcp'], enabled: true } } });
    // What `copilot mcp add` writes; Qwen's is Gemini's.
    expect(JSON.parse(target('copilot').planInstall('f', undefined, server).after)).toEqual({ mcpServers: { wmem: { type: 'local', command: 'wmem', args: ['mcp'], tools: ['*'] } } });
    expect(JSON.parse(target('qwen').planInstall('f', undefined, server).after)).toEqual({ mcpServers: { wmem: { command: 'wmem', args: ['mcp'] } } });
  });

  for (const id of JSON_TARGETS) {
    it(`${id}: keeps every other byte (comments, odd spacing, other servers) and gives them back on uninstall`, () => {
      const container = id === 'opencode' ? 'mcp' : 'mcpServers';
      const before = `{\n    // the user's own comment\n    "theme":   "dark",\n    "${container}": {\n        "other": {"command": "x", "args": ["--y"]}\n    },\n    "list": [1,2,3]\n}\n`;
      const { installed, removed } = roundTrip(id, before);
      expect(installed).toContain('// the user\'s own comment\n    "theme":   "dark",');
      expect(installed).toContain('"other": {"command": "x", "args": ["--y"]}');
      expect(installed).toContain('"list": [1,2,3]');
      expect(installed).toMatch(/\n {8}"wmem": \{/);
      expect(removed).toBe(before);
    });

    it(`${id}: updates a changed command in place, and refuses what it cannot parse`, () => {
      const t = target(id);
      const first = t.planInstall('f', '{"a": 1}\n', server).after;
      const second = t.planInstall('f', first, moved);
      expect(second.changed).toBe(true);
      expect(t.registered('f', second.after)).toEqual(moved);
      for (const bad of ['{"a": ', '[1, 2]', '{"mcpServers": 3, "mcp": 3}']) {
        expect(() => t.planInstall('/x/settings.json', bad, server), bad).toThrow(ConfigShapeError);
        expect(() => t.planUninstall('/x/settings.json', bad), bad).toThrow(/left untouched/);
      }
    });
  }

  it('property: install then uninstall gives any JSON object back byte for byte, and install changes only wmem\'s entry', () => {
    const key = fc.string({ minLength: 1, maxLength: 8 }).filter((k) => !['mcpServers', 'mcp', '__proto__'].includes(k));
    fc.assert(
      fc.property(fc.dictionary(key, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 6 }), fc.constantFrom(0, 2, 4, '\t'), fc.constantFrom(...JSON_TARGETS), (value, indent, id) => {
        const before = JSON.stringify(value, null, indent) + '\n';
        const t = target(id);
        const installed = t.planInstall('f', before, server).after;
        // JSON.parse, like the agents' readers: jsonc-parser's parse drops a nested "__proto__" key
        // that the file keeps (fast-check generates such keys).
        const parsed = JSON.parse(installed) as Record<string, unknown>;
        const { mcpServers: _a, mcp: _b, ...rest } = parsed;
        expect(rest).toEqual(JSON.parse(before));
        expect(t.planUninstall('f', installed).after).toBe(before);
      }),
      { numRuns: 150 },
    );
  });
});

describe('Codex config.toml', () => {
  const codex = () => target('codex');
  const config = `# my codex config\nmodel = "gpt-5.1"\nmodel_provider = "mock"\n\n[model_providers.mock]\nbase_url = "http://127.0.0.1:9/v1"\nwire_api = "responses"\n\n[mcp_servers.other]\ncommand = "other"\nargs = ["--flag"]\n`;

  it('appends [mcp_servers.wmem] and takes exactly it away again', () => {
    const { installed, removed } = roundTrip('codex', config);
    expect(installed.startsWith(config)).toBe(true);
    expect(installed.slice(config.length)).toBe('\n[mcp_servers.wmem]\ncommand = "wmem"\nargs = [ "mcp" ]\n');
    expect(parseToml(installed)).toMatchObject({ mcp_servers: { wmem: { command: 'wmem', args: ['mcp'] }, other: { command: 'other' } }, model: 'gpt-5.1' });
    expect(removed).toBe(config);
  });

  it('replaces its table where it is (with its sub-tables), keeping what follows', () => {
    const middle = `model = "m"\n\n[mcp_servers.wmem]\ncommand = "old"\nargs = []\n\n[mcp_servers.wmem.env]\nX = "1"\n\n# about the next table\n[profiles.fast]\nmodel = "f"\n`;
    const updated = codex().planInstall('f', middle, moved);
    expect(updated.changed).toBe(true);
    expect(updated.after).toBe(`model = "m"\n\n[mcp_servers.wmem]\ncommand = "/usr/bin/node"\nargs = [ "/opt/wmem/bin/wmem.js", "mcp", "--home", "/home/me/.ai" ]\n\n# about the next table\n[profiles.fast]\nmodel = "f"\n`);
    const removed = codex().planUninstall('f', middle);
    expect(removed.after).toBe(`model = "m"\n\n# about the next table\n[profiles.fast]\nmodel = "f"\n`);
  });

  it('writes a new file, is idempotent, and refuses what it cannot parse or safely edit', () => {
    const fresh = roundTrip('codex', undefined);
    expect(fresh.installed).toBe('[mcp_servers.wmem]\ncommand = "wmem"\nargs = [ "mcp" ]\n');
    expect(() => codex().planInstall('/c/config.toml', 'model = ', server)).toThrow(/config\.toml is not valid TOML.*left untouched/);
    expect(() => codex().planUninstall('/c/config.toml', '[a\n')).toThrow(ConfigShapeError);
    expect(() => codex().planInstall('/c/config.toml', 'mcp_servers = { wmem = { command = "x" } }\n', server)).toThrow(/inline/);
  });
});

it('knows the agents and their aliases', () => {
  expect(MCP_TARGETS.map((t) => t.id)).toEqual(['claude', 'codex', 'gemini', 'opencode', 'copilot', 'qwen', 'droid', 'kilo', 'auggie', 'amp', 'crush']);
  expect(mcpTarget('claude-code')?.id).toBe('claude');
  expect(['factory-droid', 'kilo-code', 'augment'].map((a) => mcpTarget(a)?.id)).toEqual(['droid', 'kilo', 'auggie']);
  expect(mcpTarget('cursor')).toBeUndefined();
});

it('takes every alias the registry takes (codex-cli, open-code too)', () => {
  for (const agent of AGENTS) for (const name of [agent.id, ...agent.aliases, agent.id.toUpperCase()]) expect(mcpTarget(name)?.id).toBe(agent.id);
});

it('finds each agent\'s config file for each scope', () => {
  const place = { cwd: '/p', env: { HOME: '/h' } as NodeJS.ProcessEnv };
  const files = MCP_TARGETS.flatMap((t) => t.scopes.map((scope) => `${t.id} ${scope} ${t.file(scope, place)}`));
  expect(files).toEqual([
    'claude project /p/.mcp.json',
    'claude user /h/.claude.json',
    'codex user /h/.codex/config.toml',
    'codex project /p/.codex/config.toml',
    'gemini project /p/.gemini/settings.json',
    'gemini user /h/.gemini/settings.json',
    'opencode project /p/opencode.json',
    'opencode user /h/.config/opencode/opencode.json',
    'copilot user /h/.copilot/mcp-config.json',
    'qwen user /h/.qwen/settings.json',
    'qwen project /p/.qwen/settings.json',
    'droid user /h/.factory/mcp.json',
    'droid project /p/.factory/mcp.json',
    'kilo project /p/kilo.json',
    'kilo user /h/.config/kilo/kilo.json',
    'auggie user /h/.augment/settings.json',
    'amp user /h/.config/amp/settings.json',
    'crush project /p/crush.json',
    'crush user /h/.config/crush/crush.json',
  ]);
  const moved = { cwd: '/p', env: { HOME: '/h', CLAUDE_CONFIG_DIR: '/c', CODEX_HOME: '/x', XDG_CONFIG_HOME: '/xdg' } as NodeJS.ProcessEnv };
  expect(['claude', 'codex', 'opencode'].map((id) => target(id).file('user', moved))).toEqual(['/c/.claude.json', '/x/config.toml', '/xdg/opencode/opencode.json']);
});
