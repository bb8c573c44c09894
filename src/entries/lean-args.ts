// Flag parsing for the lean entries (fast.ts, fast-compact.ts, fast-mcp.ts): node:util's parseArgs
// over the shared option tables (src/options.ts, and each command's row in commands.ts), with the
// same checks as the full command line. Anything it does not take exactly gives undefined, and the
// full command line then handles (and explains) the whole command.
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { coerceOption, parseFlags, type OptionSpec } from '../options.js';

type Values = Record<string, string | boolean | undefined>;

/** A command line's options by long name, and its words, as parseArgs answers them. */
export interface ParsedLean {
  values: Values;
  positionals: string[];
}

export function parseLean(args: string[], specs: OptionSpec<unknown>[]): ParsedLean | undefined {
  if (args.includes('--')) return undefined;
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

/** The options object commander would give, or undefined when a value is refused (the full CLI says why). */
export function leanOptions(specs: OptionSpec<unknown>[], values: Values, withDefaults: boolean): Record<string, unknown> | undefined {
  const options: Record<string, unknown> = {};
  try {
    for (const spec of specs) {
      const { long, key, negated } = parseFlags(spec);
      const raw = values[long];
      if (negated) options[key] = raw === true ? false : true;
      else if (typeof raw === 'string') options[key] = coerceOption(spec, raw);
      else if (raw !== undefined) options[key] = raw;
      else if (spec.default !== undefined && withDefaults) options[key] = spec.default;
    }
  } catch {
    return undefined;
  }
  return options;
}
