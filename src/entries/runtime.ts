// The process side of running a command, shared by both entries: building the RunContext from
// global flags, printing a result, and turning errors into one line on stderr and an exit code.
import { fstatSync } from 'node:fs';
import { writeStdout, writeStdoutSettled } from './stdout.js';
import { WmemError, EXIT } from '../ui/errors.js';
import type { CommandResult, RunContext } from '../commands/run.js';
import { resolveHome } from '../store/paths.js';
import { PLAIN_STYLE, wantsColor, makeStyle } from '../ui/color.js';

export { writeStdout };

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
    writeStdout: writeStdoutSettled,
    get stderrIsTTY() {
      return isTerminal(2);
    },
    warn: (message) => {
      if (!quiet) process.stderr.write(message.endsWith('\n') ? message : message + '\n');
    },
  };
}

/** The exact bytes a result prints on stdout (the answer cache keeps them). */
export function stdoutOf(result: CommandResult, ctx: RunContext): string {
  if (ctx.json) return JSON.stringify(result.data, null, 2) + '\n';
  if (result.raw && result.text !== undefined) return result.text;
  if (result.text !== undefined) return result.text === '' || result.text.endsWith('\n') ? result.text : result.text + '\n';
  return JSON.stringify(result.data, null, 2) + '\n';
}

export function printResult(result: CommandResult, ctx: RunContext): void {
  const text = stdoutOf(result, ctx);
  // A raw filter's output may be large: the stream takes it without blocking.
  if (result.raw && result.text !== undefined && !ctx.json) process.stdout.write(text);
  else if (text !== '') writeStdout(text);
  if (result.exitCode) process.exitCode = result.exitCode;
}

/**
 * Ends the process as soon as nothing is left to run (no handle, request, timer or immediate: a
 * write or a close still under way counts), else when the event loop has emptied: either way
 * before Node's own teardown (the environment freed, the heap unmapped page by page), which this
 * command does not need and which took the compact return 8-60 ms at load (bench/README.md,
 * compact11). process.exit keeps process.exitCode and runs the 'exit' listeners. Only for code
 * with no thread-pool job outside a request: async crypto and zlib are not in
 * getActiveResourcesInfo() and would be cut (the compact entry runs neither).
 */
export function exitWhenIdle(): void {
  setImmediate(() => {
    if (process.getActiveResourcesInfo().length === 0) process.exit();
    else process.once('beforeExit', () => process.exit());
  });
}

/**
 * The reader of our output went away (`wmem status | head -1`): what it did not read it did not
 * want. Like other Unix tools, the command ends quietly and successfully then.
 */
export function isBrokenPipe(err: unknown): boolean {
  return (err as NodeJS.ErrnoException | undefined)?.code === 'EPIPE';
}

export function reportError(err: unknown): void {
  if (isBrokenPipe(err)) {
    process.exitCode = EXIT.ok;
    return;
  }
  if (err instanceof WmemError) {
    process.stderr.write(`wmem: ${err.message}\n`);
    if (err.hint) process.stderr.write(`  ${err.hint}\n`);
    process.exitCode = err.exitCode;
    return;
  }
  process.stderr.write(`wmem: internal error, please report it with the lines below\n${(err as Error)?.stack ?? String(err)}\n`);
  process.exitCode = EXIT.failed;
}
