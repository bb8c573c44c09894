// Consolidating a large scratch.md (200,000 notes) with the built CLI: nothing is lost and the
// overview stays bounded; SIGTERM before the commits leaves every file as it was; a `wmem note`
// that arrives meanwhile waits for the lock (the heartbeat is not starved) and its note is kept.
import { afterEach, beforeEach, expect, it } from 'vitest';
import { readFile, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { execa } from 'execa';
import { BIN, sandbox, runJson, type Sandbox } from '../helpers/cli.js';

const COUNT = 200_000;
let box: Sandbox;
let dir: string;
const wm = (...parts: string[]) => path.join(dir, 'working-memory', ...parts);

function scratchOf(count: number): string {
  const lines: string[] = [];
  for (let i = 0; i < count; i++) {
    const time = new Date(Date.UTC(2026, 2, 1) + i * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
    const tag = ['', ' #progress', ' #open', ' #decisions'][i % 4];
    lines.push(`- [${time}] (importance: ${(i % 10) / 10}) Note ${i}: the service ${i % 97} needs setting ${i}${tag}`);
  }
  return lines.join('\n') + '\n';
}

beforeEach(async () => {
  box = await sandbox();
  dir = (await runJson(box, ['init'])).path;
  await writeFile(wm('scratch.md'), scratchOf(COUNT));
});
afterEach(async () => {
  await box.cleanup();
});

const spawnWmem = (args: string[]) =>
  execa('node', [BIN, ...args], { cwd: box.project, reject: false, extendEnv: false, env: { PATH: process.env.PATH ?? '', HOME: box.home, WMEM_HOME: box.home, NO_COLOR: '1' }, timeout: 120_000 });

/**
 * Resolves once the consolidation has begun writing its temp files (it is mid-pass). Looks for as
 * long as it runs, not for a count of looks: a loaded machine may take far longer to get there.
 */
async function midPass(consolidation: ReturnType<typeof spawnWmem>): Promise<void> {
  let ended = false;
  void consolidation.then(() => (ended = true));
  while (!ended) {
    if ((await readdir(wm('archive'))).some((n) => n.endsWith('.tmp'))) return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error('the consolidation ended before it started writing');
}

async function files(folder: string): Promise<string[]> {
  return (await readdir(wm(folder))).sort();
}

it('keeps every one of 200,000 notes, in the archive and in the overview or a detail file, with the overview bounded', async () => {
  const result = await runJson(box, ['consolidate'], { timeout: 120_000 });
  expect(result.consumed).toBe(COUNT);
  const archive = await readFile(result.archive, 'utf8');
  expect(archive.split('\n').filter((l: string) => l.startsWith('- [')).length).toBe(COUNT);
  const overview = await readFile(wm('overview.md'), 'utf8');
  expect(overview.length).toBeLessThan(40_000);
  const details = await Promise.all(result.details.map((rel: string) => readFile(wm(rel), 'utf8')));
  const lines = [overview, ...details].join('\n').split('\n');
  const placed = Object.values(result.placed as Record<string, number>).reduce((a, b) => a + b, 0);
  // Each placed note is one line, in the overview or pushed out to a detail file: none missing.
  const found = new Set(lines.map((l) => /Note (\d+):/.exec(l)?.[1]).filter(Boolean));
  expect(found.size).toBe(placed);
  expect(placed + result.folded).toBe(COUNT);
  expect(await readFile(wm('scratch.md'), 'utf8')).not.toMatch(/^- \[/m);
  expect((await files('archive')).filter((n) => n.endsWith('.tmp'))).toEqual([]);
  expect((await files('detail')).filter((n) => n.endsWith('.tmp'))).toEqual([]);
}, 180_000);

it('stops on SIGTERM before its commits and leaves every file as it was', async () => {
  const before = { scratch: await readFile(wm('scratch.md'), 'utf8'), overview: await readFile(wm('overview.md'), 'utf8') };
  const child = spawnWmem(['consolidate']);
  await midPass(child);
  child.kill('SIGTERM');
  const r = await child;
  expect(r.exitCode).toBe(1);
  expect(r.stderr).toMatch(/interrupted by SIGTERM before anything was written/);
  expect(await readFile(wm('scratch.md'), 'utf8')).toBe(before.scratch);
  expect(await readFile(wm('overview.md'), 'utf8')).toBe(before.overview);
  expect(await files('archive')).toEqual([]);
  expect(await files('detail')).toEqual([]);
  expect((await readdir(wm())).filter((n) => n.endsWith('.tmp'))).toEqual([]);
}, 180_000);

it('a note added while it runs waits for the lock, is acknowledged, and is kept', async () => {
  const consolidation = spawnWmem(['consolidate', '--json']);
  await midPass(consolidation);
  const note = await spawnWmem(['note', 'added while the consolidation ran']);
  const done = await consolidation;
  expect(done.exitCode, done.stderr).toBe(0);
  expect(note.exitCode, note.stderr).toBe(0);
  // It waited: it came after the consolidation, so it is still in scratch.md, never lost.
  expect(await readFile(wm('scratch.md'), 'utf8')).toContain('added while the consolidation ran');
  expect(JSON.parse(done.stdout).consumed).toBe(COUNT);
}, 180_000);
