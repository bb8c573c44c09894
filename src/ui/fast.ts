// The lean entry for the commands that run on every prompt: `wmem context` and `wmem hook EVENT`.
// It parses with node:util's parseArgs from the same option table as the full CLI and skips
// loading commander (~10 ms). Anything it does not recognise exactly (help, a typo, another
// command) returns false, and bin/wmem.js hands the whole command line to the full CLI, which
// gives the usual messages.
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { CONTEXT_OPTIONS, GLOBAL_OPTIONS, VERSION, coerceOption, parseFlags, type OptionSpec } from '../options.js';
import { buildRunContext, printResult, reportError, writeStdout, type GlobalFlags } from './runtime.js';
import type { CommandResult, RunContext } from './run.js';
// Static, so the whole `context` path is in this one bundle file (no chunk loading per prompt).
import * as contextCommand from '../commands/context.js';

type Values = Record<string, string | boolean | undefined>;

function parse(args: string[], specs: OptionSpec[]): { values: Values; positionals: string[] } | undefined {
  const options: NonNullable<ParseArgsConfig['options']> = {};
  for (const spec of specs) {
    const { long, short, takesValue } = parseFlags(spec);
    options[long] = { type: takesValue ? 'string' : 'boolean', ...(short ? { short } : {}) };
  }
  try {
    const { values, positionals } = parseArgs({ args, options, strict: true, allowPositionals: true });
    return { values: values as Values, positionals };
  } catch {
    return undefined;
  }
}

/** Returns false when the full CLI should handle this command line. */
export async function runFast(argv: string[]): Promise<boolean> {
  const args = argv.slice(2);
  if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
    writeStdout(VERSION + '\n');
    return true;
  }
  if (args.includes('--')) return false;
  const specs = [...GLOBAL_OPTIONS, ...CONTEXT_OPTIONS];
  const parsed = parse(args, specs);
  if (!parsed) return false;
  const [command, ...rest] = parsed.positionals;
  const isContext = command === 'context' && rest.length === 0;
  const isHook = command === 'hook' && rest.length === 1 && !CONTEXT_OPTIONS.some((s) => parsed.values[parseFlags(s).long] !== undefined);
  if (!isContext && !isHook) return false;

  const options: Record<string, unknown> = {};
  try {
    for (const spec of specs) {
      const { long, key, negated } = parseFlags(spec);
      const raw = parsed.values[long];
      if (negated) options[key] = raw === true ? false : true;
      else if (typeof raw === 'string') options[key] = coerceOption(spec, raw);
      else if (raw !== undefined) options[key] = raw;
      else if (spec.default !== undefined && isContext) options[key] = spec.default;
    }
  } catch {
    return false;
  }
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
