// End-to-end: `wmem install AGENT --mcp` for the agents that take wmem through MCP only (Auggie,
// Amp, Crush) and for Factory Droid's own MCP file, on real config files that already hold the
// user's settings: wmem's entry is written where and how that agent reads it, a second install
// changes nothing, doctor starts the registered command and gets tools/list answered, and
// uninstall gives the file back byte for byte.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { sandbox, type Sandbox } from '../helpers/cli.js';

let box: Sandbox;
beforeEach(async () => {
  box = await sandbox();
  expect((await box.run(['init'])).exitCode).toBe(0);
});
afterEach(async () => box.cleanup());

interface Case {
  agent: string;
  file: (box: Sandbox) => string;
  /** The user's file before wmem touches it. */
  before: string;
  /** wmem's entry in the parsed file. */
  entry: (json: any) => any;
  shape: Record<string, unknown>;
}

const CASES: Case[] = [
  {
    agent: 'droid',
    file: (b) => path.join(b.home, '.factory', 'mcp.json'),
    before: '{\n  "mcpServers": {\n    "other": {\n      "type": "stdio",\n      "command": "other",\n      "args": []\n    }\n  }\n}\n',
    entry: (json) => json.mcpServers.wmem,
    shape: { type: 'stdio' },
  },
  {
    agent: 'auggie',
    file: (b) => path.join(b.home, '.augment', 'settings.json'),
    before: '{\n  "model": "sonnet4.5",\n  "indexingAllowDirs": ["/src"]\n}\n',
    entry: (json) => json.mcpServers.wmem,
    shape: {},
  },
  {
    agent: 'amp',
    file: (b) => path.join(b.home, '.config', 'amp', 'settings.json'),
    before: '{\n\t// my settings\n\t"amp.notifications.enabled": false,\n\t"amp.mcpServers": {\n\t\t"other": { "command": "other" }\n\t}\n}\n',
    entry: (json) => json['amp.mcpServers'].wmem,
    shape: {},
  },
  {
    agent: 'crush',
    file: (b) => path.join(b.project, 'crush.json'),
    before: '{\n  "$schema": "https://charm.land/crush.json",\n  "options": { "debug": false }\n}\n',
    entry: (json) => json.mcp.wmem,
    shape: { type: 'stdio' },
  },
];

/** JSON with comments (Amp's settings allow them), parsed for the checks only. */
function parseLoose(text: string): any {
  return JSON.parse(text.replace(/^\s*\/\/.*$/gm, ''));
}

describe('wmem install AGENT --mcp for the MCP-only agents and Droid', () => {
  for (const c of CASES) {
    it(`${c.agent}: writes its entry, idempotently; doctor sees it answer tools/list; uninstall restores the bytes`, async () => {
      const file = c.file(box);
      await mkdir(path.dirname(file), { recursive: true });
      await writeFile(file, c.before);
      const install = await box.run(['install', c.agent, '--mcp']);
      expect(install.exitCode, String(install.stderr)).toBe(0);
      const written = await readFile(file, 'utf8');
      // Every byte of the user's file is still there, in order: only wmem's entry was spliced in.
      let at = 0;
      for (const ch of c.before) at = written.indexOf(ch, at) + 1;
      expect(at).toBeGreaterThan(0);
      const entry = c.entry(parseLoose(written));
      expect(entry).toMatchObject({ ...c.shape, command: expect.any(String), args: [expect.stringMatching(/bin\/wmem\.js$/), 'mcp'] });
      expect(Object.keys(entry).sort()).toEqual([...Object.keys(c.shape), 'command', 'args'].sort());

      const again = await box.run(['install', c.agent, '--mcp']);
      expect(String(again.stderr)).toMatch(/already registered/);
      expect(await readFile(file, 'utf8')).toBe(written);

      const doctor = JSON.parse(String((await box.run(['doctor', '--json'])).stdout));
      expect(doctor.mcp.registrations).toEqual([expect.objectContaining({ agent: c.agent, file })]);
      expect(doctor.mcp.checks).toEqual([expect.objectContaining({ ok: true, detail: expect.stringMatching(/^10 tools: /) })]);

      const removed = await box.run(['uninstall', c.agent, '--mcp']);
      expect(removed.exitCode, String(removed.stderr)).toBe(0);
      expect(await readFile(file, 'utf8')).toBe(c.before);
    });
  }

  it('names the new agents among those it knows, takes their aliases, and points a hooks install of an MCP-only agent at --mcp', async () => {
    const unknown = await box.run(['install', 'cursor', '--mcp']);
    expect(unknown.exitCode).toBe(2);
    expect(String(unknown.stderr)).toMatch(/known agents: .*droid.*kilo.*auggie.*amp.*crush/);
    const hooks = await box.run(['install', 'crush']);
    expect(hooks.exitCode).toBe(2);
    expect(String(hooks.stderr)).toContain("Crush takes wmem through MCP only: its hooks cannot give the model wmem's memory\n  run 'wmem install crush --mcp'");
    const dry = await box.run(['install', 'augment', '--mcp', '--dry-run']);
    expect(dry.exitCode, String(dry.stderr)).toBe(0);
    expect(JSON.parse(String(dry.stdout))).toMatchObject({ mcpServers: { wmem: { command: expect.any(String) } } });
  });
});
