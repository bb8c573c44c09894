// Lossless archiving of an agent's own transcript (Claude Code's PreCompact hook): the lines not
// archived before go byte for byte to archive/, with a readable transcript in detail/. The
// transcript itself is only read.
import path from 'node:path';
import { atomicWrite, openRegularFile, readTextIfExists, withLock, type ReadHandle } from '../../store/fsx.js';
import { fileStamp } from '../../store/paths.js';
import type { Session } from '../../store/session.js';
import { appendToSection, detailFrontMatter, detailIndexLine } from '../../store/detail.js';
import { fsError } from '../../ui/errors.js';
import { isoTime } from '../../ui/time.js';
import { isObject, type MessageLine } from '../model/lines.js';
import { lineFacts } from '../model/messages.js';
import { renderMessage } from '../model/transcript.js';
import { bytesHash, nameHash } from '../../memory/name-hash.js';
import { countLines, readLines } from '../stream/read.js';
import { sha256 } from '../../memory/hash.js';
import { DurableFile, freeName, linkInto, tempFor } from '../stream/durable.js';
import { syncFile } from '../../store/fd-handle.js';
import { removeSessionLeftovers } from '../stream/leftovers.js';

function rel(session: Session, file: string): string {
  return path.relative(session.paths.workingMemory, file).split(path.sep).join('/');
}

interface TranscriptState {
  version: 1;
  /**
   * `lines`: how many lines end before `offset` (absent in states written before it was kept).
   * `print`: a fingerprint of the transcript's first bytes (up to HEAD of them) when `offset` was
   * recorded; states written before it was kept have `head`, those bytes' sha256, instead.
   */
  files: Record<string, TranscriptMark>;
}

interface TranscriptMark {
  offset: number;
  print?: string;
  head?: string;
  lines?: number;
}

const TRANSCRIPT_STATE = 'transcripts.json';
/**
 * How much of a transcript's start is fingerprinted to know it is the file archived before (not
 * one rewritten since).
 */
const HEAD = 4096;

/**
 * The fingerprint of a transcript's first bytes: `w`, their length and 64 bits of FNV-1a over
 * them a word at a time (bytesHash). Not a cryptographic hash (a sha256 in JavaScript cost a
 * compaction hook 10–20 ms of CPU, node:crypto as much to load), nor the bytes themselves (the
 * first prompt, and any secret in it, would sit in state/): it tells a transcript rewritten by its
 * agent from the one archived before.
 */
function fingerprint(bytes: Buffer): string {
  return `w${bytes.length}:${bytesHash(bytes)}`;
}

/**
 * Whether the transcript still starts as it did when `mark` was recorded (then archiving resumes
 * at its offset). Marks from earlier versions hold `<length>:<nameHash of the bytes as latin1>`,
 * or `head`, the bytes' sha256: each is checked its own way once, and replaced by the current one.
 */
function sameStart(head: Buffer, mark: TranscriptMark): boolean {
  const bytes = head.subarray(0, Math.min(mark.offset, HEAD));
  if (typeof mark.print !== 'string') return sha256().update(bytes).digest('hex') === mark.head;
  return mark.print === (mark.print.startsWith('w') ? fingerprint(bytes) : `${bytes.length}:${nameHash(bytes.toString('latin1'))}`);
}

/**
 * The mark's fingerprint once `end` is archived: the one checked already when the first HEAD
 * bytes were all archived before (they are the same bytes), else computed.
 */
function printAt(head: Buffer, previous: TranscriptMark | undefined, start: number, end: number): string {
  if (start >= HEAD && previous?.print?.startsWith('w')) return previous.print;
  return fingerprint(head.subarray(0, Math.min(end, HEAD)));
}

export interface ArchiveOptions {
  /**
   * Runs under the session lock before the transcript is read (OpenCode's messages mirrored into
   * the file wmem keeps for it: one lock hold for both). Given, the transcript is a file wmem
   * appends to without an fsync: it is fsynced beside the archive's files, before the record names
   * its bytes, whether this run appended or not (a hook killed after its append left them unsynced).
   */
  prepare?: () => Promise<void>;
}

/**
 * Copies the lines of an agent's own transcript that were not archived before (tracked by byte
 * offset in state/transcripts.json) into archive/transcript-<stamp>.jsonl byte for byte, and
 * writes a readable transcript to detail/ with an index line in overview.md. The transcript is
 * only read. Only complete lines (up to the last newline) are taken; a rewritten or truncated
 * transcript starts over from its first byte. Takes the session lock itself. Returns empty paths
 * and 0 lines when there was nothing new.
 */
export async function archiveTranscript(session: Session, transcriptPath: string, env: { now(): Date }, options: ArchiveOptions = {}): Promise<{ archive: string; detail: string; lines: number }> {
  const source = path.resolve(transcriptPath);
  return withLock(session.paths.dir, async () => {
    await removeSessionLeftovers(session);
    const unsynced = options.prepare !== undefined;
    await options.prepare?.();
    let handle: ReadHandle;
    try {
      // Only a regular file: opening a FIFO named as the transcript would block the hook.
      handle = await openRegularFile(source);
    } catch (err) {
      throw fsError(err, 'read', source);
    }
    const stateFile = path.join(session.paths.stateDir, TRANSCRIPT_STATE);
    let state: TranscriptState = { version: 1, files: {} };
    let previous: TranscriptState['files'][string] | undefined;
    // Where the new lines start and end, and the first bytes (the fingerprints' own), read
    // through the one open: each open of the file was a trip through the thread pool and back.
    let start: number, end: number, head: Buffer;
    try {
      state = readTranscriptState(await readTextIfExists(stateFile));
      previous = state.files[source];
      const size = (await handle.stat()).size;
      head = await readFrom(handle, Buffer.allocUnsafe(Math.min(size, HEAD)), 0);
      start = previous && previous.offset <= size && sameStart(head, previous) ? previous.offset : 0;
      // Up to the last newline: a line still being written waits for the next call.
      end = await lastNewlineEnd(handle, start, size);
    } finally {
      await handle.close();
    }
    if (end <= start) return { archive: '', detail: '', lines: 0 };

    const now = env.now();
    const stamp = fileStamp(now);
    const archiveFinal = await freeName(session.paths.archiveDir, `transcript-${stamp}`, '.jsonl');
    const detailFinal = await freeName(session.paths.detailDir, `${stamp}-transcript`, '.md');
    const archive = new DurableFile(tempFor(archiveFinal, stamp));
    // The readable copy's body, held until the counts for its front matter are known.
    const body = new DetailBody(tempFor(detailFinal, stamp));
    const detail = new DurableFile(tempFor(detailFinal, `${stamp}b`));
    try {
      await archive.open();
      let lines = 0;
      let messages = 0;
      let firstLineNo = 0;
      // Line numbers count from the transcript's start: the lines already archived, as the state
      // kept them or counted a chunk at a time (0 when starting over).
      const kept = previous?.lines;
      if (start > 0) firstLineNo = Number.isSafeInteger(kept) && kept! >= 0 ? kept! : await countLines(source, 0, start);
      const range = { from: firstLineNo + 1, to: firstLineNo };
      for await (const line of readLines(source, { start, end })) {
        lines++;
        range.to = firstLineNo + lines;
        await archive.write(line.bytes);
        const facts = lineFacts(line.bytes.toString('utf8'));
        if (facts.info.kind === 'message' && body.add(renderMessage(facts.info as MessageLine, ++messages, range.to))) await body.spill();
      }
      const archiveRel = rel(session, archiveFinal);
      const archived = isoTime(now);
      const title = `agent transcript lines ${range.from}-${range.to} (${messages} messages), archived ${archived}`;
      const front =
        detailFrontMatter({ wmem: 'detail', version: 1, kind: 'transcript', title, created: archived, session: session.id, source, lines: `${range.from}-${range.to}`, bytes: `${start}-${end}`, messages, archive: archiveRel }) +
        `\n# Agent transcript, lines ${range.from}-${range.to}\n\nEvery line is kept byte for byte in ${archiveRel}; long parts are shortened here.\n\n`;
      await detail.open();
      await detail.write(front);
      await body.copyTo(detail);
      // The archive and its readable copy are on disk, each with its name, before the record
      // below says they were made: their fsyncs overlap in the pool. The archive is named (and its
      // folder synced) before its copy, which says "every line is kept in <archive>": a failure
      // or a kill between the two leaves an archive nothing names, never a copy that a later
      // consolidation would list for an archive that is not there.
      await settled([archive.close(), detail.close(), ...(unsynced ? [syncFile(source)] : [])]);
      await linkInto(archive.temp, archiveFinal);
      await linkInto(detail.temp, detailFinal);
      state.files[source] = { offset: end, print: printAt(head, previous, start, end), lines: range.to };
      // Bookkeeping (docs/guarantees.md): lost in a power cut, lines are archived twice, none missed.
      await atomicWrite(stateFile, JSON.stringify(state, null, 2) + '\n', { durable: false });
      const detailRel = rel(session, detailFinal);
      try {
        await appendToSection(session, 'details', [detailIndexLine(detailRel, title)], { locked: true });
      } catch {
        /* an overview without a Details section still gets the files */
      }
      return { archive: archiveRel, detail: detailRel, lines };
    } catch (err) {
      // A failed write (a full disk) leaves none of its temp files behind.
      await Promise.all([archive.discard(), body.discard(), detail.discard()]);
      throw err;
    }
  });
}

/** The record of how far each transcript was archived; damaged or missing, none yet (re-archiving is safe, losing is not). */
function readTranscriptState(raw: string | undefined): TranscriptState {
  if (raw) {
    try {
      const parsed = JSON.parse(raw) as TranscriptState;
      if (isObject(parsed.files)) return { version: 1, files: parsed.files };
    } catch {
      /* start over */
    }
  }
  return { version: 1, files: {} };
}

/** Waits for all of `work`, then throws the first failure: nothing is still running when the caller cleans up. */
async function settled(work: Promise<unknown>[]): Promise<void> {
  const failed = (await Promise.allSettled(work)).find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) throw failed.reason;
}

/** Past this many characters, the readable copy's body goes to a temp file (a first archive of a long transcript). */
const BODY_IN_MEMORY = 4 << 20;

/**
 * The readable copy's rendered messages: in memory (an archive of the lines new since the last
 * compaction is a few KB), spilled to a temp file beside the detail file past BODY_IN_MEMORY.
 * That temp is only copied from, then removed: it is never fsynced.
 */
class DetailBody {
  private parts: string[] = [];
  private length = 0;
  private file?: DurableFile;

  constructor(private readonly temp: string) {}

  /** Keeps `text`; true when the caller should `await spill()`. */
  add(text: string): boolean {
    this.parts.push(text);
    this.length += text.length;
    return this.length >= BODY_IN_MEMORY;
  }

  async spill(): Promise<void> {
    this.file ??= await new DurableFile(this.temp).open();
    await this.file.write(this.parts.join(''));
    this.parts = [];
    this.length = 0;
  }

  /** Appends the whole body to `detail`, then removes the temp file. */
  async copyTo(detail: DurableFile): Promise<void> {
    if (this.file) {
      await this.file.write(this.parts.join(''));
      await this.file.close({ sync: false });
      await detail.copyRange(this.temp, 0, this.file.bytes);
      await this.file.discard();
    } else await detail.write(this.parts.join(''));
    this.parts = [];
  }

  async discard(): Promise<void> {
    await this.file?.discard();
  }
}

async function lastNewlineEnd(handle: ReadHandle, start: number, size: number): Promise<number> {
  const chunk = Buffer.allocUnsafe(64 * 1024);
  for (let end = size; end > start; ) {
    const from = Math.max(start, end - chunk.length);
    const got = await readFrom(handle, chunk.subarray(0, end - from), from);
    const nl = got.lastIndexOf(10);
    if (nl !== -1) return from + nl + 1;
    end = from;
  }
  return start;
}

/** Fills `into` from `position`, as far as the file goes; the part read (shorter only at its end). */
async function readFrom(handle: ReadHandle, into: Buffer, position: number): Promise<Buffer> {
  let got = 0;
  for (let n = 1; got < into.length && n; got += n) n = (await handle.read(into, got, into.length - got, position + got)).bytesRead;
  return into.subarray(0, got);
}
