// sameRecall (app/context.ts) tells whether the render cache would be written with the same
// recall record without writing either out: the same answer as comparing the two JSON texts,
// key order included, over random records (a file's text, none, a record read from a file
// written by hand with odd fields).
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { sameRecall } from '../../src/app/context.js';

type Recall = Parameters<typeof sameRecall>[0];

const text = fc.oneof(fc.constantFrom('a', 'b', '', '{"x":1}'), fc.constant(null));
const texts = fc.dictionary(fc.constantFrom('/h/hot.json', '/h/ws.json', '/h/o.md'), text, { maxKeys: 3 });
const recall = fc.oneof(
  fc.record({ key: fc.constantFrom('k1', 'k2') }),
  fc.record({ key: fc.constantFrom('k1', 'k2'), texts }),
  fc.record({ texts, key: fc.constantFrom('k1', 'k2') }),
  fc.record({ key: fc.constantFrom('k1', 'k2'), texts: fc.constantFrom(null, 'a', 3, [] as unknown[]) }),
  fc.record({ key: fc.constantFrom('k1', 2), texts, extra: fc.constant(1) }),
  fc.constant(undefined),
) as fc.Arbitrary<Recall>;

describe('sameRecall', () => {
  it('answers as the two records written out as JSON compare', () => {
    fc.assert(
      fc.property(recall, recall, (a, b) => {
        expect(sameRecall(a, b)).toBe(JSON.stringify(a) === JSON.stringify(b));
        expect(sameRecall(a, structuredClone(a))).toBe(true);
      }),
      { numRuns: 3000 },
    );
  });
});
