// A regular expression built on first use: shared by the search (memory/text.ts) and the blocks'
// escaping (render/context.ts), whose modules load on every prompt or search.

/**
 * A regular expression made from `source` when first asked for, for a Unicode property class
 * (`\p{L}`) on a path a command may not take. V8's preparser checks the syntax of every regular
 * expression literal of a script as the script loads, run or not, and looking up one property
 * class costs ~0.6 M instructions there (`[\p{L}\p{N}]`: ~1.2 M, about 1.4 % of `node -e 0`):
 * a search pays at every start for the index build's word runs it never reads. A literal that
 * every run executes gains nothing from this (its pattern is parsed once either way).
 */
export function lazyRegExp(source: string, flags: string): () => RegExp {
  let re: RegExp | undefined;
  return () => (re ??= new RegExp(source, flags));
}
