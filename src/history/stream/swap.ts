// The swap of messages.jsonl for a complete temp file (compaction, restore, consolidation's
// streams) while an agent may still be appending to it: the temp catches up, the rename, and
// the carrying over of what reaches the old file around that instant.
import { closeSync, fstatSync, fsyncSync, openSync, promises as fs, readSync, renameSync, writeSync } from 'node:fs';
import path from 'node:path';
import { FILE_MODE, assertLocksHeld, fsyncDir } from '../../store/fsx.js';
import { WmemError, fsError, ioError } from '../../ui/errors.js';
import { CHUNK } from './read.js';
import { DurableFile, appendBytes, tempFor } from './durable.js';

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
 * Calls `look` (true: something moved) now and every few milliseconds until a look that began
 * `settleMs` after the last movement (or the start) saw nothing move, or until a look begins
 * `maxMs` after the start (a file that never stops growing). Times are taken on the safe side of
 * each look: a look can take long on a loaded machine (its stat waits for the thread pool, the
 * process is descheduled), and what it saw is as old as its start, so a quiet stat made early
 * must not count as quiet up to when it returned, nor a slow look use up the cap.
 */
export async function untilStill(settleMs: number, look: () => Promise<boolean>, maxMs = SETTLE_MAX_MS): Promise<void> {
  const started = Date.now();
  for (let quietSince = started; ; ) {
    const lookedAt = Date.now();
    if (await look()) quietSince = Date.now();
    else if (lookedAt - quietSince >= settleMs) return;
    if (lookedAt - started >= maxMs) return;
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

/**
 * The bytes of an open file past `from` (what a short read returns if it shrank meanwhile). Its
 * size by a synchronous fstat (microseconds): most looks find nothing, and each trip through the
 * thread pool is a wake-up of a pool thread and of the event loop, twice on either side of a
 * compaction's commit (bench/README.md, ret13).
 */
async function bytesPast(handle: fs.FileHandle, from: number, name: string): Promise<Buffer> {
  try {
    const size = fstatSync(handle.fd).size;
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
