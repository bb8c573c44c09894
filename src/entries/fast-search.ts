// The lean entry for `wmem search`: a search answers in about the time of a scan of the files it
// reads, and commander with the full command line's chunks was a good part of that. One file
// (dist/fast/fast-search.cjs, CommonJS: no ES module loader, no code splitting), parsed from the same row as the full CLI's
// command table (src/entries/lean-commands.ts); anything it does not take exactly (help, a typo, a word that starts with
// a dash) returns false, and bin/wmem.js hands the whole command line to the full CLI.
import { GLOBAL_OPTIONS, type OptionSpec } from '../options.js';
import { SEARCH } from './lean-commands.js';
import { buildRunContext, printResult, reportError, type GlobalFlags } from './runtime.js';
import { leanOptions, parseLean } from './lean-args.js';
import * as searchCommand from '../commands/search.js';

/** Returns false when the full CLI should handle this command line. */
export async function runSearch(argv: string[]): Promise<boolean> {
  const specs = [...GLOBAL_OPTIONS, ...(SEARCH.options as OptionSpec[])];
  const parsed = parseLean(argv.slice(2), specs);
  if (!parsed || parsed.positionals[0] !== 'search' || parsed.positionals.length < 2) return false;
  const options = leanOptions(specs, parsed.values, true);
  if (!options) return false;
  try {
    const ctx = await buildRunContext(options as GlobalFlags);
    printResult(await searchCommand.run({ ...options, heavy: tuneCompiler }, ctx, [parsed.positionals.slice(1)]), ctx);
  } catch (err) {
    reportError(err);
  }
  return true;
}

/**
 * A search process is all first runs: V8 compiles its hot loops (the index walk, the scoring)
 * while they run, on the same two cores. Inlining the ranking's callbacks into them made each
 * such compile 50-170 ms of CPU, and a changed callback threw it away; without inlining, a later
 * search takes ~20 % less CPU (bench/README.md), and computes the same (inlining never changes a
 * result). Only this process: the MCP server and the hooks keep V8's defaults. Only a search
 * that walks many lines (the search calls it then). Through node:v8's own binding (v8Flags):
 * node:v8 loads node:stream and the modules behind it on every heavy search (~7 ms of a
 * profiled run: bench/README.md, search14).
 */
function tuneCompiler(): void {
  // The build's run that writes this entry's code cache as it exits (WMEM_CODE_CACHE_WRITE,
  // build-code-cache.mjs searchRun) keeps V8's defaults: V8 refuses a cache made under other
  // flags, and every search starts under the defaults.
  const writing = process.env.WMEM_CODE_CACHE_WRITE;
  if (writing === '1' || writing === 'load') return;
  // V8 aborts the process on a flag change once flags are frozen (only `node --freeze-flags-after-init`,
  // which V8 also takes with underscores: --freeze_flags_after_init).
  if (process.execArgv.some((arg) => /freeze[-_]flags/.test(arg))) return;
  try {
    v8Flags()('--no-turbo-inlining');
  } catch {
    /* only speed */
  }
}

/**
 * V8's setFlagsFromString as node:v8 calls it (its binding takes the string alone), without loading
 * node:v8: process.binding('v8') on the Node majors known to have it, with deprecations muted
 * (process.binding is deprecated: a warning under --pending-deprecation, a throw under
 * --throw-deprecation), else node:v8's.
 */
function v8Flags(): (flags: string) => void {
  const major = Number(process.versions.node.split('.')[0]);
  const { binding: bindingOf } = process as { binding?: (name: string) => { setFlagsFromString?: unknown } };
  if (major >= 20 && major <= 24 && typeof bindingOf === 'function') {
    // Already muted (--no-deprecation makes it a read-only true, which strict code cannot assign).
    const mute = process.noDeprecation !== true;
    const own = Object.hasOwn(process, 'noDeprecation');
    const saved = process.noDeprecation;
    try {
      if (mute) process.noDeprecation = true;
      const binding = bindingOf.call(process, 'v8');
      const set = binding.setFlagsFromString;
      if (typeof set === 'function') return (flags) => set.call(binding, flags);
    } catch {
      // no such binding here (or the permission model refuses it): node:v8's
    } finally {
      if (mute && own) process.noDeprecation = saved;
      else if (mute) delete (process as { noDeprecation?: boolean }).noDeprecation;
    }
  }
  return process.getBuiltinModule('node:v8').setFlagsFromString;
}
