// The rest of a committed quick compaction (quick-cut.ts), done from its journal: the archive
// (the old messages.jsonl under its archive name) cut to length, carrying over to messages.jsonl
// whatever reached the old file after the swap, once and in order; then its readable transcript
// and digest. Safe to repeat after a kill at any point.
import { fstatSync, ftruncateSync, promises as fs, writeFileSync } from 'node:fs';
import path from 'node:path';
import { FILE_MODE, assertLocksHeld, atomicWrite, fsyncDir } from '../../store/fsx.js';
import type { Session } from '../../store/session.js';
import { detailIndexLine } from '../../store/detail.js';
import { fsError, ioError } from '../../ui/errors.js';
import { Progress, archivedRecentLine, fillSlots, rel, scanRegion, startTranscript, transcriptTitle, type ScanState } from './pass.js';
import { readLines } from '../stream/read.js';
import { DurableFile, appendBytes, tempFor } from '../stream/durable.js';
import { SETTLE_MS, untilStill } from '../stream/swap.js';
import { recordArchiveDigest } from './archive-digests.js';
import { readRegularSync } from '../../store/regular-file.js';
import { nodeHash } from '../../memory/hash.js';

/** A quick cut's part of the journal: what its finishing still has to do. */
export interface QuickPart {
  /** The archive (absolute): the old messages.jsonl under its final name. */
  archive: string;
  /** The archive's length once cut: the bytes before the cut. */
  archivedBytes: number;
  /** The new messages.jsonl holds the old file's bytes [archivedBytes, copiedTo) after its marker (and its head bytes). */
  copiedTo: number;
  /** Bytes between the marker and that copy: the repeated opening message of a cut inside a turn. */
  headBytes?: number;
  /** The readable transcript to write (absolute). */
  transcript: string;
  created: string;
}

/**
 * Up to where a committed quick cut carried the old file's late bytes into messages.jsonl, so
 * that its finishing carries the rest from there, and, while the finishing appends more, where
 * and how many (so that a finishing killed after appending does not append them twice). The
 * compacting run writes it without fsync, as a hint: after a crash the finishing works it out
 * from the files themselves (see cutArchive).
 */
interface CarriedNote {
  id: string;
  carriedTo: number;
  pending?: { at: number; length: number };
}

export function carriedNotePath(session: Session): string {
  return path.join(session.paths.stateDir, 'compaction-carried.json');
}

export async function noteCarried(session: Session, id: string, carriedTo: number): Promise<void> {
  // Synchronous: a few bytes, no fsync, right after the return's commit (three trips through the
  // thread pool saved on its way out).
  try {
    writeFileSync(carriedNotePath(session), JSON.stringify({ id, carriedTo } satisfies CarriedNote) + '\n', { mode: FILE_MODE });
  } catch {
    /* a hint: without it the finishing goes by the files alone, as when this write failed before */
  }
}

async function readCarried(session: Session, id: string): Promise<CarriedNote | undefined> {
  try {
    const note = JSON.parse(readRegularSync(carriedNotePath(session), 'utf8')) as Partial<CarriedNote>;
    if (note.id !== id || !Number.isSafeInteger(note.carriedTo)) return undefined;
    const pending = note.pending && Number.isSafeInteger(note.pending.at) && Number.isSafeInteger(note.pending.length) ? note.pending : undefined;
    return { id, carriedTo: note.carriedTo!, ...(pending ? { pending } : {}) };
  } catch {
    return undefined;
  }
}

export interface ArchivedCounts {
  turns: number;
  messages: number;
  lines: number;
}

/**
 * The rest of a committed quick compaction: the archive cut to length (see cutArchive), then its
 * readable transcript. Returns the overview lines to add. Safe to repeat.
 */
export async function finishQuickCut(session: Session, id: string, quick: QuickPart, env: { warn(msg: string): void }, how: { messagesIntact: boolean }): Promise<{ indexLines: string[]; recentLine: string; counts?: ArchivedCounts }> {
  const archiveRel = rel(session, quick.archive);
  let size: number;
  try {
    // A write in flight through the old file when the compaction swapped it lands in a moment.
    size = await settledSize(quick.archive);
  } catch (err) {
    env.warn(`wmem: ${quick.archive} is gone (${(err as NodeJS.ErrnoException).code}); no transcript written for it`);
    return { indexLines: [], recentLine: '' };
  }
  // Whether the archive ends at its archived bytes now (anything past them later is a program's
  // write through the old file after this point: `wmem restore` carries it), or was left whole.
  const cut = size > quick.archivedBytes ? await cutArchive(session, id, quick, size, how.messagesIntact) : true;
  await fs.chmod(quick.archive, FILE_MODE).catch(() => {});

  const created = new Date(quick.created);
  const transcript = new DurableFile(tempFor(quick.transcript, 'finish'));
  try {
    await transcript.open();
    const slots = await startTranscript(transcript, { session: session.id, created, archiveRel });
    const state: ScanState = { lineNo: 0, ordinal: 0, messages: 0, turns: 0, pruned: 0, anchors: new Map(), hash: nodeHash('sha256') };
    await scanRegion(quick.archive, { start: 0, end: quick.archivedBytes }, { transcript: true, rewrite: false }, { transcript, toolsRel: '' }, state, new Progress(false, 0));
    const counts = { turns: state.turns, messages: state.messages, lines: state.lineNo };
    await recordArchiveDigest(session, archiveRel, { bytes: quick.archivedBytes, sha256: state.hash.digest('hex'), lines: counts.lines, ...(cut ? { cut: true } : {}) });
    await fillSlots(transcript, slots, { lines: `1-${counts.lines}`, messages: counts.messages, turns: counts.turns });
    await transcript.close();
    // Over the placeholder the compaction left under this name (or an earlier attempt's result).
    assertLocksHeld();
    await fs.rename(transcript.temp, quick.transcript);
    await fsyncDir(path.dirname(quick.transcript));
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

/** A file's size once it has not grown for SETTLE_MS (a second at most). */
async function settledSize(file: string): Promise<number> {
  let size = -1;
  await untilStill(SETTLE_MS, async () => {
    const now = (await fs.stat(file)).size;
    const grew = now !== size;
    size = now;
    return grew;
  });
  return size;
}

/**
 * Cuts a quick archive (size bytes now) to its length. Past the cut it holds either the old
 * file's tail, not cut yet (the kept part of it is in messages.jsonl after the marker, followed
 * by what the run carried over, up to the offset it noted), or bytes a program wrote through a
 * descriptor it held across the compaction, after an earlier cut. What messages.jsonl lacks of
 * either goes there before the cut. Without the run's note, what it carried is matched line by
 * line; when messages.jsonl was rewritten since the commit (`intact` false), only the note can
 * say, and without it the archive is left whole.
 */
async function cutArchive(session: Session, id: string, quick: QuickPart, size: number, intact: boolean): Promise<boolean> {
  const messages = session.paths.messages;
  const note = await readCarried(session, id);
  const noted = note && note.carriedTo >= quick.copiedTo && note.carriedTo <= size ? await pastPending(messages, quick.archive, note) : undefined;
  let from: number;
  if (intact) {
    const afterMarker = (await firstLineEnd(messages)) + (quick.headBytes ?? 0);
    const keptLength = quick.copiedTo - quick.archivedBytes;
    const kept = size >= quick.copiedTo ? await commonPrefix(messages, afterMarker, quick.archive, quick.archivedBytes, keptLength) : undefined;
    if (kept && kept.bytes === keptLength) {
      from = noted ?? quick.copiedTo + (await commonPrefix(messages, afterMarker + keptLength, quick.archive, quick.copiedTo, size - quick.copiedTo)).wholeLines;
    } else {
      // Cut already, and written after. A writer that was not appending leaves a hole of zeros first.
      from = quick.archivedBytes + (await leadingZeros(quick.archive, quick.archivedBytes, size));
    }
  } else if (noted !== undefined) {
    from = noted;
  } else {
    return false;
  }
  await carryAndCut(quick.archive, quick.archivedBytes, messages, from, async (carriedTo, at, length) => {
    await atomicWrite(carriedNotePath(session), JSON.stringify({ id, carriedTo, pending: { at, length } } satisfies CarriedNote) + '\n');
  });
  return true;
}

/** The note's offset, past its pending bytes if they are in messages.jsonl where they were put. */
async function pastPending(messages: string, archive: string, note: CarriedNote): Promise<number> {
  if (!note.pending) return note.carriedTo;
  const { at, length } = note.pending;
  const [there, carried] = await Promise.all([readRange(messages, at, length), readRange(archive, note.carriedTo, length)]);
  return there.length === length && there.equals(carried) ? note.carriedTo + length : note.carriedTo;
}

async function readRange(file: string, start: number, length: number): Promise<Buffer> {
  const handle = await fs.open(file, 'r').catch((err) => {
    throw fsError(err, 'read', file);
  });
  try {
    const buf = Buffer.alloc(length);
    const { bytesRead } = await handle.read(buf, 0, length, start);
    return buf.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/**
 * Appends the archive's bytes from `from` to messages.jsonl, again for whatever arrived while
 * doing so, then cuts the archive to `length` and fsyncs it. `beforeAppend` records each append
 * (where it carries from, where in messages.jsonl it puts them, how many) before it is made.
 * (A byte written between the last look and the cut is the one race left, narrowed by
 * cutIfStill to the instant between two system calls; one written after the cut lands past
 * `length`, where `wmem restore` carries it: writtenAfterCut.)
 */
export async function carryAndCut(archive: string, length: number, messages: string, from: number, beforeAppend: (from: number, at: number, length: number) => Promise<void> = async () => {}): Promise<void> {
  const handle = await fs.open(archive, 'r+').catch((err) => {
    throw fsError(err, 'write', archive);
  });
  try {
    for (let round = 0; ; round++) {
      const size = (await handle.stat()).size;
      if (size <= from && cutIfStill(handle.fd, from, length)) break;
      if (round >= MAX_CARRY_ROUNDS) throw ioError(`a program keeps writing into ${archive} (the old messages.jsonl, through a descriptor it kept open)`, undefined, 'stop that program (or make it reopen messages.jsonl for each write), then run the command again: what it wrote so far is carried');
      if (size <= from) continue;
      const extra = Buffer.alloc(size - from);
      const { bytesRead } = await handle.read(extra, 0, extra.length, from);
      if (!bytesRead) continue;
      const at = (await fs.stat(messages).catch(() => undefined))?.size ?? 0;
      await beforeAppend(from, at, bytesRead);
      assertLocksHeld();
      await appendBytes(messages, extra.subarray(0, bytesRead));
      from += bytesRead;
    }
    await handle.chmod(FILE_MODE);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Cuts the file open as `fd` to `length` if it still ends at `end`: the look and the cut are two
 * synchronous calls in a row, so a late write can only come between them in that instant rather
 * than in the thread pool's round trips (a write after the cut lands past `length`, where a
 * restore carries it). False when it grew: the caller carries the new bytes first.
 */
function cutIfStill(fd: number, end: number, length: number): boolean {
  if (fstatSync(fd).size > end) return false;
  assertLocksHeld();
  ftruncateSync(fd, length);
  return true;
}

/** How many times carryAndCut looks again before it gives up on a writer that never stops. */
const MAX_CARRY_ROUNDS = 1000;

/**
 * What a program holding the old messages.jsonl open wrote into a finished quick archive past
 * its `length` archived bytes (after the finishing's cut), once the archive has been still for
 * SETTLE_MS: [from, to), past a hole of zeros a positioned write left; undefined if nothing.
 */
export async function writtenAfterCut(archive: string, length: number): Promise<{ from: number; to: number } | undefined> {
  const to = await settledSize(archive);
  if (to <= length) return undefined;
  const from = length + (await leadingZeros(archive, length, to));
  return from < to ? { from, to } : undefined;
}

/** The offset just past the first line of a file (its marker). */
async function firstLineEnd(file: string): Promise<number> {
  for await (const line of readLines(file)) return line.offset + line.bytes.length;
  return 0;
}

/**
 * How many bytes of `a` from `startA` equal those of `b` from `startB` (up to `length`), and up
 * to which newline of that common part whole lines match. Read 1 MiB at a time.
 */
async function commonPrefix(a: string, startA: number, b: string, startB: number, length: number): Promise<{ bytes: number; wholeLines: number }> {
  const left = await fs.open(a, 'r');
  const right = await fs.open(b, 'r');
  try {
    const x = Buffer.alloc(Math.max(1, Math.min(length, 1 << 20)));
    const y = Buffer.alloc(x.length);
    let bytes = 0;
    let wholeLines = 0;
    while (bytes < length) {
      const want = Math.min(x.length, length - bytes);
      const [{ bytesRead: gotX }, { bytesRead: gotY }] = await Promise.all([left.read(x, 0, want, startA + bytes), right.read(y, 0, want, startB + bytes)]);
      const got = Math.min(gotX, gotY);
      let same = 0;
      while (same < got && x[same] === y[same]) same++;
      const nl = x.subarray(0, same).lastIndexOf(10);
      if (nl !== -1) wholeLines = bytes + nl + 1;
      bytes += same;
      if (same < want) break;
    }
    return { bytes, wholeLines };
  } finally {
    await left.close();
    await right.close();
  }
}

/** How many zero bytes a file has from `start` (below `end`): a hole left by a positioned write. */
async function leadingZeros(file: string, start: number, end: number): Promise<number> {
  const handle = await fs.open(file, 'r');
  try {
    const chunk = Buffer.alloc(Math.max(1, Math.min(end - start, 1 << 16)));
    let zeros = 0;
    while (start + zeros < end) {
      const { bytesRead } = await handle.read(chunk, 0, Math.min(chunk.length, end - start - zeros), start + zeros);
      if (!bytesRead) break;
      let i = 0;
      while (i < bytesRead && chunk[i] === 0) i++;
      zeros += i;
      if (i < bytesRead) break;
    }
    return zeros;
  } finally {
    await handle.close();
  }
}
