// A state file whose text goes into the agent's prompt as it is (the answer cache, the render
// cache): read only when it is a regular file of this user's that no one else may write. A link,
// or a file someone else planted or could change, reads as absent: the caller computes afresh.
// Node built-ins only: the answer cache's first stage (entries/first.ts) imports it.
import { closeSync, constants as fsConstants, fstatSync, openSync, readFileSync, type Stats } from 'node:fs';
import { MAX_STATE_BYTES, privatelyOwned } from './regular-file.js';

/** The file's text, or undefined when it is missing, unreadable, a link, not privately the user's, or larger than MAX_STATE_BYTES. */
export function readPrivateText(file: string): string | undefined {
  return readPrivateFile(file)?.text;
}

/** The file's text and its identity as it was read (fstat of the descriptor read), or undefined as readPrivateText. */
export function readPrivateFile(file: string): { text: string; stat: Stats } | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(file, fsConstants.O_RDONLY | fsConstants.O_NOFOLLOW | fsConstants.O_NONBLOCK);
    const stat = fstatSync(fd);
    // Over the bound for derived state: a miss, as one never written (regular-file.ts).
    if (!stat.isFile() || !privatelyOwned(stat) || stat.size > MAX_STATE_BYTES) return undefined;
    return { text: readFileSync(fd, 'utf8'), stat };
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
