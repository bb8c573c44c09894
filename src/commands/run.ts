// The commands' contract: what every command receives (where things live, how to print, the
// clock) and returns. The hosts above (src/cli.ts, src/entries/) build it; views take its Style.
import type { Where } from '../store/session.js';
import type { Style } from '../ui/color.js';

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
  /** Print `text` exactly as is (no newline added): filters such as `wmem prune`. */
  raw?: boolean;
  /** Non-zero when the command ran but reports a failure (sweep with failed deletions). */
  exitCode?: number;
}

const MAX_STDIN = 64 * 1024 * 1024;

export async function readStdin(stream: NodeJS.ReadableStream, what = 'standard input', options: { utf8?: boolean } = {}): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
    size += buf.length;
    if (size > MAX_STDIN) {
      const { usageError } = await import('../ui/errors.js');
      throw usageError(`${what} is larger than ${MAX_STDIN / 1024 / 1024} MiB`);
    }
    chunks.push(buf);
  }
  const bytes = Buffer.concat(chunks);
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
