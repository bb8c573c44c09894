// The compaction journal (state/compaction.json) and recovery from a run killed part way: the
// journal names every file a run may create; whether messages.jsonl already starts with the run's
// marker says whether it committed (see the protocols in compact.ts and quick-cut.ts). A quick
// compaction leaves its journal in place on purpose: what it did not do before its commit (cut
// the archive to length if it stopped first, the transcript, the overview lines) is finished
// here, by `wmem compact --finish` in the background or by the next run that takes the lock.
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { FILE_MODE, atomicWrite, exists, readTextIfExists } from '../store/fsx.js';
import type { Session } from '../store/session.js';
import { appendToSections, detailIndexLine } from '../store/detail.js';
import { fsError } from '../ui/errors.js';
import { parseMarker } from './marker.js';
import { Progress, archivedRecentLine, fillSlots, rel, scanRegion, startTranscript, transcriptTitle, type ScanState } from './pass.js';
import { DurableFile, appendBytes, linkInto, readLines, tempFor } from './scan.js';

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
}

export interface QuickPart {
  /** The archive (absolute): the old messages.jsonl under its final name. */
  archive: string;
  /** The archive's length once cut: the bytes before the cut. */
  archivedBytes: number;
  /** The new messages.jsonl holds the old file's bytes [archivedBytes, copiedTo) after its marker. */
  copiedTo: number;
  /** The readable transcript to write (absolute). */
  transcript: string;
  created: string;
}

const JOURNAL = 'compaction.json';

export function journalPath(session: Session): string {
  return path.join(session.paths.stateDir, JOURNAL);
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
  let committed = false;
  if (await exists(session.paths.messages)) committed = parseMarker(await firstLine(session.paths.messages))?.id === journal.id;
  let note: string;
  if (committed) {
    await finishCommitted(session, journal, env);
    // A quick compaction's finishing is its normal course, not a repair: nothing to report.
    if (journal.quick) return undefined;
    note = `finished compaction ${journal.id}, which was interrupted after its commit`;
  } else {
    for (const final of journal.finals) await fs.unlink(final).catch(() => {});
    await removeJournal(session);
    note = `rolled back compaction ${journal.id}, which was interrupted before its commit (messages.jsonl was untouched)`;
  }
  env.warn(`wmem: ${note}`);
  return note;
}

/**
 * Does what a committed compaction left to do (see finishQuickCut), adds its overview lines, and
 * removes the journal. Returns what a quick cut archived, once counted.
 */
export async function finishCommitted(session: Session, journal: Journal, env: { warn(msg: string): void }): Promise<ArchivedCounts | undefined> {
  let counts: ArchivedCounts | undefined;
  if (journal.quick && !journal.indexLines.length) {
    const finished = await finishQuickCut(session, journal.quick, env);
    journal.indexLines = finished.indexLines;
    journal.recentLine = finished.recentLine;
    counts = finished.counts;
  }
  await updateOverview(session, journal.indexLines, journal.recentLine, env);
  await removeJournal(session);
  return counts;
}

export interface ArchivedCounts {
  turns: number;
  messages: number;
  lines: number;
}

async function removeJournal(session: Session): Promise<void> {
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

/**
 * The rest of a committed quick compaction: the archive cut to length (carrying over any lines
 * appended to the old file that the run did not carry over before it stopped), then its
 * readable transcript. Returns the overview lines to add. Safe to repeat.
 */
export async function finishQuickCut(session: Session, quick: QuickPart, env: { warn(msg: string): void }): Promise<{ indexLines: string[]; recentLine: string; counts?: ArchivedCounts }> {
  const archiveRel = rel(session, quick.archive);
  let size: number;
  try {
    size = (await fs.stat(quick.archive)).size;
  } catch (err) {
    env.warn(`wmem: ${quick.archive} is gone (${(err as NodeJS.ErrnoException).code}); no transcript written for it`);
    return { indexLines: [], recentLine: '' };
  }
  if (size > quick.archivedBytes) {
    // Bytes past the cut are either the old file's tail, not cut yet (the run stopped first; the
    // kept part of it is in messages.jsonl after the marker), or lines a program appended through
    // a descriptor it held across the compaction, after the cut. Neither is dropped.
    const kept = Buffer.alloc(Math.min(size, quick.copiedTo) - quick.archivedBytes);
    await readInto(quick.archive, kept, quick.archivedBytes);
    const uncut = await keptAfterMarker(session.paths.messages, kept);
    const appendedFrom = uncut ? quick.copiedTo : quick.archivedBytes;
    if (size > appendedFrom) {
      const extra = Buffer.alloc(size - appendedFrom);
      await readInto(quick.archive, extra, appendedFrom);
      if (!(await endsWith(session.paths.messages, extra))) await appendBytes(session.paths.messages, extra);
    }
    await cutTo(quick.archive, quick.archivedBytes);
  }
  await fs.chmod(quick.archive, FILE_MODE).catch(() => {});

  // The transcript is derived: one left by an earlier attempt is written again.
  await fs.unlink(quick.transcript).catch(() => {});
  const created = new Date(quick.created);
  const transcript = new DurableFile(tempFor(quick.transcript, 'finish'));
  try {
    await transcript.open();
    const slots = await startTranscript(transcript, { session: session.id, created, archiveRel });
    const state: ScanState = { lineNo: 0, ordinal: 0, messages: 0, turns: 0, pruned: 0, anchors: new Map(), hash: createHash('sha256') };
    await scanRegion(quick.archive, { start: 0, end: quick.archivedBytes }, { transcript: true, rewrite: false }, { transcript, toolsRel: '' }, state, new Progress(false, 0));
    const counts = { turns: state.turns, messages: state.messages, lines: state.lineNo };
    await recordArchiveDigest(session, archiveRel, { bytes: quick.archivedBytes, sha256: state.hash.digest('hex') });
    await fillSlots(transcript, slots, { lines: `1-${counts.lines}`, messages: counts.messages, turns: counts.turns });
    await transcript.close();
    await linkInto(transcript.temp, quick.transcript);
    const transcriptRel = rel(session, quick.transcript);
    return { indexLines: [detailIndexLine(transcriptRel, transcriptTitle(counts, created))], recentLine: archivedRecentLine(counts, archiveRel, transcriptRel), counts };
  } catch (err) {
    // The archive is whole and cut: only the derived transcript is missing, which must not
    // hold every later run back.
    await transcript.discard();
    env.warn(`wmem: the readable transcript of ${archiveRel} was not written: ${(err as Error).message}`);
    return { indexLines: [], recentLine: `Compacted history → ${archiveRel} (no readable transcript: ${(err as Error).message})`.slice(0, 300) };
  }
}

/** Cuts a file to `length` bytes and fsyncs it. */
export async function cutTo(file: string, length: number): Promise<void> {
  const handle = await fs.open(file, 'r+').catch((err) => {
    throw fsError(err, 'write', file);
  });
  try {
    await handle.truncate(length);
    await handle.chmod(FILE_MODE);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

async function readInto(file: string, into: Buffer, position: number): Promise<void> {
  const handle = await fs.open(file, 'r');
  try {
    for (let done = 0; done < into.length; ) {
      const { bytesRead } = await handle.read(into, done, into.length - done, position + done);
      if (!bytesRead) throw new Error(`${file} ended early`);
      done += bytesRead;
    }
  } finally {
    await handle.close();
  }
}

/** Whether messages.jsonl holds `bytes` right after its first line (the marker). */
async function keptAfterMarker(file: string, bytes: Buffer): Promise<boolean> {
  for await (const line of readLines(file)) {
    const found = Buffer.alloc(bytes.length);
    try {
      await readInto(file, found, line.offset + line.bytes.length);
    } catch {
      return false;
    }
    return found.equals(bytes);
  }
  return false;
}

/** Whether `file` ends with `bytes` (lines carried over already). */
async function endsWith(file: string, bytes: Buffer): Promise<boolean> {
  const size = (await fs.stat(file).catch(() => undefined))?.size ?? 0;
  if (size < bytes.length) return false;
  const tail = Buffer.alloc(bytes.length);
  await readInto(file, tail, size - bytes.length);
  return tail.equals(bytes);
}

/** Writes the journal atomically (state/ is created with the session). */
export async function writeJournal(session: Session, journal: Journal): Promise<void> {
  await atomicWrite(journalPath(session), JSON.stringify(journal, null, 2) + '\n');
}

/** Digests of archives whose marker has none (quick cuts), by path relative to working-memory/. */
interface ArchiveDigests {
  version: 1;
  archives: Record<string, { bytes: number; sha256: string }>;
}

function digestsPath(session: Session): string {
  return path.join(session.paths.stateDir, 'archives.json');
}

/** The recorded sha256 of an archive whose marker has none, if any. */
export async function archiveDigest(session: Session, archiveRel: string): Promise<{ bytes: number; sha256: string } | undefined> {
  const text = await readTextIfExists(digestsPath(session));
  if (!text) return undefined;
  try {
    return (JSON.parse(text) as ArchiveDigests).archives?.[archiveRel];
  } catch {
    return undefined;
  }
}

/** Records an archive's digest (under the session lock). */
async function recordArchiveDigest(session: Session, archiveRel: string, digest: { bytes: number; sha256: string }): Promise<void> {
  let digests: ArchiveDigests = { version: 1, archives: {} };
  const text = await readTextIfExists(digestsPath(session));
  if (text) {
    try {
      const parsed = JSON.parse(text) as ArchiveDigests;
      if (parsed && typeof parsed.archives === 'object') digests = { version: 1, archives: parsed.archives };
    } catch {
      // Unreadable (it is written atomically, so not torn by wmem): kept aside, not overwritten.
      await fs.rename(digestsPath(session), `${digestsPath(session)}.unreadable-${Date.now()}`).catch(() => {});
    }
  }
  digests.archives[archiveRel] = digest;
  await atomicWrite(digestsPath(session), JSON.stringify(digests, null, 2) + '\n');
}
