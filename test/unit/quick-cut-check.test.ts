// The quick cut's link check (quick-cut.ts) while something else acts on the session, on real
// files in a temp session: a history that shrinks under the check is never taken for one without
// links (bytes not read cannot be ruled out: the caller compacts the full way), and a run that
// stalled past its lock, rolled back by the run that took the lock over, does not remove that
// run's journal on its way out (a run removes the journal only while its id and pid are its own).
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { readdir, readFile, stat } from 'node:fs/promises';
import { existsSync, truncateSync } from 'node:fs';
import path from 'node:path';
import { quickCut } from '../../src/history/compaction/quick-cut.js';
import { planFromTail, type CutPlan } from '../../src/history/compaction/plan.js';
import { journalPath, writeJournal, type Journal } from '../../src/history/compaction/journal.js';
import type { Progress } from '../../src/history/compaction/pass.js';
import type { Session } from '../../src/store/session.js';
import { withLock } from '../../src/store/fsx.js';
import { makeSession, setMessages, type TestSession } from '../helpers/history-session.js';

/** Set by a test: what happens right after a run's journal is on disk (another run taking over). */
let afterJournal: ((session: Session, journal: Journal) => Promise<void>) | undefined;
vi.mock('../../src/history/compaction/journal.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/history/compaction/journal.js')>();
  return {
    ...real,
    writeJournal: async (session: Session, journal: Journal) => {
      await real.writeJournal(session, journal);
      const then = afterJournal;
      afterJournal = undefined;
      await then?.(session, journal);
    },
  };
});

const J = (v: unknown) => JSON.stringify(v);
const PAD = 'x'.repeat(400);
/** `turns` turns of a prompt and an answer (`msg_<t>`), over 2 MB; `early`: an answer line before them all. */
function history(turns: number, early?: string): string {
  const lines = early ? [J({ type: 'assistant', message: { id: early, role: 'assistant', content: [{ type: 'text', text: 'an early line' }] } })] : [];
  for (let t = 0; t < turns; t++) {
    lines.push(J({ type: 'user', message: { role: 'user', content: `turn ${t} ${PAD}` } }));
    lines.push(J({ type: 'assistant', message: { id: `msg_${t}`, role: 'assistant', content: [{ type: 'text', text: `answer ${t}` }] } }));
  }
  return lines.join('\n') + '\n';
}

const quiet = (tick: (done: number) => void = () => {}) => ({ tick, stage() {}, end() {} }) as unknown as Progress;

let ts: TestSession;
beforeEach(async () => {
  ts = await makeSession();
});
afterEach(async () => {
  afterJournal = undefined;
  await ts.cleanup();
});

async function plan(): Promise<CutPlan> {
  const size = (await stat(ts.session.paths.messages)).size;
  const found = await planFromTail(ts.session.paths.messages, size, 2);
  expect('cut' in found && found.cut > 2 << 20).toBe(true);
  return found as CutPlan;
}

function cut(found: CutPlan, progress: Progress, options: { inThread?: boolean } = {}) {
  return withLock(ts.session.paths.dir, () => quickCut(ts.session, found, { now: new Date('2026-04-01T10:00:00Z'), progress, ...options }));
}

/** Nothing of the run is left: no archive name, no transcript placeholder, no temp file. */
async function expectNothingLeft(): Promise<void> {
  expect(await readdir(ts.session.paths.archiveDir)).toEqual([]);
  expect(await readdir(ts.session.paths.detailDir)).toEqual([]);
  expect((await readdir(ts.session.paths.dir)).filter((n) => n.endsWith('.tmp'))).toEqual([]);
}

it('a history that shrinks under the link check (in this thread) takes the full way, and nothing of the quick way is left', async () => {
  await setMessages(ts.session, history(6000));
  const found = await plan();
  const ticks: number[] = [];
  // Another program cuts the file down to what the check has read so far.
  const result = await cut(
    found,
    quiet((done) => {
      if (!ticks.length) truncateSync(ts.session.paths.messages, done);
      ticks.push(done);
    }),
    { inThread: true },
  );
  expect(ticks.length).toBe(1);
  expect(ticks[0]).toBeLessThan(found.cut);
  expect(result).toBeUndefined();
  expect(existsSync(journalPath(ts.session))).toBe(false);
  await expectNothingLeft();
  expect((await stat(ts.session.paths.messages)).size).toBe(ticks[0]);
});

it('a history cut down before grep reads it is not taken for one without links (grep found none in what was left)', async () => {
  await setMessages(ts.session, history(6000));
  const found = await plan();
  truncateSync(ts.session.paths.messages, found.cut - 1000);
  expect(await cut(found, quiet())).toBeUndefined();
  expect(existsSync(journalPath(ts.session))).toBe(false);
  await expectNothingLeft();
  expect((await stat(ts.session.paths.messages)).size).toBe(found.cut - 1000);
});

it('a run that stalled past its lock leaves the journal of the run that took the lock over', async () => {
  // A line before the cut carries the id of a kept answer: the check says "maybe", the run steps aside.
  await setMessages(ts.session, history(6000, 'msg_5999'));
  const found = await plan();
  let other: Journal | undefined;
  afterJournal = async (session, journal) => {
    // Meanwhile this run stalled past its lock; the run that took it over rolled this one back
    // and wrote its own journal (its finishing still to come).
    other = { ...journal, id: `${journal.id}-other`, pid: process.ppid };
    await writeJournal(session, other);
  };
  const result = await cut(found, quiet());
  expect(other).toBeDefined();
  expect(result).toBeUndefined();
  expect(JSON.parse(await readFile(journalPath(ts.session), 'utf8'))).toEqual(other);
  await expectNothingLeft();
});

it('a run that steps aside removes its own journal (and names the archive only once that journal is on disk)', async () => {
  await setMessages(ts.session, history(6000, 'msg_5999'));
  let archivesThen: string[] | undefined;
  afterJournal = async () => {
    // The archive's name is linked while the check runs, but never before the journal that
    // names it is on disk: a run killed in between is rolled back from the journal.
    archivesThen = await readdir(ts.session.paths.archiveDir);
  };
  expect(await cut(await plan(), quiet())).toBeUndefined();
  expect(archivesThen).toEqual([]);
  expect(existsSync(journalPath(ts.session))).toBe(false);
  await expectNothingLeft();
});

it('a run that finds no link commits, the archive named and the journal left for the finishing', async () => {
  await setMessages(ts.session, history(6000));
  const found = await plan();
  const done = await cut(found, quiet());
  expect(done).toBeDefined();
  expect(await readdir(ts.session.paths.archiveDir)).toEqual([path.basename(done!.archive)]);
  expect((await stat(done!.archive)).size).toBeGreaterThanOrEqual(found.cut);
  expect(JSON.parse(await readFile(journalPath(ts.session), 'utf8')).id).toBe(done!.journal.id);
});
