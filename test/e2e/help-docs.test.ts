// docs/commands.md is the reference a user reads, and `wmem --help` is what the build prints: each
// `## wmem X` section of the page holds, in its fenced block, exactly what `wmem X --help` prints,
// and every command `wmem --help` lists has its section. It is also the snapshot that keeps the
// help byte-stable across changes to how the commands are declared (src/entries/commands.ts).
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT, runWmem } from '../helpers/cli.js';

const doc = readFileSync(path.join(ROOT, 'docs', 'commands.md'), 'utf8');
const sections = new Map([...doc.matchAll(/^## wmem ?(\S*)\n\n```\n([\s\S]*?)```\n/gm)].map((m) => [m[1]!, m[2]!]));

const help = async (args: string[]) => {
  const home = path.join(os.tmpdir(), 'wmem-help-docs-no-home');
  const result = await runWmem([...args, '--help'], { home, cwd: os.tmpdir(), timeout: 60_000 });
  expect(result.stderr).toBe('');
  expect(result.exitCode).toBe(0);
  return String(result.stdout) + '\n';
};

describe('docs/commands.md equals --help', () => {
  it('wmem --help', async () => {
    expect(sections.get('')).toBe(await help([]));
  });

  const listed = (sections.get('') ?? '').split('Commands:\n')[1] ?? '';
  const commands = [...listed.matchAll(/^ {2}([a-z][\w-]*)/gm)].map((m) => m[1]!).filter((name) => name !== 'help');

  it('lists every command once, and the page has a section for each and no other', () => {
    expect(commands.length).toBeGreaterThan(25);
    expect(new Set(commands).size).toBe(commands.length);
    expect([...sections.keys()].filter((k) => k !== '').sort()).toEqual([...commands].sort());
  });

  for (const name of commands) {
    it(`wmem ${name} --help`, async () => {
      expect(sections.get(name)).toBe(await help([name]));
    });
  }
});
