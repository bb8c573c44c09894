// Property: scanText's word reading without regular expressions (src/memory/search.ts
// latinWordChar, wordAt) answers what the expressions it replaced answer, at every position of
// any text: ASCII, accented and CJK letters, digits of other scripts, surrogate pairs and lone
// surrogates, line ends, punctuation.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { latinWordChar, wordAt } from '../../src/memory/search.js';

const CJK = /[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]/u;
const WORD_AT = /[\p{L}\p{N}]+/uy;
const PIECES = ['a', 'Z', '0', '9', '_', ' ', '\n', '\r', '-', "'", 'é', 'Ü', 'ß', '日', '本', '٣', '²', '𝒜', '😀', '\ud835', '\udc9c', 'ａ', 'x1', 'Deploy'];
const text = fc.oneof(fc.array(fc.constantFrom(...PIECES), { maxLength: 20 }).map((p) => p.join('')), fc.string({ unit: 'binary', maxLength: 20 }));

describe('scanText word reading', () => {
  it('latinWordChar and wordAt agree with the expressions at every position (wordAt past the end too)', () => {
    fc.assert(
      fc.property(text, (t) => {
        for (let at = 0; at <= t.length; at++) {
          if (at < t.length) expect(latinWordChar(t, at)).toBe(/[\p{L}\p{N}]/u.test(t[at]) && !CJK.test(t[at]));
          WORD_AT.lastIndex = at;
          expect(wordAt(t, at)).toBe(WORD_AT.exec(t)?.[0]);
        }
      }),
      { numRuns: 2000 },
    );
  });
});
