// The lean entries' flag parsing (src/entries/lean-args.ts) reads the plain forms itself, without
// node:util's parseArgs: over generated command lines, it must answer exactly as parseArgs (strict)
// does, refusing what parseArgs refuses.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { parseArgs } from 'node:util';
import { GLOBAL_OPTIONS, parseFlags } from '../../src/options.js';
import { CONTEXT, HOOK } from '../../src/entries/lean-commands.js';
import { parseLean } from '../../src/entries/lean-args.js';

const SPECS = [...GLOBAL_OPTIONS, ...CONTEXT.options!, ...HOOK.options!];
const OPTIONS = Object.fromEntries(
  SPECS.map((spec) => {
    const { long, short, takesValue } = parseFlags(spec);
    return [long, { type: takesValue ? ('string' as const) : ('boolean' as const), ...(short ? { short } : {}) }];
  }),
);

/** What node:util's parseArgs answers, as parseLean gives it. */
function reference(args: string[]) {
  if (args.includes('--')) return undefined;
  try {
    const { values, positionals } = parseArgs({ args, options: OPTIONS, strict: true, allowPositionals: true });
    return { values: { ...values }, positionals };
  } catch {
    return undefined;
  }
}

const longs = Object.keys(OPTIONS);
const word = fc.oneof(
  fc.constantFrom(...longs.map((l) => `--${l}`), '-q', '-x', '-qq', '-', '--', '--nope', 'hook', 'context', 'PostToolUse', 'claude', '-5', '--=x', '--json=1', '--agent='),
  fc.constantFrom(...longs).chain((l) => fc.string({ maxLength: 6 }).map((v) => `--${l}=${v}`)),
  fc.string({ maxLength: 6 }),
  fc.string({ maxLength: 4 }).map((v) => `-${v}`),
);

describe('parseLean', () => {
  it('answers every command line as node:util parseArgs (strict) does', () => {
    fc.assert(
      fc.property(fc.array(word, { maxLength: 7 }), (args) => {
        const ours = parseLean(args, SPECS);
        expect(ours && { values: { ...ours.values }, positionals: ours.positionals }).toEqual(reference(args));
      }),
      { numRuns: 3000 },
    );
  });

  it('reads the hook lines the agents run', () => {
    expect(parseLean(['hook', '--agent', 'codex', 'PostToolUse'], SPECS)).toEqual({ values: { agent: 'codex' }, positionals: ['hook', 'PostToolUse'] });
    expect(parseLean(['--home', '/h', 'hook', '-q', '--no-color', 'Stop'], SPECS)).toMatchObject({ values: { home: '/h', quiet: true, 'no-color': true }, positionals: ['hook', 'Stop'] });
    expect(parseLean(['hook', '--agent'], SPECS)).toBeUndefined();
    expect(parseLean(['hook', '--agent', '--json'], SPECS)).toBeUndefined();
  });
});
