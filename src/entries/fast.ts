// The lean entry for the commands that run on every prompt: `wmem context` and `wmem hook EVENT`.
// It parses with node:util's parseArgs from the same command table as the full CLI and skips
// loading commander (~10 ms). Anything it does not recognise exactly (help, a typo, another
// command) returns false, and bin/wmem.js hands the whole command line to the full CLI, which
// gives the usual messages.
import { GLOBAL_OPTIONS, VERSION, parseFlags } from '../options.js';
import { CONTEXT, HOOK } from './lean-commands.js';
import type { CommandData } from './commands.js';
import { buildRunContext, printResult, reportError, writeStdout, type GlobalFlags } from './runtime.js';
import type { CommandResult, RunContext } from '../commands/run.js';
import { leanOptions, parseLean } from './lean-args.js';
// Static, so the whole `context` path is in this one bundle file (no chunk loading per prompt).
import * as contextCommand from '../commands/context.js';

/** Returns false when the full CLI should handle this command line. */
export async function runFast(argv: string[]): Promise<boolean> {
  const args = argv.slice(2);
  if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
    writeStdout(VERSION + '\n');
    return true;
  }
  const parsed = parseLean(args, [...GLOBAL_OPTIONS, ...CONTEXT.options!, ...HOOK.options!]);
  if (!parsed) return false;
  const [name, ...rest] = parsed.positionals;
  // The command's row must take every option given and as many arguments as were given.
  const takes = (spec: CommandData) =>
    name === spec.name &&
    rest.length === (spec.args ?? []).length &&
    Object.keys(parsed.values).every((long) => [...GLOBAL_OPTIONS, ...spec.options!].some((s) => parseFlags(s).long === long));
  const isContext = takes(CONTEXT);
  const isHook = takes(HOOK);
  if (!isContext && !isHook) return false;
  const options = leanOptions([...GLOBAL_OPTIONS, ...(isContext ? CONTEXT : HOOK).options!], parsed.values, true);
  if (!options) return false;
  try {
    const ctx = await buildRunContext(options as GlobalFlags, { plain: true });
    const command: { run: (o: never, c: RunContext, a: string[]) => Promise<CommandResult> } = isContext
      ? contextCommand
      : await import('../commands/hook.js');
    printResult(await command.run(options as never, ctx, rest), ctx);
  } catch (err) {
    // A hook never fails the agent: the hook command logs its own errors; this is the last guard.
    if (isHook) process.exitCode = 0;
    else reportError(err);
  }
  return true;
}
