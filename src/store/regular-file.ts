// Reads of the files wmem keeps under its home (pointers, metadata, memory, hook states). A FIFO
// planted at such a name would block a plain open for ever (a hook that never returns, and that
// SIGTERM does not stop), and a link to a device would read without end: the open is
// non-blocking (no effect on a regular file) and what fstat says is not a regular file is refused
// with code ENOTREG (EISDIR for a folder), which callers treat as a damaged file. The same
// syscalls as readFileSync(path): open, fstat, read, close.
// Node built-ins only: the first stages (entries/first.ts) import it.
import { closeSync, constants as fsc, fstatSync, openSync, readSync, type Stats } from 'node:fs';

/** open(2) flags for reading a file wmem keeps: never blocks on a FIFO, never takes a terminal. */
export const READ_FLAGS = fsc.O_RDONLY | fsc.O_NONBLOCK | fsc.O_NOCTTY;

/**
 * READ_FLAGS for a pointer wmem writes itself (a project's `current`): a link planted at its name
 * is refused (ELOOP), not followed to a file outside the home whose first line would be echoed
 * back as the session id. Checked by the open itself: no extra system call.
 */
export const POINTER_FLAGS = READ_FLAGS | fsc.O_NOFOLLOW;

/** The error for something at `file` that is not a regular file (`stat` is what fstat said). */
export function notRegular(file: string, stat: Stats): NodeJS.ErrnoException {
  const what = stat.isDirectory() ? 'a folder' : stat.isFIFO() ? 'a FIFO' : 'a socket or device';
  const err = new Error(`${file} is not a regular file (${what})`) as NodeJS.ErrnoException;
  err.code = stat.isDirectory() ? 'EISDIR' : 'ENOTREG';
  return err;
}

/**
 * The most a state file wmem derives is read at (state/*.json: the render and answer caches, the
 * hook and hot states, all well under 1 MiB in use). One larger (grown by hand, or by a runaway
 * writer) is ignored as a miss, neither read nor parsed, and rebuilt: read whole, a 150 MB cache
 * would cost every prompt its read and its parse.
 */
export const MAX_STATE_BYTES = 16 * 1024 * 1024;

/** The error for a file larger than the `max` its reader takes (code EFBIG). */
function tooLarge(file: string, size: number, max: number): NodeJS.ErrnoException {
  const err = new Error(`${file} is larger than ${max} bytes (${size}): not read`) as NodeJS.ErrnoException;
  err.code = 'EFBIG';
  return err;
}

/**
 * Whether a file is the user's own and no one else may write it: what a state file wmem derives
 * must be to be read (its text is served as it is, docs/guarantees.md).
 */
export function privatelyOwned(st: Stats): boolean {
  return (typeof process.getuid !== 'function' || st.uid === process.getuid()) && (st.mode & 0o022) === 0;
}

/**
 * The bytes of the regular file `file` (links followed, unless `flags` say O_NOFOLLOW: ELOOP), or
 * the open's error, or ENOTREG/EISDIR, or EFBIG when it is larger than `max` bytes (nothing read),
 * or with `owned`, ENOTOWN when it is not privatelyOwned.
 */
export function readRegularSync(file: string): Buffer;
export function readRegularSync(file: string, encoding: 'utf8', max?: number, flags?: number, owned?: boolean): string;
export function readRegularSync(file: string, encoding?: 'utf8', max = Infinity, flags = READ_FLAGS, owned = false): Buffer | string {
  const fd = openSync(file, flags);
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw notRegular(file, st);
    if (st.size > max) throw tooLarge(file, st.size, max);
    if (owned && !privatelyOwned(st)) throw Object.assign(new Error(`${file} is not the user's alone: not read`), { code: 'ENOTOWN' });
    const bytes = Buffer.allocUnsafe(st.size);
    let got = 0;
    for (let n; got < st.size && (n = readSync(fd, bytes, got, st.size - got, got)) > 0; ) got += n;
    return encoding ? bytes.toString(encoding, 0, got) : bytes.subarray(0, got);
  } finally {
    closeSync(fd);
  }
}

/**
 * A derived state file's text (readRegularSync's, bounded by MAX_STATE_BYTES), or undefined when
 * there is none, it is larger, it is a symbolic link (the open refuses it: no extra system call)
 * or it is not privately the user's (what fstat said already): a miss for its reader, which
 * rebuilds it. The hook states, the hot state and the decision offer's record are read here.
 */
export function readStateSync(file: string): string | undefined {
  try {
    return readRegularSync(file, 'utf8', MAX_STATE_BYTES, POINTER_FLAGS, true);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException)?.code;
    if (isMiss(err) || code === 'ELOOP' || code === 'ENOTOWN') return undefined;
    throw err;
  }
}

/** Whether a bounded read's error means "no such file to use": none there (ENOENT), or over its bound (EFBIG). */
export function isMiss(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException)?.code;
  return code === 'ENOENT' || code === 'EFBIG';
}
