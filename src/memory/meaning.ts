// Pure: the meaning of a text as the mean of its words' vectors (src/store/word-vectors.ts), each
// word weighted by how rare it is (a common word says little), and how close two meanings are.
// A soft match for what a question and a conversation say in different words ("strategy games on
// my PC" ↔ "turn-based games like Civilization").
import { STOPWORDS } from './text.js';

export interface Vectors {
  dims: number;
  vector(word: string): Int8Array | undefined;
  rank(word: string): number;
}

/** The weighted mean of the text's known words' vectors, unit length; undefined when no word is known. */
export function meaningOf(text: string, vectors: Vectors): Float32Array | undefined {
  const out = new Float32Array(vectors.dims);
  let any = false;
  for (const word of text.toLowerCase().match(/[a-z]+/g) ?? []) {
    if (word.length < 2 || STOPWORDS.has(word)) continue;
    const v = vectors.vector(word);
    if (!v) continue;
    const weight = Math.log(1 + vectors.rank(word) / 100);
    for (let k = 0; k < out.length; k++) out[k] += weight * v[k];
    any = true;
  }
  if (!any) return undefined;
  let norm = 0;
  for (let k = 0; k < out.length; k++) norm += out[k] * out[k];
  norm = Math.sqrt(norm);
  if (!norm) return undefined;
  for (let k = 0; k < out.length; k++) out[k] /= norm;
  return out;
}

/** Cosine of two unit vectors. */
export function closeness(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let k = 0; k < a.length; k++) s += a[k] * b[k];
  return s;
}
