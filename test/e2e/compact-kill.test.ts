// SIGKILL during real compactions of a large history, at varied instants: afterwards the old
// state or the new is there (never a torn file), the union of messages.jsonl and archive/ holds
// every original line, and running the compaction again completes (the stale lock is taken over,
// the interrupted run is rolled back or finished). Restoring then gives back the original bytes.
// Both ways are killed: the full one (--strategy summarize: parse, copy, summary) and the quick
// cut of a long history (the archive is the old file under a second name; --wait makes the same
// process write the transcript afterwards, so the kills also land in that finishing), and the
// quick cut inside one long turn (--keep-steps: its opening message repeated after the marker).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { execa } from 'execa';
import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { BIN, runJson, sandbox, type Sandbox } from '../helpers/cli.js';
import { finishingsDone, generatedHistory, leadingMarker, sessionWith } from '../helpers/history-e2e.js';

const original = generatedHistory(25_000, 3);
/** One request and 24,000 steps (a tool call and its result each): over 8 MiB in a single turn. */
function singleTurn(): string {
  const J = (v: unknown) => JSON.stringify(v);
  const lines = [J({ type: 'user', uuid: 'u0', message: { role: 'user', content: 'Fix every failing test under src/' } })];
  for (let i = 0; i < 24_000; i++) {
    lines.push(J({ type: 'assistant', uuid: `a${i}`, message: { id: `msg_${i}`, role: 'assistant', content: [{ type: 'tool_use', id: `toolu_${i}`, name: 'Bash', input: { command: `npm test -- src/file${i}.test.ts` } }] } }));
    lines.push(J({ type: 'user', uuid: `r${i}`, message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: `toolu_${i}`, content: `PASS src/file${i}.test.ts (12 tests)` }] }, toolUseResult: { stdout: 'PASS' } }));
  }
  return lines.join('\n') + '\n';
}
// Fractions of an uninterrupted run's duration (measured first, so the instants fit any machine).
const fractions = [0.05, 0.2, 0.35, 0.5, 0.65, 0.8, 0.9, 0.97, 1.05];
const fewer = [0.1, 0.35, 0.6, 0.85, 1.05];
const boxes: Sandbox[] = [];

beforeAll(() => {
  expect(original.length).toBeGreaterThan(10_000_000);
});
const long = singleTurn();
afterAll(async () => {
  for (const box of boxes) await box.cleanup();
});

const ways: Record<string, { flags: string[]; history: () => string }> = {
  full: { flags: ['--keep-recent', '5', '--strategy', 'summarize'], history: () => original },
  quick: { flags: ['--keep-recent', '5', '--wait'], history: () => original },
  'quick inside one turn': { flags: ['--keep-steps', '20', '--wait'], history: () => long },
  // Without --wait the finishing starts from the link check's child once the command is gone, whatever
  // the check says: a kill at any instant may leave it running (it then recovers the run).
  'quick finished in the background': { flags: ['--keep-recent', '5'], history: () => original },
};
const background = (flags: string[]) => !flags.includes('--wait') && !flags.includes('summarize');

for (const [way, { flags, history }] of Object.entries(ways)) it(`a ${way} compaction killed at any instant leaves old or new state, and a rerun completes`, async () => {
  const original = history();
  const outcomes: string[] = [];
  const probe = await sandbox();
  boxes.push(probe);
  await sessionWith(probe, original);
  const started = Date.now();
  const probed = await runJson(probe, ['compact', ...flags], { timeout: 60_000 });
  expect(probed.finishing).toBe(way === 'full' ? undefined : background(flags) ? 'background' : 'done');
  await finishingsDone(probe.home);
  expect(Boolean(probed.cutInsideTurn)).toBe(way === 'quick inside one turn');
  const full = Date.now() - started;
  const killAt = async (delay: number): Promise<string> => {
    const box = await sandbox();
    boxes.push(box);
    const files = await sessionWith(box, original);
    const child = execa('node', [BIN, 'compact', ...flags], {
      cwd: box.project,
      reject: false,
      extendEnv: false,
      env: { PATH: process.env.PATH ?? '', HOME: box.home, NO_COLOR: '1', WMEM_HOME: box.home },
    });
    await new Promise((resolve) => setTimeout(resolve, delay));
    child.kill('SIGKILL');
    const killed = await child;
    // A finishing the run started may be at work (reading, writing under the lock): let it end.
    await finishingsDone(box.home);
    const lead = await leadingMarker(files);
    let outcome: string;
    if (lead) {
      // New state: the archive (durable before the commit) plus the rest is the original. A quick
      // cut's archive may still be longer (killed before it was cut to length): its first bytes.
      const archive = await readFile(path.join(files.workingMemory, lead.marker.archive));
      expect(archive.length).toBeGreaterThanOrEqual(lead.marker.archivedBytes);
      expect(Buffer.concat([archive.subarray(0, lead.marker.archivedBytes), lead.rest]).toString('utf8')).toBe(original);
      outcome = `${delay}ms: committed${killed.signal ? ' then killed' : ''}`;
    } else {
      // Old state: messages.jsonl untouched.
      expect(await readFile(files.messages, 'utf8')).toBe(original);
      outcome = `${delay}ms: ${killed.signal ? 'killed before commit' : 'not started'}`;
    }
    // Rerun: waits out the stale lock, resolves the interrupted run, completes (--wait: with its
    // transcript, so that nothing is left to a background run when the checks below look).
    const rerun = await runJson(box, ['compact', ...flags.filter((f) => !['--strategy', 'summarize', '--wait'].includes(f)), '--wait'], { timeout: 60_000 });
    expect(rerun.session).toBeTruthy();
    await finishingsDone(box.home);
    for (const dir of [files.dir, path.join(files.dir, 'state'), path.join(files.workingMemory, 'archive'), path.join(files.workingMemory, 'detail')]) {
      expect((await readdir(dir)).filter((n) => n.endsWith('.tmp')), dir).toEqual([]);
    }
    expect(await readdir(path.join(files.dir, 'state'))).not.toContain('compaction.json');
    const archives = (await readdir(path.join(files.workingMemory, 'archive'))).filter((n) => !n.startsWith('.')).sort().reverse();
    expect(archives.length).toBe(1);
    // Finished: the archive cut to length, its transcript written and indexed.
    const done = (await leadingMarker(files))!;
    expect((await readFile(path.join(files.workingMemory, done.marker.archive))).length).toBe(done.marker.archivedBytes);
    const overview = await readFile(path.join(files.workingMemory, 'overview.md'), 'utf8');
    for (const detail of done.marker.details) {
      expect(await readFile(path.join(files.workingMemory, detail), 'utf8')).toMatch(/^---\n[\s\S]*turns: \d+/);
      expect(overview).toContain(`- ${detail} — `);
    }
    for (const archive of archives) await runJson(box, ['restore', archive], { timeout: 60_000 });
    expect(await readFile(files.messages, 'utf8')).toBe(original);
    await box.cleanup();
    return outcome;
  };
  // The background way indexes the archive once more per instant (its finishing): fewer instants.
  for (const delay of (background(flags) ? fewer : fractions).map((f) => Math.round(f * full))) outcomes.push(await killAt(delay));
  // On a loaded machine a run can take longer than the probe did: go on until one commits.
  for (let delay = Math.round(full * 1.5), tries = 0; !outcomes.some((o) => o.includes('committed')) && tries < 4; delay *= 2, tries++) outcomes.push(await killAt(delay));
  // A quick cut commits early in its run: on a loaded machine every instant above may fall after
  // it (the probe, timed when the load was higher, makes them late). Go on at shorter delays,
  // halving down to 0.1/2^8 of the probe's time, until one lands before it.
  for (let delay = Math.round(full * 0.1), tries = 0; !outcomes.some((o) => o.includes('before commit')) && tries < 8; delay = Math.round(delay / 2), tries++) outcomes.push(await killAt(delay));
  // The instants must hit both sides of the commit at least once.
  expect(outcomes.length).toBeGreaterThanOrEqual((background(flags) ? fewer : fractions).length);
  expect(outcomes.some((o) => o.includes('before commit'))).toBe(true);
  expect(outcomes.some((o) => o.includes('committed'))).toBe(true);
}, 600_000);
