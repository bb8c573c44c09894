// Durable writes: a file written in pieces to a temp name, fsynced, then given its final name
// (never overwriting), raw appends that are fsynced, and the names of temps and new files.
import { constants as fsc } from 'node:fs';
import path from 'node:path';
import { FILE_MODE, appendDurably, ensureDir, fsyncDir } from '../../store/fsx.js';
import { linkFile, openFd, unlinkFile, type FdHandle } from '../../store/fd-handle.js';
import { fsError } from '../../ui/errors.js';
import { sha256, type Sha256 } from '../../memory/hash.js';
import { CHUNK, readChunks } from './read.js';

/** A file written in pieces to a temp name, fsynced, then linked into place (never overwriting). */
export class DurableFile {
  private handle?: FdHandle;
  private buffered: Buffer[] = [];
  private bufferedBytes = 0;
  private text: string[] = [];
  private textLength = 0;
  readonly hash?: Sha256;
  bytes = 0;

  constructor(
    readonly temp: string,
    withHash = false,
  ) {
    if (withHash) this.hash = sha256();
  }

  async open(): Promise<this> {
    await ensureDir(path.dirname(this.temp), true);
    try {
      this.handle = await openFd(this.temp, fsc.O_WRONLY | fsc.O_CREAT | fsc.O_TRUNC, FILE_MODE);
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
    await unlinkFile(this.temp).catch(() => {});
  }
}

export { fsyncDir };
/** Gives a complete temp file its final name, failing if that name is taken; the temp goes. */
export async function linkInto(temp: string, final: string): Promise<void> {
  try {
    await linkFile(temp, final);
  } catch (err) {
    throw fsError(err, 'create', final);
  }
  await unlinkFile(temp).catch(() => {});
  await fsyncDir(path.dirname(final));
}
/**
 * Appends raw bytes in one write and fsyncs (bytes, not text: nothing is re-encoded): the store's
 * durable append, which follows no link and takes a short write back to the file's old length.
 */
export async function appendBytes(file: string, bytes: Buffer): Promise<void> {
  await appendDurably(file, bytes, { what: `${bytes.length} bytes` });
}
/** A temp name beside `final`: `.<name>.<id>.<pid>.tmp` (hidden; removed by `removeStaleTemps` once its process is gone). */
export function tempFor(final: string, id: string): string {
  return path.join(path.dirname(final), `.${path.basename(final)}.${id}.${process.pid}.tmp`);
}

/** `dir/stem.ext`, or `dir/stem-2.ext`, … : a name that is not taken. */
export async function freeName(dir: string, stem: string, ext: string): Promise<string> {
  const { exists } = await import('../../store/fsx.js');
  let name = `${stem}${ext}`;
  for (let n = 2; await exists(path.join(dir, name)); n++) name = `${stem}-${n}${ext}`;
  return path.join(dir, name);
}
