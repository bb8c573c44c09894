// The query's expansions worked out per term (search.ts relatedStems, text.ts irregularForms) equal
// what an index of every group and every irregular word, made whole, gives: the first-letter
// filter they stem through (stem() keeps a word's first letter, but for an irregular one's) drops
// no word that stems to the term.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { RELATED, relatedStems } from '../../src/memory/search.js';
import { IRREGULAR, irregularForms, stem } from '../../src/memory/text.js';

function wholeRelatedIndex(): Map<string, string[]> {
  const index = new Map<string, string[]>();
  for (const group of RELATED) {
    const stems = [...new Set(group.map((w) => stem(w)))];
    for (const s of stems) index.set(s, [...new Set([...(index.get(s) ?? []), ...stems])]);
  }
  return index;
}

function wholeIrregularIndex(): Map<string, string[]> {
  const index = new Map<string, string[]>();
  for (const word of Object.keys(IRREGULAR)) index.set(stem(word), [...(index.get(stem(word)) ?? []), word]);
  return index;
}

// Every word of both tables, their bases, and stems of each: the terms that have expansions.
const known = [...RELATED.flat(), ...Object.keys(IRREGULAR), ...Object.values(IRREGULAR)];
const terms = [...new Set([...known, ...known.map((w) => stem(w))])];

describe('the expansions worked out per term', () => {
  it('equal the whole index for every word and stem the tables hold', () => {
    const related = wholeRelatedIndex();
    const irregular = wholeIrregularIndex();
    for (const term of terms) {
      expect(relatedStems(term), term).toEqual(related.get(term) ?? []);
      expect(irregularForms(term), term).toEqual(irregular.get(term) ?? []);
    }
  });

  it('equal it for any other word a query may stem to', () => {
    const related = wholeRelatedIndex();
    const irregular = wholeIrregularIndex();
    fc.assert(
      fc.property(fc.oneof(fc.stringMatching(/^[a-z0-9]{1,12}$/), fc.constantFrom(...terms).map((t) => t + 's')), (word) => {
        const term = stem(word);
        expect(relatedStems(term)).toEqual(related.get(term) ?? []);
        expect(irregularForms(term)).toEqual(irregular.get(term) ?? []);
      }),
      { numRuns: 2000 },
    );
  });
});
