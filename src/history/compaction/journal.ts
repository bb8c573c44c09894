// The compaction journal (state/compaction.json) and recovery from a run killed part way: the
// journal names every file a run may create; whether messages.jsonl already starts with the run's
// marker says whether it committed (see the protocols in compact.ts and quick-cut.ts). A quick
// compaction leaves its journal in place on purpose: what it did not do before its commit is
// finished (quick-finish.ts) by `wmem compact --finish` in the background or by the next run
// that takes the lock.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { atomicWrite, readTextIfExists } from '../../store/fsx.js';
import type { Session } from '../../store/session.js';
import { COMPACTION_JOURNAL } from '../../store/paths.js';
import { appendToSections } from '../../store/detail.js';
import { fsError } from '../../ui/errors.js';
import { parseMarker } from '../model/marker.js';
import { readLines } from '../stream/read.js';
import { carriedNotePath, finishQuickCut, type ArchivedCounts, type QuickPart } from './quick-finish.js';

export interface Journal {
  version: 1;
  id: string;
  pid: number;
  startedAt: string;
  /** Temp files this run may create (deleted on recovery). */
  temps: string[];
  /** Final files this run creates before its commit (deleted if it never committed). */
  finals: string[];
  /** Overview lines to add once committed. */
  indexLines: string[];
  recentLine: string;
  /** A quick compaction: its archive is the old messages.jsonl, and its finishing is pending. */
  quick?: QuickPart;
  /**
   * messages.jsonl as it was when the run started. Still that file means the run never committed;
   * another file without the run's marker first means it committed and was rewritten since (by
   * the agent), so nothing the run made may be deleted.
   */
  messagesFile?: FileIdentity;
}

/**
 * Which file a path names. The inode alone is not enough: once a committed run's old file is
 * gone, the file system may give its number to the next file created, so a rewritten
 * messages.jsonl could pass for the untouched one; its birth time tells them apart.
 */
export interface FileIdentity {
  dev: number;
  ino: number;
  birthtimeMs?: number;
}

type Stat = { dev: number; ino: number; birthtimeMs: number; ctimeMs: number };

export function fileIdentity(st: Stat): FileIdentity {
  return { dev: st.dev, ino: st.ino, birthtimeMs: st.birthtimeMs };
}

/**
 * The same file as recorded. The birth time is compared only where it is one: without statx
 * (old kernels, some container sandboxes) Node reports the change time in its place, which
 * every append moves; there, and for a file not changed since it was made, device and inode
 * decide alone.
 */
export function isSameFile(now: Stat | undefined, recorded: FileIdentity | undefined): boolean {
  if (!now || !recorded || now.dev !== recorded.dev || now.ino !== recorded.ino) return false;
  const birthKnown = Boolean(recorded.birthtimeMs && now.birthtimeMs) && now.birthtimeMs !== now.ctimeMs;
  return !birthKnown || now.birthtimeMs === recorded.birthtimeMs;
}

export function journalPath(session: Session): string {
  return path.join(session.paths.stateDir, COMPACTION_JOURNAL);
}

/** Reads the first line of a file (up to 1 MiB), or ''. */
async function firstLine(file: string): Promise<string> {
  for await (const line of readLines(file)) return line.bytes.subarray(0, 1 << 20).toString('utf8');
  return '';
}

/**
 * Resolves a compaction interrupted by a crash (call with the session lock held): finishes it
 * if it committed, otherwise deletes what it created. Returns what it did, or undefined.
 */
export async function recoverCompaction(session: Session, env: { warn(msg: string): void }): Promise<string | undefined> {
  const file = journalPath(session);
  const text = await readTextIfExists(file);
  if (text === undefined) return undefined;
  let journal: Journal;
  try {
    journal = JSON.parse(text) as Journal;
  } catch {
    // A torn journal cannot exist (atomic write); an unreadable one is kept aside, not trusted.
    await fs.rename(file, `${file}.unreadable-${Date.now()}`).catch(() => {});
    return `set aside an unreadable ${file}`;
  }
  for (const temp of journal.temps) await fs.unlink(temp).catch(() => {});
  const now = await fs.stat(session.paths.messages).catch(() => undefined);
  const markerFirst = now !== undefined && parseMarker(await firstLine(session.paths.messages))?.id === journal.id;
  const untouched = isSameFile(now, journal.messagesFile);
  // A journal from before messagesFile was recorded: the marker alone decides, as it always did.
  const committed = markerFirst || (journal.messagesFile !== undefined && !untouched);
  let note: string;
  if (committed) {
    if (!markerFirst) env.warn(`wmem: messages.jsonl was replaced after compaction ${journal.id} committed; its files are kept as they are`);
    await finishCommitted(session, journal, env, { messagesIntact: markerFirst });
    // A quick compaction's finishing is its normal course, not a repair: nothing to report.
    if (journal.quick && markerFirst) return undefined;
    note = `finished compaction ${journal.id}, which was interrupted after its commit`;
  } else {
    for (const final of journal.finals) {
      // The quick way's archive is a second name of messages.jsonl until the commit: remove that
      // name only while it is one (never the only name of anything).
      if (journal.quick && final === journal.quick.archive && !(await sameFile(final, now))) continue;
      await fs.unlink(final).catch(() => {});
    }
    await removeJournal(session);
    note = `rolled back compaction ${journal.id}, which was interrupted before its commit (messages.jsonl was untouched)`;
  }
  env.warn(`wmem: ${note}`);
  return note;
}

async function sameFile(file: string, as: { dev: number; ino: number } | undefined): Promise<boolean> {
  const st = await fs.stat(file).catch(() => undefined);
  return st !== undefined && as !== undefined && st.dev === as.dev && st.ino === as.ino;
}

/**
 * Does what a committed compaction left to do (see finishQuickCut), adds its overview lines, and
 * removes the journal. Returns what a quick cut archived, once counted.
 */
export async function finishCommitted(session: Session, journal: Journal, env: { warn(msg: string): void }, how: { messagesIntact: boolean } = { messagesIntact: true }): Promise<ArchivedCounts | undefined> {
  let counts: ArchivedCounts | undefined;
  if (journal.quick && !journal.indexLines.length) {
    const finished = await finishQuickCut(session, journal.id, journal.quick, env, how);
    journal.indexLines = finished.indexLines;
    journal.recentLine = finished.recentLine;
    counts = finished.counts;
  }
  await updateOverview(session, journal.indexLines, journal.recentLine, env);
  await removeJournal(session);
  return counts;
}

async function removeJournal(session: Session): Promise<void> {
  await fs.unlink(carriedNotePath(session)).catch(() => {});
  const file = journalPath(session);
  await fs.unlink(file).catch((err: NodeJS.ErrnoException) => {
    if (err.code !== 'ENOENT') throw fsError(err, 'remove', file);
  });
}

/** The journal of a compaction whose finishing is pending, if any (read under the lock). */
export async function readJournal(session: Session): Promise<Journal | undefined> {
  const text = await readTextIfExists(journalPath(session));
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as Journal;
  } catch {
    return undefined;
  }
}

/** Adds index and recent lines unless an earlier attempt already did (recovery may repeat this). */
export async function updateOverview(session: Session, indexLines: string[], recentLine: string, env: { warn(msg: string): void }): Promise<void> {
  try {
    const current = (await readTextIfExists(session.paths.overview)) ?? '';
    const missing = indexLines.filter((l) => !current.includes(l));
    const recent = recentLine && !current.includes(recentLine) ? [recentLine] : [];
    await appendToSections(session, [{ sectionId: 'details', lines: missing }, { sectionId: 'recent', lines: recent }], { locked: true });
  } catch (err) {
    env.warn(`wmem: compaction done, but overview.md was not updated: ${(err as Error).message}`);
  }
}

/** Writes the journal atomically (state/ is created with the session); the compact return overlaps it with the archive's build. */
export async function writeJournal(session: Session, journal: Journal): Promise<void> {
  await atomicWrite(journalPath(session), JSON.stringify(journal, null, 2) + '\n', { overlap: true });
}
