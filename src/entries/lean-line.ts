// Which per-prompt command a command line is (`wmem context …` or `wmem hook …`), parsed the lean
// way (lean-args.ts) from the same command rows as the full CLI: shared by the hook's first stage
// (first-hook.ts) and the lean entry (fast.ts), so both take exactly the same command lines.
import { GLOBAL_OPTIONS, parseFlags } from '../options.js';
import { CONTEXT, HOOK } from './lean-commands.js';
import type { CommandData } from './commands.js';
import { leanOptions, parseLean, type ParsedLean } from './lean-args.js';

export interface LeanLine {
  command: 'context' | 'hook';
  /** The options object commander would give (defaults included). */
  options: Record<string, unknown>;
  /** The arguments after the command's name. */
  rest: string[];
}

/**
 * The command line as `context` or `hook`, or undefined: the full CLI should handle it. `read`:
 * what parseLean answers for it, when bin/wmem.js read the line already (bin's parseLine).
 */
export function leanLine(args: string[], read?: ParsedLean): LeanLine | undefined {
  const parsed = read ?? parseLean(args, [...GLOBAL_OPTIONS, ...CONTEXT.options!, ...HOOK.options!]);
  if (!parsed) return undefined;
  const [name, ...rest] = parsed.positionals;
  // The command's row must take every option given and as many arguments as were given.
  const takes = (spec: CommandData) =>
    name === spec.name &&
    rest.length === (spec.args ?? []).length &&
    Object.keys(parsed.values).every((long) => [...GLOBAL_OPTIONS, ...spec.options!].some((s) => parseFlags(s).long === long));
  const spec = takes(CONTEXT) ? CONTEXT : takes(HOOK) ? HOOK : undefined;
  if (!spec) return undefined;
  const options = leanOptions([...GLOBAL_OPTIONS, ...spec.options!], parsed.values, true);
  return options ? { command: spec.name as LeanLine['command'], options, rest } : undefined;
}
