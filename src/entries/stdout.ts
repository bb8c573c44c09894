// Output straight to the descriptors, shared by the first stage (first.ts) and the lean entries.
import { writeSync } from 'node:fs';

/**
 * Writes to fd 1 directly: touching process.stdout builds a stream (and loads net and the stream
 * modules), which costs milliseconds on every prompt. Falls back to the stream if the descriptor
 * is non-blocking and full.
 */
export function writeStdout(text: string): void {
  const rest = writeWhatFits(text);
  if (rest) process.stdout.write(rest);
}

/**
 * The same write, for a caller that records what it wrote (a hook's "delivered" record):
 * undefined when the whole text went out now (a blocking pipe, a file: the usual path, no
 * promise); else a promise settled once the stream has handed the rest to the kernel, or rejected
 * when it cannot (the reader gone: EPIPE). The record is written after it, or not at all.
 */
export function writeStdoutSettled(text: string): Promise<void> | undefined {
  const rest = writeWhatFits(text);
  if (!rest) return undefined;
  return new Promise((resolve, reject) => {
    // The stream emits its error besides the write's callback: unheard, it would end the process.
    process.stdout.on('error', reject);
    process.stdout.write(rest, (err) => (err ? reject(err) : resolve()));
  });
}

/** Writes what fd 1 takes now; what is left when it is non-blocking and full (EAGAIN), else undefined. */
function writeWhatFits(text: string): Buffer | undefined {
  const bytes = Buffer.from(text, 'utf8');
  let offset = 0;
  try {
    while (offset < bytes.length) offset += writeSync(1, bytes, offset, bytes.length - offset);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EAGAIN') throw err;
    return bytes.subarray(offset);
  }
  return undefined;
}
