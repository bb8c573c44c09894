// Pure: the BM25 sum both rankings use, a line's (search.ts) and a whole day's (search-shape.ts).
// Each query term counts with its weight; of the terms of one group (a word and its related
// words), only the best counts, so a line holding a word and its synonym is not scored twice.

/** BM25's term-frequency saturation and length normalisation. */
export const K1 = 1.2;
const B = 0.75;

export interface WeightedTerm {
  weight: number;
  group: number;
}

/** Each term's inverse document frequency, from how many of `N` documents hold it. */
export function idfOf(df: readonly number[], N: number): number[] {
  return df.map((n) => Math.log(1 + (N - n + 0.5) / (n + 0.5)));
}

/**
 * The BM25 score of one document of `length` (the average `avgLength`) from its term counts
 * `tf[at + t]`, the best term of each group counted; `groupBest` is scratch space, one per term:
 * a typed array, whose map never changes, so that a line's scratch and a day's (search-shape.ts)
 * are one map to the compiled code (two arrays of numbers were a deopt and a recompile).
 */
export function bm25(terms: readonly WeightedTerm[], idf: readonly number[], tf: ArrayLike<number>, at: number, length: number, avgLength: number, groupBest: Float64Array): number {
  const norm = K1 * (1 - B + (B * length) / avgLength);
  // A loop, not fill(): a few slots, once per scored line, and fill is a call into V8's C++
  // (~10 M instructions over a common query's ~100,000 lines: bench/README.md, search14).
  for (let g = 0; g < groupBest.length; g++) groupBest[g] = 0;
  for (let t = 0; t < terms.length; t++) {
    const n = tf[at + t];
    if (!n) continue;
    const part = terms[t].weight * idf[t] * ((n * (K1 + 1)) / (n + norm));
    if (part > groupBest[terms[t].group]) groupBest[terms[t].group] = part;
  }
  let score = 0;
  for (let g = 0; g < groupBest.length; g++) score += groupBest[g];
  return score;
}
