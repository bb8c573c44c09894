// The lean entry for `wmem compact`: the quick cut of a long history is timed against cp of the
// same file (bench/compact.mjs), and commander plus the full command line's chunks are a good
// part of that. It parses from the same command table as the full CLI (commands.ts); anything
// it does not take exactly (help, a typo, a refused value) returns false, and bin/wmem.js hands
// the whole command line to the full CLI, which says what is wrong.
import { GLOBAL_OPTIONS } from '../options.js';
import { COMPACT } from './lean-commands.js';
import { buildRunContext, exitWhenIdle, printResult, reportError, type GlobalFlags } from './runtime.js';
import { leanOptions, parseLean } from './lean-args.js';
import * as compactCommand from '../commands/compact.js';

/** Returns false when the full CLI should handle this command line. */
export async function runCompact(argv: string[]): Promise<boolean> {
  const specs = [...GLOBAL_OPTIONS, ...COMPACT.options!];
  const parsed = parseLean(argv.slice(2), specs);
  if (!parsed || parsed.positionals.length !== 1 || parsed.positionals[0] !== COMPACT.name) return false;
  const options = leanOptions(specs, parsed.values, true);
  if (!options) return false;
  try {
    const ctx = await buildRunContext(options as GlobalFlags);
    printResult(await compactCommand.run(options, ctx), ctx);
  } catch (err) {
    reportError(err);
  }
  exitWhenIdle();
  return true;
}
