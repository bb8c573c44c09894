// The commands' contract: what every command receives (where things live, how to print, the
// clock) and returns. The hosts above (src/cli.ts, src/entries/) build it; views take its Style.
import { readSync } from 'node:fs';
import type { Where } from '../store/session.js';
import type { Style } from '../ui/color.js';
import type { AppEnv } from '../app/env.js';

export interface RunContext extends Where {
  json: boolean;
  quiet: boolean;
  color: boolean;
  style: Style;
  now: () => Date;
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  /** The descriptor behind `stdin`, when it may be read directly (readInputText). */
  stdinFd?: number;
  /** Standard input already read whole (a first stage read it, then handed the command over). */
  inputText?: string;
  stderrIsTTY: boolean;
  /** A diagnostic line on stderr (suppressed by --quiet). */
  warn(message: string): void;
  loadConsolidation?: AppEnv['loadConsolidation'];
  /**
   * Writes to stdout now (a hook gives its answer before it records that it did): undefined when
   * written, else a promise of the write's end (entries/stdout.ts writeStdoutSettled).
   */
  writeStdout?: (text: string) => Promise<void> | undefined;
}

export interface CommandResult {
  /** What --json prints (one document). */
  data: unknown;
  /** What a person sees; defaults to the JSON, indented. */
  text?: string;
  /** Print `text` exactly as is (no newline added): filters such as `wmem prune`. */
  raw?: boolean;
  /** Non-zero when the command ran but reports a failure (sweep with failed deletions). */
  exitCode?: number;
  /** The answer may be kept for the first stage (store/answers.ts): where, and what it was computed from. */
  answerCache?: { stateDir: string; inputs: [string, string][] };
}

const MAX_STDIN = 64 * 1024 * 1024;

/**
 * The whole of standard input as text, read straight from its descriptor when the context has one:
 * building process.stdin (a stream) costs a hook ~6 ms, every prompt and every tool call. A
 * descriptor that would block (non-blocking, nothing there yet) hands over to the stream, after
 * what was read so far.
 */
export async function readInputText(ctx: RunContext, what: string): Promise<string> {
  // Kept on the context: standard input is read once, and a first stage that hands the command
  // over passes what it read (entries/first-hook.ts).
  if (ctx.inputText === undefined) ctx.inputText = await readInputOnce(ctx, what);
  return ctx.inputText;
}

async function readInputOnce(ctx: RunContext, what: string): Promise<string> {
  if (ctx.stdinFd === undefined) return readStdin(ctx.stdin, what);
  const chunks: Buffer[] = [];
  let size = 0;
  for (;;) {
    const chunk = Buffer.allocUnsafe(64 * 1024);
    let n: number;
    try {
      n = readSync(ctx.stdinFd, chunk, 0, chunk.length, null);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'EOF') break;
      if (code !== 'EAGAIN' && code !== 'EBADF') throw err;
      return Buffer.concat([...chunks, await readStreamBytes(ctx.stdin, what, size)]).toString('utf8');
    }
    if (n === 0) break;
    size += n;
    if (size > MAX_STDIN) throw await tooLarge(what);
    chunks.push(chunk.subarray(0, n));
  }
  return Buffer.concat(chunks).toString('utf8');
}

export async function readStdin(stream: NodeJS.ReadableStream, what = 'standard input', options: { utf8?: boolean } = {}): Promise<string> {
  const bytes = await readStreamBytes(stream, what);
  if (options.utf8) {
    try {
      return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    } catch {
      const { usageError } = await import('../ui/errors.js');
      throw usageError(`${what} is not UTF-8 text`, 'memory holds text; pass a file of text, or save binary output elsewhere and note its path');
    }
  }
  return bytes.toString('utf8');
}

async function readStreamBytes(stream: NodeJS.ReadableStream, what: string, size = 0): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
    size += buf.length;
    if (size > MAX_STDIN) throw await tooLarge(what);
    chunks.push(buf);
  }
  return Buffer.concat(chunks);
}

async function tooLarge(what: string): Promise<Error> {
  const { usageError } = await import('../ui/errors.js');
  return usageError(`${what} is larger than ${MAX_STDIN / 1024 / 1024} MiB`);
}
