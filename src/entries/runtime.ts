// The process side of running a command, shared by both entries: building the RunContext from
// global flags, printing a result, and turning errors into one line on stderr and an exit code.
import { fstatSync, writeSync } from 'node:fs';
import { WmemError, EXIT } from '../ui/errors.js';
import type { CommandResult, RunContext } from '../commands/run.js';
import { resolveHome } from '../store/paths.js';
import { PLAIN_STYLE, wantsColor, makeStyle } from '../ui/color.js';

export interface GlobalFlags {
  home?: string;
  cwd?: string;
  session?: string;
  json?: boolean;
  quiet?: boolean;
  /** false when --no-color was given. */
  color?: boolean;
}

/**
 * Whether fd 1 or 2 is a terminal, without building process.stdout or .stderr (a file or a pipe
 * there loads node:stream, ~10 ms of `wmem compact`'s return): only a character device can be
 * one, and only then is node:tty asked.
 */
function isTerminal(fd: 1 | 2): boolean {
  try {
    return fstatSync(fd).isCharacterDevice() && process.getBuiltinModule('node:tty').isatty(fd);
  } catch {
    return false;
  }
}

/**
 * `plain` is for machine-facing output (context, hooks): no colour decision at all, because
 * asking whether stdout is a terminal builds the stdout stream, which costs time on every prompt.
 */
export async function buildRunContext(flags: GlobalFlags, options: { plain?: boolean } = {}): Promise<RunContext> {
  const env = process.env;
  const color = !options.plain && !flags.json && wantsColor(flags.color === false, env, isTerminal(1));
  const quiet = Boolean(flags.quiet);
  return {
    home: resolveHome(flags.home, env),
    cwd: flags.cwd ?? process.cwd(),
    sessionFlag: flags.session,
    env,
    json: Boolean(flags.json),
    quiet,
    color,
    style: color ? await makeStyle(true) : PLAIN_STYLE,
    now: () => new Date(),
    // A getter: touching process.stdin builds a stream, which only commands that read it need.
    get stdin() {
      return process.stdin;
    },
    stdinFd: 0,
    get stderrIsTTY() {
      return isTerminal(2);
    },
    warn: (message) => {
      if (!quiet) process.stderr.write(message.endsWith('\n') ? message : message + '\n');
    },
  };
}

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

export function printResult(result: CommandResult, ctx: RunContext): void {
  if (ctx.json) {
    writeStdout(JSON.stringify(result.data, null, 2) + '\n');
  } else if (result.raw && result.text !== undefined) {
    process.stdout.write(result.text);
  } else if (result.text !== undefined) {
    if (result.text !== '') writeStdout(result.text.endsWith('\n') ? result.text : result.text + '\n');
  } else {
    writeStdout(JSON.stringify(result.data, null, 2) + '\n');
  }
  if (result.exitCode) process.exitCode = result.exitCode;
}

export function reportError(err: unknown): void {
  if (err instanceof WmemError) {
    process.stderr.write(`wmem: ${err.message}\n`);
    if (err.hint) process.stderr.write(`  ${err.hint}\n`);
    process.exitCode = err.exitCode;
    return;
  }
  process.stderr.write(`wmem: internal error, please report it with the lines below\n${(err as Error)?.stack ?? String(err)}\n`);
  process.exitCode = EXIT.failed;
}
