// Flag parsing for the lean entries (fast.ts, fast-compact.ts, fast-mcp.ts, and the hook's first
// stages through lean-line.ts): node:util's parseArgs (strict) over the shared option tables
// (src/options.ts, and each command's row in commands.ts), with the same checks as the full command
// line. Anything it does not take exactly gives undefined, and the full command line then handles
// (and explains) the whole command.
import type { ParseArgsConfig } from 'node:util';
import { coerceOption, parseFlags, type OptionSpec } from '../options.js';

type Values = Record<string, string | boolean | undefined>;
type Options = NonNullable<ParseArgsConfig['options']>;

/** A command line's options by long name, and its words, as parseArgs answers them. */
export interface ParsedLean {
  values: Values;
  positionals: string[];
}

export function parseLean(args: string[], specs: OptionSpec<unknown>[]): ParsedLean | undefined {
  if (args.includes('--')) return undefined;
  const options: Options = {};
  for (const spec of specs) {
    const { long, short, takesValue } = parseFlags(spec);
    options[long] = { type: takesValue ? 'string' : 'boolean', ...(short ? { short } : {}) };
  }
  const plain = readPlain(args, options);
  if (plain) return plain;
  try {
    const { values, positionals } = process.getBuiltinModule('node:util').parseArgs({ args, options, strict: true, allowPositionals: true });
    return { values: values as Values, positionals };
  } catch {
    return undefined;
  }
}

/**
 * A command line of known options in their plain forms (`--name`, `--name=value`, `--name value`,
 * `-x`, `-x value`) read as parseArgs reads it, without it: Node compiles parseArgs' ~34 KB of
 * JavaScript on first use (~5 M instructions of every hook's ~145). Undefined for anything else
 * (an unknown option, a group of short ones, a missing or dash-led value, a boolean given a value),
 * which parseArgs itself then takes or refuses (test/unit/lean-args.test.ts: the same answers).
 */
function readPlain(args: string[], options: Options): ParsedLean | undefined {
  const shorts = new Map<string, string>(Object.entries(options).flatMap(([long, o]) => (o.short ? [[`-${o.short}`, long] as const] : [])));
  const values: Values = Object.create(null);
  const positionals: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg.length < 2 || arg[0] !== '-') {
      positionals.push(arg);
      continue;
    }
    const eq = arg.startsWith('--') ? arg.indexOf('=') : -1;
    const long = arg.startsWith('--') ? arg.slice(2, eq < 0 ? undefined : eq) : shorts.get(arg);
    const option = long !== undefined && Object.hasOwn(options, long) ? options[long]! : undefined;
    if (!option) return undefined;
    if (option.type === 'boolean') {
      if (eq >= 0) return undefined;
      values[long!] = true;
      continue;
    }
    const value = eq >= 0 ? arg.slice(eq + 1) : args[++i];
    if (value === undefined || (eq < 0 && value.length > 1 && value[0] === '-')) return undefined;
    values[long!] = value;
  }
  return { values, positionals };
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
