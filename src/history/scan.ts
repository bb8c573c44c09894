// Streaming access to history files: lines as exact byte ranges (terminator included, a last
// line without newline included as is), copies of byte ranges, and a durable temp-file writer.
// Nothing here holds a whole file in memory.
import { createHash, type Hash } from 'node:crypto';
import { closeSync, fstatSync, fsyncSync, openSync, promises as fs, constants as fsc, readSync, renameSync, writeSync } from 'node:fs';
import path from 'node:path';
import { FILE_MODE, assertLocksHeld, ensureDir, fsyncDir } from '../store/fsx.js';
import { WmemError, fsError, ioError } from '../ui/errors.js';
import { isAtomicWriteLeftover, ownTempPid } from '../ops/sweep-plan.js';
import type { Session } from '../store/session.js';

export interface RawLine {
  /** Byte offset of the line's first byte. */
  offset: number;
  /** 0-based line index within the range read. */
  index: number;
  /** The line's bytes including its terminator (valid until the next iteration). */
  bytes: Buffer;
}

const CHUNK = 1 << 20;

/**
 * Yields the lines of `file` between byte `start` and `end` (default: the whole file), a chunk's
 * worth at a time (fewer async steps than one per line). Each batch is valid until the next.
 * `hash`, if given, is fed every byte read, in order: the digest of the range without a second read.
 */
export async function* readLineBatches(file: string, range: { start?: number; end?: number; hash?: Hash } = {}): AsyncGenerator<RawLine[]> {
  const handle = await fs.open(file, 'r').catch((err) => {
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

/** A file written in pieces to a temp name, fsynced, then linked into place (never overwriting). */
export class DurableFile {
  private handle?: fs.FileHandle;
  private buffered: Buffer[] = [];
  private bufferedBytes = 0;
  private text: string[] = [];
  private textLength = 0;
  readonly hash?: Hash;
  bytes = 0;

  constructor(
    readonly temp: string,
    withHash = false,
  ) {
    if (withHash) this.hash = createHash('sha256');
  }

  async open(): Promise<this> {
    await ensureDir(path.dirname(this.temp));
    try {
      this.handle = await fs.open(this.temp, fsc.O_WRONLY | fsc.O_CREAT | fsc.O_TRUNC, FILE_MODE);
    } catch (err) {
      throw fsError(err, 'create', this.temp);
    }
    return this;
  }

  /** Buffers `data`; true when enough is buffered that the caller should `await flushDue()`. */
  push(data: string): boolean {
    if (!data) return false;
    this.text.push(data);
    this.textLength += data.length;
    return this.textLength >= CHUNK;
  }

  async flushDue(options: { all?: boolean } = {}): Promise<void> {
    // Plain text with nothing else pending goes to the file as a string: one encode, no copies.
    if (!options.all && this.textLength < CHUNK && this.bufferedBytes < CHUNK) return;
    if (!this.hash && !this.bufferedBytes) return this.textLength ? this.writeText() : undefined;
    this.encodeText();
    if (this.bufferedBytes >= CHUNK) await this.flush();
  }

  private async writeText(): Promise<void> {
    const text = this.text.join('');
    this.text = [];
    this.textLength = 0;
    const size = Buffer.byteLength(text);
    this.bytes += size;
    try {
      const { bytesWritten } = await this.handle!.write(text);
      // A short write (rare) leaves the rest to the byte path.
      if (bytesWritten < size) {
        this.bytes -= size - bytesWritten;
        await this.write(Buffer.from(text).subarray(bytesWritten));
      }
    } catch (err) {
      throw fsError(err, 'write', this.temp);
    }
  }

  async write(data: Buffer | string): Promise<void> {
    if (typeof data === 'string') {
      // Text is gathered and encoded in large pieces (cheaper than one Buffer per string).
      if (!data) return;
      this.text.push(data);
      this.textLength += data.length;
      if (this.textLength >= CHUNK) this.encodeText();
    } else {
      if (!data.length) return;
      this.encodeText();
      this.hash?.update(data);
      this.bytes += data.length;
      // Copy: callers pass views into a reused read buffer.
      this.buffered.push(Buffer.from(data));
      this.bufferedBytes += data.length;
    }
    if (this.bufferedBytes >= CHUNK) await this.flush();
  }

  private encodeText(): void {
    if (!this.text.length) return;
    const buf = Buffer.from(this.text.join(''), 'utf8');
    this.text = [];
    this.textLength = 0;
    this.hash?.update(buf);
    this.bytes += buf.length;
    this.buffered.push(buf);
    this.bufferedBytes += buf.length;
  }

  /** Overwrites bytes at `position` (already written) in place, e.g. counts in front matter. */
  async patch(position: number, data: string): Promise<void> {
    await this.flush();
    const buf = Buffer.from(data, 'utf8');
    await this.handle!.write(buf, 0, buf.length, position);
  }

  private async flush(): Promise<void> {
    this.encodeText();
    if (!this.bufferedBytes) return;
    const data = this.buffered.length === 1 ? this.buffered[0]! : Buffer.concat(this.buffered, this.bufferedBytes);
    this.buffered = [];
    this.bufferedBytes = 0;
    try {
      let done = 0;
      while (done < data.length) done += (await this.handle!.write(data, done, data.length - done)).bytesWritten;
    } catch (err) {
      throw fsError(err, 'write', this.temp);
    }
  }

  /** Copies bytes [start, end) of `file` in. */
  async copyRange(file: string, start: number, end: number): Promise<void> {
    for await (const chunk of readChunks(file, start, end)) await this.write(chunk);
  }

  /** Flushes and fsyncs; the temp file is complete on disk. */
  async close(options: { sync?: boolean } = {}): Promise<string | undefined> {
    await this.flush();
    try {
      // A scratch file that is only copied elsewhere (and never renamed into place) needs no fsync.
      if (options.sync !== false) await this.handle?.sync();
    } catch (err) {
      throw fsError(err, 'sync', this.temp);
    } finally {
      await this.handle?.close().catch(() => {});
      this.handle = undefined;
    }
    return this.hash?.digest('hex');
  }

  /** Abandons the temp file. */
  async discard(): Promise<void> {
    await this.handle?.close().catch(() => {});
    this.handle = undefined;
    await fs.unlink(this.temp).catch(() => {});
  }
}

export { fsyncDir };

/**
 * Puts a complete temp file in place of `file`, keeping, in order, what an agent appends to the
 * old file meanwhile (`copiedTo`: how much of it the temp holds). Before the swap the temp catches
 * up with the old file until it stops growing. Bytes that still reach the old file between that
 * last look and the rename are older than anything appended to the new file after it: they go at
 * its end if nothing was, else before those by one more swap (putBefore). Every file swapped out
 * stays watched, `settleMs` after its last growth (at least SETTLE_MS once a second swap was
 * made), so that a writer that opened it just before a swap and writes a moment later is not
 * writing into a file nobody reads. Returns the old file's size up to which it carried.
 */
export async function replaceKeepingAppends(temp: string, file: string, old: fs.FileHandle, copiedTo: number, onCommit: () => void = () => {}, options: { settleMs?: number } = {}): Promise<number> {
  const caughtUp = await catchUp(temp, old, copiedTo);
  const { carried, held } = swapInOneTurn(temp, file, old, caughtUp);
  onCommit();
  const watched: Watched[] = [{ handle: old, from: carried }];
  let settleMs = options.settleMs ?? 0;
  try {
    const late = await bytesPast(old, carried, file);
    if (late.length) {
      const swappedOut = await putBefore(file, held, late);
      watched[0]!.from += late.length;
      if (swappedOut) {
        watched.push(swappedOut);
        settleMs = Math.max(settleMs, SETTLE_MS);
      }
    }
    await carryStragglers(watched, file, settleMs);
  } finally {
    for (const w of watched.slice(1)) await w.handle.close().catch(() => {});
  }
  await fsyncDir(path.dirname(file));
  return watched[0]!.from;
}

/** A file swapped out of `file`'s name, and how much of it the file in its place holds. */
interface Watched {
  handle: fs.FileHandle;
  from: number;
}

/**
 * How long a messages.jsonl that was swapped out is watched after its last growth (the full way
 * and restore, where the swap took its only name; a quick cut's old file lives on as the
 * archive, and its finishing waits as long before carrying what reached it).
 */
export const SETTLE_MS = 25;
/** How often a settling file is looked at, and the longest it is watched in all. */
const SETTLE_POLL_MS = 5;
const SETTLE_MAX_MS = 1000;

/**
 * Puts `late` (bytes that reached the old file just before the swap) into `file`, which held
 * `held` bytes when it took the name: appended, when nothing came after them; otherwise by one
 * more swap, a copy of the new file with `late` at `held`, so that they stay before what was
 * appended since. Returns the file swapped out then (to be watched), or undefined. If that swap
 * fails, `late` is appended instead: out of place, but kept.
 */
async function putBefore(file: string, held: number, late: Buffer): Promise<Watched | undefined> {
  if (appendIfNothingFollows(file, held, late)) return undefined;
  let current: fs.FileHandle;
  try {
    current = await fs.open(file, 'r');
  } catch (err) {
    throw fsError(err, 'read', file);
  }
  const again = new DurableFile(tempFor(file, 'carry'));
  try {
    const size = (await current.stat()).size;
    if (size > held) {
      await again.open();
      for await (const piece of readHandle(current, 0, held)) await again.write(piece);
      await again.write(late);
      for await (const piece of readHandle(current, held, size)) await again.write(piece);
      await again.close();
      const { carried: from } = swapInOneTurn(again.temp, file, current, await catchUp(again.temp, current, size));
      return { handle: current, from };
    }
  } catch {
    await again.discard();
  }
  await current.close().catch(() => {});
  await appendCarried(file, late);
  return undefined;
}

/**
 * Appends `late` to `file` if it still holds `held` bytes. Look and write are synchronous calls
 * in one turn, so no append from this process (a harness's own writer) comes between them.
 */
function appendIfNothingFollows(file: string, held: number, late: Buffer): boolean {
  let fd: number;
  try {
    fd = openSync(file, 'a', FILE_MODE);
  } catch (err) {
    throw fsError(err, 'append to', file);
  }
  try {
    if (fstatSync(fd).size > held) return false;
    for (let done = 0; done < late.length; ) done += writeSync(fd, late, done, late.length - done);
    fsyncSync(fd);
    return true;
  } catch (err) {
    throw fsError(err, 'append to', file);
  } finally {
    closeSync(fd);
  }
}

/** Bytes [start, end) of an open file, 1 MiB at a time (each piece valid until the next). */
async function* readHandle(handle: fs.FileHandle, start: number, end: number): AsyncGenerator<Buffer> {
  const buffer = Buffer.allocUnsafe(Math.max(1, Math.min(CHUNK, end - start)));
  for (let position = start; position < end; ) {
    const { bytesRead } = await handle.read(buffer, 0, Math.min(buffer.length, end - position), position);
    if (!bytesRead) return;
    position += bytesRead;
    yield buffer.subarray(0, bytesRead);
  }
}

/**
 * Appends to `file` what each watched file gained past what it holds of it, again and again
 * until none has grown for `settleMs`.
 */
async function carryStragglers(watched: Watched[], file: string, settleMs: number): Promise<void> {
  await untilStill(settleMs, async () => {
    let moved = false;
    for (const w of watched) {
      const grown = await bytesPast(w.handle, w.from, file);
      if (!grown.length) continue;
      await appendCarried(file, grown);
      w.from += grown.length;
      moved = true;
    }
    return moved;
  });
}

/**
 * Calls `look` (true: something moved) now and every few milliseconds until it has seen nothing
 * move for `settleMs`, or for a second in all.
 */
export async function untilStill(settleMs: number, look: () => Promise<boolean>): Promise<void> {
  const started = Date.now();
  for (let quietSince = started; ; ) {
    if (await look()) quietSince = Date.now();
    const now = Date.now();
    if (now - quietSince >= settleMs || now - started >= SETTLE_MAX_MS) return;
    await new Promise((resolve) => setTimeout(resolve, SETTLE_POLL_MS));
  }
}

async function appendCarried(file: string, bytes: Buffer): Promise<void> {
  try {
    await appendBytes(file, bytes);
  } catch (err) {
    throw ioError(
      `${bytes.length} bytes written to the old ${path.basename(file)} during the swap could not be added to ${file}: ${(err as Error).message}`,
      err,
      'the swap itself is done; the lines another program wrote at that instant are not in the file',
    );
  }
}

/**
 * The last catch-up and the rename, as synchronous calls in one turn of the event loop: no append
 * from this process (a harness writing from the same loop) can land between them, so such a
 * writer never reaches the old file after the swap and its lines keep their order. (Another
 * process can still write in that instant; replaceKeepingAppends carries those bytes.) The temp
 * already holds, fsynced, everything up to `from`. Returns how far it carried and its size.
 */
function swapInOneTurn(temp: string, file: string, old: fs.FileHandle, from: number): { carried: number; held: number } {
  let fd: number | undefined;
  try {
    const grown = Math.max(0, fstatSync(old.fd).size - from);
    fd = openSync(temp, 'a', FILE_MODE);
    if (grown) {
      const bytes = Buffer.alloc(grown);
      const got = readSync(old.fd, bytes, 0, grown, from);
      for (let done = 0; done < got; ) done += writeSync(fd, bytes, done, got - done);
      fsyncSync(fd);
      from += got;
    }
    const held = fstatSync(fd).size;
    closeSync(fd);
    fd = undefined;
    assertLocksHeld();
    renameSync(temp, file);
    return { carried: from, held };
  } catch (err) {
    if (fd !== undefined) closeSync(fd);
    if (err instanceof WmemError) throw err;
    throw fsError(err, 'replace', file);
  }
}

/** The bytes of an open file past `from` (what a short read returns if it shrank meanwhile). */
async function bytesPast(handle: fs.FileHandle, from: number, name: string): Promise<Buffer> {
  try {
    const size = (await handle.stat()).size;
    if (size <= from) return Buffer.alloc(0);
    const buf = Buffer.alloc(size - from);
    const { bytesRead } = await handle.read(buf, 0, buf.length, from);
    return buf.subarray(0, bytesRead);
  } catch (err) {
    throw fsError(err, 'read', name);
  }
}

/**
 * Appends to `temp` what `old` gained past `from`, until it stops growing (or a few dozen passes:
 * a writer that never pauses is left to the carry-over after the swap); returns how far it copied.
 */
async function catchUp(temp: string, old: fs.FileHandle, from: number): Promise<number> {
  let grown = await bytesPast(old, from, temp);
  if (!grown.length) return from;
  const handle = await fs.open(temp, 'a').catch((err) => {
    throw fsError(err, 'write', temp);
  });
  try {
    for (let pass = 0; grown.length && pass < 32; grown = await bytesPast(old, from, temp), pass++) {
      await handle.write(grown, 0, grown.length);
      from += grown.length;
    }
    await handle.sync();
  } catch (err) {
    throw fsError(err, 'write', temp);
  } finally {
    await handle.close();
  }
  return from;
}

/** Gives a complete temp file its final name, failing if that name is taken; the temp goes. */
export async function linkInto(temp: string, final: string): Promise<void> {
  try {
    await fs.link(temp, final);
  } catch (err) {
    throw fsError(err, 'create', final);
  }
  await fs.unlink(temp).catch(() => {});
  await fsyncDir(path.dirname(final));
}

/**
 * Bytes [start, end) of a file in 1 MiB pieces, each valid until the next is asked for. The
 * next piece is read while the caller works on this one (two buffers, taken in turn).
 */
export async function* readChunks(file: string, start: number, end: number): AsyncGenerator<Buffer> {
  if (end <= start) return;
  const handle = await fs.open(file, 'r').catch((err) => {
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

/** sha256 of bytes [start, end) of a file, streamed. */
export async function hashRange(file: string, start: number, end: number): Promise<string> {
  const hash = createHash('sha256');
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

/** Appends raw bytes in one write and fsyncs (bytes, not text: nothing is re-encoded). */
export async function appendBytes(file: string, bytes: Buffer): Promise<void> {
  const handle = await fs.open(file, 'a', FILE_MODE).catch((err) => {
    throw fsError(err, 'append to', file);
  });
  try {
    await handle.write(bytes, 0, bytes.length);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Yields the lines of `file` before byte `end`, last first (for planning from the end). */
export async function* readLinesBackward(file: string, end: number): AsyncGenerator<RawLine> {
  const handle = await fs.open(file, 'r').catch((err) => {
    throw fsError(err, 'read', file);
  });
  try {
    // `buf` holds bytes [position, lineEnd): the unfinished region before the lines yielded so far.
    let position = end;
    let lineEnd = end;
    let buf: Buffer = Buffer.alloc(0);
    let index = 0;
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
      const size = Math.min(CHUNK, position);
      const chunk = Buffer.allocUnsafe(size);
      await handle.read(chunk, 0, size, position - size);
      position -= size;
      buf = Buffer.concat([chunk, buf.subarray(0, lineEnd - position - size)]);
    }
  } finally {
    await handle.close().catch(() => {});
  }
}

/** A temp name beside `final`: `.<name>.<id>.<pid>.tmp` (hidden; removed by `removeStaleTemps` once its process is gone). */
export function tempFor(final: string, id: string): string {
  return path.join(path.dirname(final), `.${path.basename(final)}.${id}.${process.pid}.tmp`);
}

/** `dir/stem.ext`, or `dir/stem-2.ext`, … : a name that is not taken. */
export async function freeName(dir: string, stem: string, ext: string): Promise<string> {
  const { exists } = await import('../store/fsx.js');
  let name = `${stem}${ext}`;
  for (let n = 2; await exists(path.join(dir, name)); n++) name = `${stem}-${n}${ext}`;
  return path.join(dir, name);
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Deletes temp files that a killed wmem process left in `dirs` (names `.<…>.<pid>[.replaced].tmp`
 * whose process is gone). Call with the session lock held.
 */
export async function removeStaleTemps(dirs: string[]): Promise<number> {
  let removed = 0;
  for (const dir of dirs) {
    let names: string[];
    try {
      names = await fs.readdir(dir);
    } catch {
      continue;
    }
    for (const name of names) {
      const pid = ownTempPid(name);
      if (pid === undefined || pid === process.pid || processAlive(pid)) continue;
      await fs.unlink(path.join(dir, name)).then(
        () => removed++,
        () => {},
      );
    }
  }
  return removed;
}

/**
 * Removes what write-file-atomic leaves when its process is killed mid-write (see
 * isAtomicWriteLeftover: only beside the files wmem writes that way), `minAgeMs` old (a minute by
 * default: a live write takes milliseconds). `stateDir`: the folder whose JSON files are all wmem's.
 */
export async function removeAtomicLeftovers(dirs: string[], stateDir: string, minAgeMs = 60_000): Promise<number> {
  const now = Date.now();
  let removed = 0;
  for (const dir of dirs) {
    const names = await fs.readdir(dir).catch(() => [] as string[]);
    for (const name of names) {
      if (!isAtomicWriteLeftover(name, dir === stateDir)) continue;
      const file = path.join(dir, name);
      const st = await fs.lstat(file).catch(() => undefined);
      if (!st?.isFile() || now - st.mtimeMs < minAgeMs) continue;
      await fs.unlink(file).then(
        () => removed++,
        () => {},
      );
    }
  }
  return removed;
}

/** Both kinds of leftovers of killed wmem processes in a session. */
export async function removeSessionLeftovers(session: Session): Promise<void> {
  await removeStaleTemps(sessionTempDirs(session));
  await removeAtomicLeftovers([session.paths.dir, session.paths.stateDir, session.paths.workingMemory], session.paths.stateDir);
}

/** Where compaction, restore and transcript archiving put their temp files. */
export function sessionTempDirs(session: Session): string[] {
  return [session.paths.dir, session.paths.stateDir, session.paths.archiveDir, session.paths.detailDir];
}
