// Amp (pinned, installed by the suite's setup) reads the MCP entry the built `wmem install amp
// --mcp` wrote: its own `amp mcp list` names wmem with the command wmem registered, in a temporary
// HOME. Amp lists its settings' servers offline (the account's servers it cannot reach are only a
// warning). After `wmem uninstall amp --mcp` the settings file is byte for byte as before and Amp
// lists no wmem.
import { describe, expect, inject, it } from 'vitest';
import { execa } from 'execa';
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { WMEM_BIN } from './helpers/droid-world.js';

const ampBin = inject('ampBin');

describe('Amp reads the MCP entry wmem writes', () => {
  it('amp mcp list shows wmem after install and not after uninstall; the settings come back byte for byte', async () => {
    const root = await realpath(await mkdtemp(path.join(os.tmpdir(), 'wmem-amp-')));
    try {
      const home = path.join(root, 'home');
      const project = path.join(root, 'project');
      const settings = path.join(home, '.config', 'amp', 'settings.json');
      await mkdir(path.dirname(settings), { recursive: true });
      await mkdir(project);
      const before = '{\n  "amp.notifications.enabled": false\n}\n';
      await writeFile(settings, before);
      const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, NO_COLOR: '1', LANG: 'C.UTF-8' };
      const wmem = (args: string[]) => execa('node', [WMEM_BIN, '--home', path.join(root, 'wmem-home'), ...args], { cwd: project, env, extendEnv: false, reject: false, input: '', timeout: 30_000 });
      const amp = () => execa(ampBin, ['mcp', 'list'], { cwd: project, env, extendEnv: false, reject: false, stdin: 'ignore', timeout: 120_000 });
      expect((await wmem(['install', 'amp', '--mcp'])).exitCode).toBe(0);
      const entry = JSON.parse(await readFile(settings, 'utf8'))['amp.mcpServers'].wmem;
      const listed = await amp();
      expect(listed.exitCode, String(listed.stderr)).toBe(0);
      const line = String(listed.stdout).split('\n').find((l) => /^\s*wmem\s/.test(l));
      expect(line, String(listed.stdout)).toBeDefined();
      expect(line).toContain([entry.command, ...entry.args].join(' '));
      expect((await wmem(['uninstall', 'amp', '--mcp'])).exitCode).toBe(0);
      expect(await readFile(settings, 'utf8')).toBe(before);
      expect(String((await amp()).stdout)).not.toMatch(/^\s*wmem\s/m);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});
