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

/** The error for something at `file` that is not a regular file (`stat` is what fstat said). */
export function notRegular(file: string, stat: Stats): NodeJS.ErrnoException {
  const what = stat.isDirectory() ? 'a folder' : stat.isFIFO() ? 'a FIFO' : 'a socket or device';
  const err = new Error(`${file} is not a regular file (${what})`) as NodeJS.ErrnoException;
  err.code = stat.isDirectory() ? 'EISDIR' : 'ENOTREG';
  return err;
}

/** The bytes of the regular file `file` (links followed), or the open's error, or ENOTREG/EISDIR. */
export function readRegularSync(file: string): Buffer;
export function readRegularSync(file: string, encoding: 'utf8'): string;
export function readRegularSync(file: string, encoding?: 'utf8'): Buffer | string {
  const fd = openSync(file, READ_FLAGS);
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw notRegular(file, st);
    const bytes = Buffer.allocUnsafe(st.size);
    let got = 0;
    for (let n; got < st.size && (n = readSync(fd, bytes, got, st.size - got, got)) > 0; ) got += n;
    return encoding ? bytes.toString(encoding, 0, got) : bytes.subarray(0, got);
  } finally {
    closeSync(fd);
  }
}
