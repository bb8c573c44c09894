// SIGKILL during real compactions of a large history, at varied instants: afterwards the old
// state or the new is there (never a torn file), the union of messages.jsonl and archive/ holds
// every original line, and running the compaction again completes (the stale lock is taken over,
// the interrupted run is rolled back or finished). Restoring then gives back the original bytes.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { execa } from 'execa';
import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { BIN, runJson, sandbox, type Sandbox } from '../helpers/cli.js';
import { generatedHistory, leadingMarker, sessionWith } from '../helpers/history-e2e.js';

const original = generatedHistory(25_000, 3);
// Fractions of an uninterrupted run's duration (measured first, so the instants fit any machine).
const fractions = [0.05, 0.2, 0.35, 0.5, 0.65, 0.8, 0.9, 0.97, 1.05];
const boxes: Sandbox[] = [];

beforeAll(() => {
  expect(original.length).toBeGreaterThan(10_000_000);
});
afterAll(async () => {
  for (const box of boxes) await box.cleanup();
});

it('a compaction killed at any instant leaves old or new state, and a rerun completes', async () => {
  const outcomes: string[] = [];
  const probe = await sandbox();
  boxes.push(probe);
  await sessionWith(probe, original);
  const started = Date.now();
  await runJson(probe, ['compact', '--keep-recent', '5', '--strategy', 'summarize'], { timeout: 60_000 });
  const full = Date.now() - started;
  const killAt = async (delay: number): Promise<string> => {
    const box = await sandbox();
    boxes.push(box);
    const files = await sessionWith(box, original);
    const child = execa('node', [BIN, 'compact', '--keep-recent', '5', '--strategy', 'summarize'], {
      cwd: box.project,
      reject: false,
      extendEnv: false,
      env: { PATH: process.env.PATH ?? '', HOME: box.home, NO_COLOR: '1', WMEM_HOME: box.home },
    });
    await new Promise((resolve) => setTimeout(resolve, delay));
    child.kill('SIGKILL');
    const killed = await child;
    const lead = await leadingMarker(files);
    let outcome: string;
    if (lead) {
      // New state: the archive (durable before the commit) plus the rest is the original.
      const archive = await readFile(path.join(files.workingMemory, lead.marker.archive));
      expect(Buffer.concat([archive, lead.rest]).toString('utf8')).toBe(original);
      outcome = `${delay}ms: committed${killed.signal ? ' then killed' : ''}`;
    } else {
      // Old state: messages.jsonl untouched.
      expect(await readFile(files.messages, 'utf8')).toBe(original);
      outcome = `${delay}ms: ${killed.signal ? 'killed before commit' : 'not started'}`;
    }
    // Rerun: waits out the stale lock, resolves the interrupted run, completes.
    const rerun = await runJson(box, ['compact', '--keep-recent', '5'], { timeout: 60_000 });
    expect(rerun.session).toBeTruthy();
    for (const dir of [files.dir, path.join(files.dir, 'state'), path.join(files.workingMemory, 'archive'), path.join(files.workingMemory, 'detail')]) {
      expect((await readdir(dir)).filter((n) => n.endsWith('.tmp')), dir).toEqual([]);
    }
    expect(await readdir(path.join(files.dir, 'state'))).not.toContain('compaction.json');
    const archives = (await readdir(path.join(files.workingMemory, 'archive'))).filter((n) => !n.startsWith('.')).sort().reverse();
    expect(archives.length).toBe(1);
    for (const archive of archives) await runJson(box, ['restore', archive], { timeout: 60_000 });
    expect(await readFile(files.messages, 'utf8')).toBe(original);
    await box.cleanup();
    return outcome;
  };
  for (const delay of fractions.map((f) => Math.round(f * full))) outcomes.push(await killAt(delay));
  // On a loaded machine a run can take longer than the probe did: go on until one commits.
  for (let delay = Math.round(full * 1.5), tries = 0; !outcomes.some((o) => o.includes('committed')) && tries < 4; delay *= 2, tries++) outcomes.push(await killAt(delay));
  // The instants must hit both sides of the commit at least once.
  expect(outcomes.length).toBeGreaterThanOrEqual(fractions.length);
  expect(outcomes.some((o) => o.includes('before commit'))).toBe(true);
  expect(outcomes.some((o) => o.includes('committed'))).toBe(true);
}, 300_000);
