// The lean entry for the commands that run on every prompt: `wmem context` and `wmem hook EVENT`.
// It parses with node:util's parseArgs from the same option table as the full CLI and skips
// loading commander (~10 ms). Anything it does not recognise exactly (help, a typo, another
// command) returns false, and bin/wmem.js hands the whole command line to the full CLI, which
// gives the usual messages.
import { CONTEXT_OPTIONS, GLOBAL_OPTIONS, HOOK_OPTIONS, VERSION, parseFlags } from '../options.js';
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
  const specs = [...GLOBAL_OPTIONS, ...CONTEXT_OPTIONS, ...HOOK_OPTIONS];
  const parsed = parseLean(args, specs);
  if (!parsed) return false;
  const [command, ...rest] = parsed.positionals;
  const given = (table: typeof specs, except?: string) => table.some((s) => parseFlags(s).long !== except && parsed.values[parseFlags(s).long] !== undefined);
  const isContext = command === 'context' && rest.length === 0 && !given(HOOK_OPTIONS);
  // A hook takes one option of the context table: the user's window (`wmem install --tokens-max`).
  const isHook = command === 'hook' && rest.length === 1 && !given(CONTEXT_OPTIONS, 'tokens-max');
  if (!isContext && !isHook) return false;
  const options = leanOptions(specs, parsed.values, isContext);
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
