// What every command receives (where things live, how to print, the clock) and returns.
import type { Where } from '../store/session.js';

export interface Style {
  bold(text: string): string;
  dim(text: string): string;
  red(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
  cyan(text: string): string;
}

export interface RunContext extends Where {
  json: boolean;
  quiet: boolean;
  color: boolean;
  style: Style;
  now: () => Date;
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  stderrIsTTY: boolean;
  /** A diagnostic line on stderr (suppressed by --quiet). */
  warn(message: string): void;
}

export interface CommandResult {
  /** What --json prints (one document). */
  data: unknown;
  /** What a person sees; defaults to the JSON, indented. */
  text?: string;
  /** Non-zero when the command ran but reports a failure (sweep with failed deletions). */
  exitCode?: number;
}

const MAX_STDIN = 64 * 1024 * 1024;

export async function readStdin(stream: NodeJS.ReadableStream, what = 'standard input'): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
    size += buf.length;
    if (size > MAX_STDIN) {
      const { usageError } = await import('./errors.js');
      throw usageError(`${what} is larger than ${MAX_STDIN / 1024 / 1024} MiB`);
    }
    chunks.push(buf);
  }
  return Buffer.concat(chunks).toString('utf8');
}
