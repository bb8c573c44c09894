// An open file's asynchronous calls through node:fs's callbacks, in the thread pool as a
// FileHandle's are, without loading node:fs's promise API: `require('node:fs').promises` loads
// node:internal/fs/promises and what it needs (streams, readline's interface): ~5 M instructions
// and ~80 page faults of every before-compact hook, the only hooks that loaded it (bench/README.md,
// cmp18). The hooks' archive path (read.ts, durable.ts,
// fsx.ts appendDurably: OpenCode's conversation) reads and writes through this instead; the
// surface is the part of FileHandle they use.
import { close, constants, fstat, fsync, ftruncate, link, lstat, open, read, unlink, write, type Mode, type OpenMode, type Stats } from 'node:fs';

/** The calls of an open file the archive path makes, as FileHandle's (same results, same errors). */
export interface FdHandle {
  readonly fd: number;
  read(buffer: Buffer, offset: number, length: number, position: number): Promise<{ bytesRead: number; buffer: Buffer }>;
  /** A string is written whole (from the file's current position); a buffer from `offset` for `length` bytes, at `position` when given. */
  write(data: Buffer | string, offset?: number, length?: number, position?: number | null): Promise<{ bytesWritten: number }>;
  stat(): Promise<Stats>;
  sync(): Promise<void>;
  truncate(length: number): Promise<void>;
  /** Closes once; later calls do nothing. */
  close(): Promise<void>;
}

/** A node:fs callback call as a promise (what node:internal/fs/promises would give). */
function call<T>(start: (done: (err: NodeJS.ErrnoException | null, value?: T) => void) => void): Promise<T> {
  return new Promise<T>((resolve, reject) => start((err, value) => (err ? reject(err) : resolve(value as T))));
}

/** Opens `file` (fs.promises.open's flags and mode) and gives its calls as promises. */
export async function openFd(file: string, flags: OpenMode, mode?: Mode): Promise<FdHandle> {
  const fd = await call<number>((done) => open(file, flags, mode, done));
  let closed = false;
  return {
    fd,
    read: (buffer, offset, length, position) => call((done) => read(fd, buffer, offset, length, position, (err, bytesRead) => done(err, { bytesRead, buffer }))),
    write: (data, offset, length, position) =>
      call((done) =>
        typeof data === 'string'
          ? write(fd, data, null, 'utf8', (err, bytesWritten) => done(err, { bytesWritten }))
          : write(fd, data, offset ?? 0, length ?? data.length - (offset ?? 0), position ?? null, (err, bytesWritten) => done(err, { bytesWritten })),
      ),
    stat: () => call((done) => fstat(fd, done)),
    sync: () => call<void>((done) => fsync(fd, done)),
    truncate: (length) => call<void>((done) => ftruncate(fd, length, done)),
    close: () => {
      if (closed) return Promise.resolve();
      closed = true;
      return call<void>((done) => close(fd, done));
    },
  };
}

/**
 * Flushes `file` to disk (fsync through a read-only open: Linux and the BSDs sync any descriptor's
 * file). Non-blocking and not through a link: a FIFO or a link planted at the name never holds a
 * pool thread or syncs another file.
 */
export async function syncFile(file: string): Promise<void> {
  const handle = await openFd(file, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** fs.promises.link, unlink and lstat, the same way. */
export const linkFile = (from: string, to: string): Promise<void> => call<void>((done) => link(from, to, done));
export const unlinkFile = (file: string): Promise<void> => call<void>((done) => unlink(file, done));
export const lstatFile = (file: string): Promise<Stats> => call((done) => lstat(file, done));
