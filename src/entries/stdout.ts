// Output straight to the descriptors, shared by the first stage (first.ts) and the lean entries.
import { writeSync } from 'node:fs';

/**
 * Writes to fd 1 directly: touching process.stdout builds a stream (and loads net and the stream
 * modules), which costs milliseconds on every prompt. Falls back to the stream if the descriptor
 * is non-blocking and full.
 */
export function writeStdout(text: string): void {
  const bytes = Buffer.from(text, 'utf8');
  let offset = 0;
  try {
    while (offset < bytes.length) offset += writeSync(1, bytes, offset, bytes.length - offset);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EAGAIN') throw err;
    process.stdout.write(bytes.subarray(offset));
  }
}
