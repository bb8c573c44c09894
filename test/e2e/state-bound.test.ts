// The state files wmem derives (state/*.json) are read with a bound (store/regular-file.ts
// MAX_STATE_BYTES): one grown past it (by hand, a runaway writer) is a miss, never read nor parsed,
// and rebuilt at its usual size, instead of being read whole on every prompt.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appendFile, copyFile, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { FIXTURES, sandbox, type Sandbox } from '../helpers/cli.js';

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

describe('a hook state over the bound', () => {
  const SID = 'state-bound-hooks-4e7a19c2';
  let state: string;
  const prompt = async (text: string) => {
    const input = JSON.stringify({ session_id: SID, transcript_path: path.join(box.root, 'transcript.jsonl'), cwd: box.project, hook_event_name: 'UserPromptSubmit', prompt: text });
    const r = await box.run(['hook', 'UserPromptSubmit'], { input });
    expect(r.exitCode).toBe(0);
    return String(JSON.parse(String(r.stdout)).hookSpecificOutput.additionalContext);
  };

  beforeAll(async () => {
    await copyFile(path.join(FIXTURES, 'claude-code-log', 'ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl'), path.join(box.root, 'transcript.jsonl'));
    expect(await prompt('first')).toContain('<working_memory');
    // Delivered and unchanged: the next prompt sends the meter alone.
    expect(await prompt('second')).not.toContain('<working_memory');
    const file = (await readdir(box.home, { recursive: true })).find((f) => f.endsWith(path.join(SID, 'state', 'claude-hooks.json')))!;
    state = path.join(box.home, file);
    expect(JSON.parse(await readFile(state, 'utf8')).transcript.path).toBe(path.join(box.root, 'transcript.jsonl'));
    // Still valid JSON, 17 MiB: read whole, it would say the memory part was delivered.
    await appendFile(state, ' '.repeat(BOUND + 1024 * 1024));
  });

  it('is not read by `wmem report`, which says so and reports from wmem\'s history', async () => {
    // Said once, also with --all (which loads the current session's series again for its row).
    for (const args of [['report', '--out', '-'], ['report', '--all', '--out', '-']]) {
      const r = await box.run(args, { env: { WMEM_SESSION: SID } });
      expect(r.exitCode).toBe(0);
      expect(String(r.stderr).split(`${state} is larger than ${BOUND} bytes`).length - 1, args.join(' ')).toBe(1);
      expect(String(r.stdout)).toContain('<svg class="chart"');
    }
  });

  it('is ignored by the next hook, which sends the memory part and writes the state back small', async () => {
    expect(await prompt('third')).toContain('<working_memory');
    expect((await stat(state)).size).toBeLessThan(1024 * 1024);
    expect(await prompt('fourth')).not.toContain('<working_memory');
  });
});
