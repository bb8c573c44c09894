// Pure: a pattern with the literal texts every match of it holds (its needles; lower case where
// the pattern ignores case, which for the patterns given needles is ASCII case alone). Most text
// holds none of a pattern's needles, and then the pattern is neither run nor compiled: V8 compiles
// a regular expression on its first run, ~0.5-1 M instructions each (more through ICU's case
// tables for one that ignores case), which a hook that runs once pays for every pattern it tries.
// The secret patterns (gate.ts) and the error patterns (hot-state.ts) carry needles; their tests
// check that the needles never skip a match.

export interface Needled {
  readonly pattern: RegExp;
  readonly needles: readonly string[];
}

/** Whether a pattern may match `text` (it holds one of the pattern's needles); else it cannot. */
export function mayMatch(text: string): (entry: Needled) => boolean {
  let lower: string | undefined;
  return ({ pattern, needles }) => {
    // toLowerCase maps ASCII letters to ASCII letters one for one: an ASCII needle of a pattern
    // that ignores (ASCII) case is in the lower-cased text whenever the pattern matches.
    const haystack = pattern.ignoreCase ? (lower ??= text.toLowerCase()) : text;
    return needles.some((needle) => haystack.includes(needle));
  };
}
