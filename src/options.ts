// Options as data, shared by the full command line (commander) and the lean entries (`context` and
// `hook`, which run on every prompt, `compact`, timed against cp, and `mcp`), which parse with
// node:util's parseArgs so that they do not pay for loading commander: the global options here,
// each command's own in its row of the command table (src/entries/commands.ts). One declaration,
// so the two parsers can never disagree.
import { WmemError } from './ui/errors.js';

/** Kept equal to package.json's version (a unit test checks). */
export const VERSION = '0.1.0';

/** An option of the command line; `Text` is what its help says (see src/entries/commands.ts). */
export interface OptionSpec<Text = string> {
  /** commander-style flags: '--part <part>', '--dry-run', '-q, --quiet'. */
  flags: string;
  description: Text;
  choices?: readonly string[];
  default?: string | number | boolean;
  /** A whole number with this minimum. */
  intMin?: number;
  /** Left out of --help (internal). */
  hidden?: boolean;
  /** Given more than once, its values collect into a list. */
  repeatable?: boolean;
  /** The command refuses to run without it. */
  mandatory?: boolean;
}

export const GLOBAL_OPTIONS: OptionSpec[] = [
  { flags: '--home <dir>', description: 'where memory lives (default $WMEM_HOME or ~/.ai)' },
  { flags: '--cwd <dir>', description: 'the project folder (default: the current directory)' },
  { flags: '--session <id>', description: "the session to act on (default $WMEM_SESSION, then the project's current one)" },
  { flags: '--json', description: 'print one JSON document on stdout' },
  { flags: '-q, --quiet', description: 'no diagnostics on stderr' },
  { flags: '--no-color', description: 'no colour (also NO_COLOR=1)' },
];

export interface ParsedFlags {
  long: string;
  short?: string;
  /** camelCase key, as commander names it. */
  key: string;
  takesValue: boolean;
  negated: boolean;
}

export function parseFlags(spec: OptionSpec<unknown>): ParsedFlags {
  const short = /(?:^|[ ,])-([A-Za-z])\b/.exec(spec.flags)?.[1];
  const long = /--([a-z][a-z0-9-]*)/.exec(spec.flags)![1];
  const negated = long.startsWith('no-');
  const base = negated ? long.slice(3) : long;
  return { long, short, key: base.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase()), takesValue: /[<[]/.test(spec.flags), negated };
}

/** Checks and converts one option value; the same rules for both parsers. */
export function coerceOption(spec: OptionSpec<unknown>, raw: string): string | number {
  const { long } = parseFlags(spec);
  if (spec.intMin !== undefined) {
    const n = Number(raw);
    if (!/^\s*\d+\s*$/.test(raw) || !Number.isSafeInteger(n) || n < spec.intMin) {
      throw new WmemError(`--${long} must be a whole number ≥ ${spec.intMin}, not ${JSON.stringify(raw)}`);
    }
    return n;
  }
  if (spec.choices && !spec.choices.includes(raw)) {
    throw new WmemError(`--${long} must be one of ${spec.choices.join(', ')}, not ${JSON.stringify(raw)}`);
  }
  return raw;
}
