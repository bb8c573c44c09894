// Streaming reads of history files: lines as exact byte ranges (terminator included, a last line
// without newline included as is), forwards or backwards, and raw byte ranges, hashes and line
// counts. Nothing here holds a whole file in memory.
import { readSync } from 'node:fs';
import { fsError } from '../../ui/errors.js';
import { READ_FLAGS } from '../../store/regular-file.js';
import { openFd } from '../../store/fd-handle.js';
import { sha256 } from '../../memory/hash.js';

export interface RawLine {
  /** Byte offset of the line's first byte. */
  offset: number;
  /** 0-based line index within the range read. */
  index: number;
  /** The line's bytes including its terminator (valid until the next iteration). */
  bytes: Buffer;
}


/** How much is read (or buffered for writing) at a time. */
export const CHUNK = 1 << 20;

/**
 * Yields the lines of `file` between byte `start` and `end` (default: the whole file), a chunk's
 * worth at a time (fewer async steps than one per line). Each batch is valid until the next.
 * `hash`, if given, is fed every byte read, in order: the digest of the range without a second read.
 */
export async function* readLineBatches(file: string, range: { start?: number; end?: number; hash?: { update(data: Uint8Array): unknown } } = {}): AsyncGenerator<RawLine[]> {
  const handle = await openFd(file, READ_FLAGS).catch((err) => {
    throw fsError(err, 'read', file);
  });
  try {
    const end = range.end ?? (await handle.stat()).size;
    let position = range.start ?? 0;
    let pending: Buffer | undefined;
    let pendingOffset = position;
    let index = 0;
    const chunk = Buffer.allocUnsafe(CHUNK);
    while (position < end) {
      const { bytesRead } = await handle.read(chunk, 0, Math.min(CHUNK, end - position), position);
      if (bytesRead === 0) break;
      const data = chunk.subarray(0, bytesRead);
      range.hash?.update(data);
      const batch: RawLine[] = [];
      let from = 0;
      for (let nl = data.indexOf(10, from); nl !== -1; nl = data.indexOf(10, from)) {
        const piece = data.subarray(from, nl + 1);
        if (pending) {
          batch.push({ offset: pendingOffset, index: index++, bytes: Buffer.concat([pending, piece]) });
          pending = undefined;
        } else {
          batch.push({ offset: position + from, index: index++, bytes: piece });
        }
        from = nl + 1;
      }
      if (from < bytesRead) {
        const rest = Buffer.from(data.subarray(from));
        if (pending) pending = Buffer.concat([pending, rest]);
        else {
          pending = rest;
          pendingOffset = position + from;
        }
      }
      position += bytesRead;
      if (batch.length) yield batch;
    }
    if (pending?.length) yield [{ offset: pendingOffset, index: index++, bytes: pending }];
  } finally {
    await handle.close().catch(() => {});
  }
}

/** Yields the lines of `file` between byte `start` and `end` (default: the whole file), one at a time. */
export async function* readLines(file: string, range: { start?: number; end?: number } = {}): AsyncGenerator<RawLine> {
  for await (const batch of readLineBatches(file, range)) yield* batch;
}
/**
 * Bytes [start, end) of a file in 1 MiB pieces, each valid until the next is asked for. The
 * next piece is read while the caller works on this one (two buffers, taken in turn).
 */
export async function* readChunks(file: string, start: number, end: number): AsyncGenerator<Buffer> {
  if (end <= start) return;
  const handle = await openFd(file, READ_FLAGS).catch((err) => {
    throw fsError(err, 'read', file);
  });
  const buffers = [Buffer.allocUnsafe(CHUNK), Buffer.allocUnsafe(CHUNK)];
  let turn = 0;
  type Piece = { bytesRead: number; buffer: Buffer; want: number };
  const readAt = (position: number): Promise<Piece> => {
    const want = Math.min(CHUNK, end - position);
    return handle.read(buffers[turn++ % 2]!, 0, want, position).then(({ bytesRead, buffer }) => ({ bytesRead, buffer, want }));
  };
  let pending: Promise<Piece> | undefined = readAt(start);
  try {
    for (let position = start; pending; ) {
      const piece: Piece = await pending;
      const { bytesRead, buffer, want } = piece;
      position += bytesRead;
      // A short read is the end of the file (it shrank): nothing more to ask for.
      pending = bytesRead === want && position < end ? readAt(position) : undefined;
      if (bytesRead === 0) break;
      yield buffer.subarray(0, bytesRead);
    }
  } finally {
    await pending?.catch(() => {});
    await handle.close().catch(() => {});
  }
}

/** Bytes [start, end) of a file, for a small range (fewer when the file is shorter). */
export async function readRange(file: string, start: number, end: number): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const chunk of readChunks(file, start, end)) parts.push(Buffer.from(chunk));
  return Buffer.concat(parts);
}

/**
 * Pieces read in the calling thread (readChunksInThread): small enough to stay in its cache, large
 * enough that a scan making several passes over each (the link check's anchors) calls out of
 * Buffer.indexOf seldom: 512 KiB took 39 ms of CPU where 256 KiB took 48 (bench/README.md).
 */
const PIECE = 512 << 10;
/** How much readChunksInThread reads between two turns of the event loop. */
const TURN_BYTES = 1 << 20;

/**
 * Bytes [start, end) of an open file in 512 KiB pieces, each valid until the next, read in the
 * calling thread (synchronous reads), for a caller that only looks at each piece once, such as a
 * scan: the bytes are then still in this core's cache when they are looked at, where a read by
 * the thread pool (readChunks) leaves them on another core, at about twice the CPU time of the
 * scan's read (bench/README.md). Every 1 MiB it gives the event loop a turn, so that work the
 * caller started beside the reading (writes, fsyncs) goes on meanwhile.
 */
export async function* readChunksInThread(fd: number, name: string, start: number, end: number): AsyncGenerator<Buffer> {
  const buffer = Buffer.allocUnsafe(Math.max(1, Math.min(PIECE, end - start)));
  for (let position = start, sinceTurn = 0; position < end; ) {
    let bytesRead: number;
    try {
      bytesRead = readSync(fd, buffer, 0, Math.min(buffer.length, end - position), position);
    } catch (err) {
      throw fsError(err, 'read', name);
    }
    // The file shrank: nothing more to read.
    if (!bytesRead) return;
    position += bytesRead;
    yield buffer.subarray(0, bytesRead);
    if ((sinceTurn += bytesRead) >= TURN_BYTES) {
      sinceTurn = 0;
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
}

/** sha256 of bytes [start, end) of a file, streamed. */
export async function hashRange(file: string, start: number, end: number): Promise<string> {
  const hash = sha256();
  for await (const chunk of readChunks(file, start, end)) hash.update(chunk);
  return hash.digest('hex');
}

/** How many lines bytes [start, end) of a file hold (a last line without newline counts). */
export async function countLines(file: string, start: number, end: number): Promise<number> {
  let lines = 0;
  let last = 10;
  for await (const chunk of readChunks(file, start, end)) {
    for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) lines++;
    last = chunk[chunk.length - 1]!;
  }
  return lines + (last === 10 ? 0 : 1);
}

/**
 * The first piece readLinesBackward reads; each next one is twice the last, up to CHUNK. A plan
 * usually needs the last few turns only (kilobytes), and a fresh 1 MiB buffer costs its page
 * faults and a copy of the whole megabyte: 64 KiB first took the bench's plan from ~7 to ~3 ms
 * of CPU (bench/README.md).
 */
const FIRST_BACKWARD_PIECE = 64 << 10;

/** Yields the lines of `file` before byte `end`, last first (for planning from the end). */
export async function* readLinesBackward(file: string, end: number): AsyncGenerator<RawLine> {
  const handle = await openFd(file, READ_FLAGS).catch((err) => {
    throw fsError(err, 'read', file);
  });
  try {
    // `buf` holds bytes [position, lineEnd): the unfinished region before the lines yielded so far.
    let position = end;
    let lineEnd = end;
    let buf: Buffer = Buffer.alloc(0);
    let index = 0;
    let piece = FIRST_BACKWARD_PIECE;
    while (lineEnd > 0) {
      // The line ending at lineEnd starts after the last newline before its own last byte.
      const nl = lineEnd - 1 - position > 0 ? buf.lastIndexOf(10, lineEnd - 2 - position) : -1;
      if (nl !== -1) {
        const start = position + nl + 1;
        yield { offset: start, index: index++, bytes: buf.subarray(nl + 1, lineEnd - position) };
        lineEnd = start;
        continue;
      }
      if (position === 0) {
        yield { offset: 0, index: index++, bytes: buf.subarray(0, lineEnd) };
        break;
      }
      // The next piece is read in front of the unfinished bytes, in one buffer: only those few
      // bytes are copied, not the megabyte read.
      const size = Math.min(piece, position);
      piece = Math.min(CHUNK, piece * 2);
      const rest = buf.subarray(0, lineEnd - position);
      const next = Buffer.allocUnsafe(size + rest.length);
      await handle.read(next, 0, size, position - size);
      rest.copy(next, size);
      position -= size;
      buf = next;
    }
  } finally {
    await handle.close().catch(() => {});
  }
}
