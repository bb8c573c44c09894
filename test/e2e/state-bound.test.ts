// The state files wmem derives (state/*.json) are read with a bound (store/regular-file.ts
// MAX_STATE_BYTES): one grown past it (by hand, a runaway writer) is a miss, never read nor parsed,
// and rebuilt at its usual size, instead of being read whole on every prompt.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { sandbox, type Sandbox } from '../helpers/cli.js';

const BOUND = 16 * 1024 * 1024;
let box: Sandbox;
let stateDir: string;
let cache: string;

beforeAll(async () => {
  box = await sandbox();
  expect((await box.run(['init'])).exitCode).toBe(0);
  // Twice: the second run's cache is the one every later run reads as it is.
  for (let i = 0; i < 2; i++) expect((await box.run(['context'])).exitCode).toBe(0);
  const file = (await readdir(box.home, { recursive: true })).find((f) => f.endsWith(path.join('state', 'context-cache.json')))!;
  stateDir = path.dirname(path.join(box.home, file));
  cache = await readFile(path.join(stateDir, 'context-cache.json'), 'utf8');
});
afterAll(async () => box?.cleanup());

/** The render cache as written, its memory part's text changed (a mark to tell it was served), padded with `pad` spaces (still valid JSON). */
async function plant(pad: number): Promise<void> {
  const parsed = JSON.parse(cache);
  const mark = (o: Record<string, unknown>) => {
    for (const [k, v] of Object.entries(o)) {
      if (k === 'text' && typeof v === 'string') o[k] = v.replace('# Working Memory', '# Planted Memory');
      else if (v && typeof v === 'object') mark(v as Record<string, unknown>);
    }
  };
  mark(parsed.memory);
  if (parsed.recall) mark(parsed.recall);
  await writeFile(path.join(stateDir, 'context-cache.json'), JSON.stringify(parsed) + ' '.repeat(pad), { mode: 0o600 });
  await rm(path.join(stateDir, 'answers.json'), { force: true });
}

it('serves a render cache within the bound as it is (the mark shows)', async () => {
  await plant(0);
  expect(String((await box.run(['context'])).stdout)).toContain('# Planted Memory');
});

it('ignores a render cache over the bound: rendered again, and the cache written back at its usual size', async () => {
  await plant(BOUND);
  const r = await box.run(['context']);
  expect(r.exitCode).toBe(0);
  expect(String(r.stdout)).toContain('# Working Memory');
  expect(String(r.stdout)).not.toContain('Planted');
  expect((await stat(path.join(stateDir, 'context-cache.json'))).size).toBeLessThan(1024 * 1024);
});

it('ignores a hot state over the bound: read as an empty one', async () => {
  const now = new Date().toISOString();
  const error = { fingerprint: 'f1', category: 'test', summary: 'Planted error in a.test.ts', command: 'npm test', count: 1, first: now, last: now, seq: 1 };
  const hot = JSON.stringify({ version: 1, seq: 1, files: [], errors: [error], updated: now });
  await writeFile(path.join(stateDir, 'hot.json'), hot);
  expect(String((await box.run(['context'])).stdout)).toContain('Planted error');
  await writeFile(path.join(stateDir, 'hot.json'), hot + ' '.repeat(BOUND));
  expect(String((await box.run(['context'])).stdout)).not.toContain('Planted error');
});
