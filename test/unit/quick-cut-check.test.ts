// The quick cut's link check (link-check.ts), asked by its finishing, and the quick cut itself
// (quick-cut.ts), on real files in a temp session: a history that shrinks under the check is never
// taken for one without links (bytes not read cannot be ruled out), a run that fails after its
// journal is on disk does not remove the journal of a run that took its lock over, and a run
// commits without asking the check (its finishing asks it).
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { link, readdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { existsSync, truncateSync } from 'node:fs';
import path from 'node:path';
import { quickCut } from '../../src/history/compaction/quick-cut.js';
import { mayLinkBefore } from '../../src/history/compaction/link-check.js';
import { planFromTail, type CutPlan } from '../../src/history/compaction/plan.js';
import { fileIdentity, finishCommitted, journalPath, recoverCompaction, writeJournal, type Journal } from '../../src/history/compaction/journal.js';
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

function cut(found: CutPlan) {
  return withLock(ts.session.paths.dir, () => quickCut(ts.session, found, { now: new Date('2026-04-01T10:00:00Z'), redo: { keepRecent: 2 } }));
}

const check = (found: CutPlan) => mayLinkBefore(ts.session.paths.messages, found.cut, found.needles, path.join(ts.session.paths.stateDir, `.link-check.test.${process.pid}.tmp`));

it('the check says "no" for a history without links, "maybe" for one with a line before the cut carrying a kept id', async () => {
  await setMessages(ts.session, history(6000));
  expect(await check(await plan())).toBe(false);
  await setMessages(ts.session, history(6000, 'msg_5999'));
  expect(await check(await plan())).toBe(true);
  expect((await readdir(ts.session.paths.stateDir)).filter((n) => n.includes('link-check'))).toEqual([]);
});

it('a history cut down before the check reads it is not taken for one without links', async () => {
  await setMessages(ts.session, history(6000));
  const found = await plan();
  truncateSync(ts.session.paths.messages, found.cut - 1000);
  expect(await check(found)).toBe(true);
});

it('a run that fails after its journal is on disk leaves the journal of the run that took the lock over', async () => {
  await setMessages(ts.session, history(6000));
  const found = await plan();
  let other: Journal | undefined;
  afterJournal = async (session, journal) => {
    // Meanwhile this run stalled past its lock; the run that took it over rolled this one back
    // and wrote its own journal (its finishing still to come); then this run's file goes.
    other = { ...journal, id: `${journal.id}-other`, pid: process.ppid };
    await writeJournal(session, other);
    truncateSync(ts.session.paths.messages, 0);
    await import('node:fs/promises').then((fs) => fs.rm(ts.session.paths.messages));
  };
  await expect(cut(found)).rejects.toThrow();
  expect(other).toBeDefined();
  expect(JSON.parse(await readFile(journalPath(ts.session), 'utf8'))).toEqual(other);
  expect(await readdir(ts.session.paths.archiveDir)).toEqual([]);
});

it('a run commits without asking the check (even with a possible link): the archive named, the journal left for the finishing with the ids to check', async () => {
  let archivesThen: string[] | undefined;
  afterJournal = async () => {
    // Never linked before the journal that names it is on disk: a run killed in between is rolled back from it.
    archivesThen = await readdir(ts.session.paths.archiveDir);
  };
  await setMessages(ts.session, history(6000, 'msg_5999'));
  const found = await plan();
  const done = await cut(found);
  expect(done).toBeDefined();
  expect(archivesThen).toEqual([]);
  expect(await readdir(ts.session.paths.archiveDir)).toEqual([path.basename(done!.archive)]);
  expect((await stat(done!.archive)).size).toBeGreaterThanOrEqual(found.cut);
  const journal = JSON.parse(await readFile(journalPath(ts.session), 'utf8'));
  expect(journal.id).toBe(done!.journal.id);
  expect(journal.quick).toMatchObject({ linkIds: found.needles, redo: { keepRecent: 2 } });
  expect(existsSync(journalPath(ts.session))).toBe(true);
});

it('the finishing undoes a cut with a possible link (messages.jsonl whole again, no archive, transcript or journal); a kill between its swap and the removal of those names is finished by recovery', async () => {
  const original = history(6000, 'msg_5999');
  await setMessages(ts.session, original);
  const done = (await cut(await plan()))!;
  const journal: Journal = JSON.parse(await readFile(journalPath(ts.session), 'utf8'));
  // The archive's file under a spare name, to put back the state a kill right after the swap leaves.
  const spare = path.join(ts.session.paths.dir, 'spare');
  await link(done.archive, spare);
  const finished = await withLock(ts.session.paths.dir, () => finishCommitted(ts.session, journal, { warn() {} }));
  expect(finished).toEqual({ undone: true });
  expect(await readFile(ts.session.paths.messages, 'utf8')).toBe(original);
  expect(existsSync(journalPath(ts.session))).toBe(false);
  expect(await readdir(ts.session.paths.archiveDir)).toEqual([]);
  expect(await readdir(ts.session.paths.detailDir)).toEqual([]);

  await rename(spare, done.archive);
  await writeFile(journal.quick!.transcript, 'placeholder');
  await writeJournal(ts.session, { ...journal, undoneTo: fileIdentity(await stat(ts.session.paths.messages)) });
  let undone: unknown;
  const note = await withLock(ts.session.paths.dir, () => recoverCompaction(ts.session, { warn() {}, undone: (quick) => (undone = quick) }));
  expect(note).toMatch(/undid compaction/);
  expect(undone).toMatchObject({ archive: done.archive, redo: { keepRecent: 2 } });
  expect(await readFile(ts.session.paths.messages, 'utf8')).toBe(original);
  expect(existsSync(journalPath(ts.session))).toBe(false);
  expect(await readdir(ts.session.paths.archiveDir)).toEqual([]);
  expect(await readdir(ts.session.paths.detailDir)).toEqual([]);
});
