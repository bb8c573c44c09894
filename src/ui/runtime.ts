// The process side of running a command, shared by both entries: building the RunContext from
// global flags, printing a result, and turning errors into one line on stderr and an exit code.
import { WmemError, EXIT } from './errors.js';
import type { CommandResult, RunContext } from './run.js';
import { resolveHome } from '../store/paths.js';
import { PLAIN_STYLE, wantsColor, makeStyle } from './color.js';

export interface GlobalFlags {
  home?: string;
  cwd?: string;
  session?: string;
  json?: boolean;
  quiet?: boolean;
  /** false when --no-color was given. */
  color?: boolean;
}

export async function buildRunContext(flags: GlobalFlags): Promise<RunContext> {
  const env = process.env;
  const color = wantsColor(flags.color === false, env, Boolean(process.stdout.isTTY)) && !flags.json;
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
    stdin: process.stdin,
    stderrIsTTY: Boolean(process.stderr.isTTY),
    warn: (message) => {
      if (!quiet) process.stderr.write(message.endsWith('\n') ? message : message + '\n');
    },
  };
}

export function printResult(result: CommandResult, ctx: RunContext): void {
  if (ctx.json) {
    process.stdout.write(JSON.stringify(result.data, null, 2) + '\n');
  } else if (result.text !== undefined) {
    if (result.text !== '') process.stdout.write(result.text.endsWith('\n') ? result.text : result.text + '\n');
  } else {
    process.stdout.write(JSON.stringify(result.data, null, 2) + '\n');
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
