// Word vectors for search's semantic part: the file format read back, and a text's meaning as the
// rarity-weighted mean of its known words.
import { describe, expect, it } from 'vitest';
import { closeness, meaningOf } from '../../src/memory/meaning.js';
import { parseVectors } from '../../src/store/word-vectors.js';

/** A vectors file as scripts/word-vectors.mjs writes it (words given most frequent first). */
function vectorsFile(words: string[], vectors: number[][]): Buffer {
  const order = words.map((w, rank) => ({ w, rank, v: vectors[rank] })).sort((a, b) => Buffer.compare(Buffer.from(a.w), Buffer.from(b.w)));
  const list = Buffer.from(order.map((o) => o.w).join(''));
  const head = Buffer.alloc(16);
  head.write('WMV2', 0, 'latin1');
  head.writeUInt32LE(words.length, 4);
  head.writeUInt32LE(vectors[0].length, 8);
  head.writeUInt32LE(list.length, 12);
  const offsets: number[] = [];
  let at = 0;
  for (const o of order) {
    offsets.push(at);
    at += o.w.length;
  }
  offsets.push(at);
  return Buffer.concat([head, Buffer.from(Uint32Array.from(offsets).buffer), Buffer.from(Uint32Array.from(order.map((o) => o.rank)).buffer), list, Buffer.from(Int8Array.from(order.flatMap((o) => o.v)).buffer)]);
}

describe('word vectors', () => {
  // The most common word weighs nothing (log(1 + rank / 100)): 'and' stands first.
  const file = vectorsFile(['and', 'game', 'chess', 'pasta'], [[90, 90], [127, 0], [120, 40], [0, 127]]);

  it('reads a word back by its place, and how common it is', () => {
    const v = parseVectors(file)!;
    expect(v.dims).toBe(2);
    expect([...v.vector('chess')!]).toEqual([120, 40]);
    expect(v.vector('curry')).toBeUndefined();
    expect(v.vector('a')).toBeUndefined();
    expect([...v.vector('pasta')!]).toEqual([0, 127]);
    expect(v.rank('game')).toBe(1);
    expect(v.rank('curry')).toBe(4);
  });

  it('a damaged or foreign file is no vectors (search stays lexical)', () => {
    expect(parseVectors(file.subarray(0, file.length - 1))).toBeNull();
    expect(parseVectors(Buffer.from('not vectors at all'))).toBeNull();
  });

  it('a text about games is closer to a question about chess than a text about pasta', () => {
    const v = parseVectors(file)!;
    const q = meaningOf('Which chess games?', v)!;
    const games = meaningOf('the game night', v)!;
    const food = meaningOf('pasta for dinner', v)!;
    expect(closeness(q, games)).toBeGreaterThan(closeness(q, food));
    expect(closeness(q, q)).toBeCloseTo(1);
    expect(meaningOf('nothing known here', v)).toBeUndefined();
  });
});
