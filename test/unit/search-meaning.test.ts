// The meaning rerank, pure (src/memory/meaning.ts): which units get embedded, how their closeness
// reorders the shortlist behind its first hit, and that the order is a permutation of the input.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { MEANING_UNITS, cosine, meaningUnits, withMeaning } from '../../src/memory/meaning.js';
import type { Scored } from '../../src/memory/search.js';
import type { ShapeSource } from '../../src/memory/search-shape.js';

const entry = (source: number, line: number, score: number): Scored => ({ candidate: { source, line, text: `line ${line}`, length: 6, tf: [] }, score, matched: 1 });
const order = (list: Scored[]) => list.map((s) => `${s.candidate.source}:${s.candidate.line}`);
// Source 0: a conversation of three days of ten lines (1, 11, 21); source 1: a memory file.
const SOURCES: ShapeSource[] = [
  { conversation: true, days: [[1, '2024-01-01'], [11, '2024-01-02'], [21, '2024-01-03']], lines: 30 },
  { conversation: false },
  { conversation: true, days: [[1, '2024-02-01']], lines: 30 },
];

describe('meaningUnits', () => {
  it('is a conversation line\'s day (its opening lines) or a memory file\'s line, each once, in the shortlist\'s order', () => {
    const units = meaningUnits([entry(0, 25, 5), entry(1, 4, 4), entry(0, 22, 3), entry(0, 3, 2)], SOURCES);
    expect(units).toEqual([
      { key: '0:21', source: 0, start: 21, lines: 10 },
      { key: '1:4:line', source: 1, start: 4, lines: 1 },
      { key: '0:1', source: 0, start: 1, lines: 10 },
    ]);
  });

  it('is the line with its neighbours on a long day (more than 12 lines), cut at the day\'s ends', () => {
    expect(meaningUnits([entry(2, 15, 3), entry(2, 1, 2), entry(2, 30, 1)], SOURCES)).toEqual([
      { key: '2:14:window', source: 2, start: 14, lines: 3 },
      { key: '2:1:window', source: 2, start: 1, lines: 2 },
      { key: '2:29:window', source: 2, start: 29, lines: 2 },
    ]);
  });

  it('stops at MEANING_UNITS', () => {
    const many = Array.from({ length: MEANING_UNITS + 10 }, (_, i) => entry(1, i + 1, 100 - i));
    expect(meaningUnits(many, SOURCES)).toHaveLength(MEANING_UNITS);
  });
});

describe('withMeaning', () => {
  it('lifts a hit whose day is closer in meaning past a lexically better one, the first hit staying first', () => {
    const shortlist = [entry(0, 5, 10), entry(0, 15, 9), entry(0, 25, 8)];
    const closeness = new Map([['0:1', 0.1], ['0:11', 0.2], ['0:21', 0.9]]);
    expect(order(withMeaning(shortlist, SOURCES, closeness))).toEqual(['0:5', '0:25', '0:15']);
  });

  it('leaves the order as it is when the closeness cannot tell the units apart', () => {
    const shortlist = [entry(0, 5, 10), entry(0, 15, 9), entry(0, 25, 8)];
    expect(order(withMeaning(shortlist, SOURCES, new Map([['0:1', 0.5], ['0:11', 0.5]])))).toEqual(['0:5', '0:15', '0:25']);
    expect(order(withMeaning(shortlist, SOURCES, new Map([['0:1', 0.5]])))).toEqual(['0:5', '0:15', '0:25']);
  });

  it('returns the same entries, the first one first, whatever the closeness', () => {
    const line = fc.integer({ min: 1, max: 30 });
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.tuple(fc.integer({ min: 0, max: 2 }), line), { minLength: 1, maxLength: 20, selector: ([s, l]) => `${s}:${l}` }),
        fc.array(fc.double({ min: -1, max: 1, noNaN: true }), { minLength: 4, maxLength: 4 }),
        (places, close) => {
          const shortlist = places.map(([s, l], i) => entry(s, l, 100 - i));
          const closeness = new Map(meaningUnits(shortlist, SOURCES).map((u, i) => [u.key, close[i % 4]]));
          const out = withMeaning(shortlist, SOURCES, closeness);
          expect(order(out).sort()).toEqual(order(shortlist).sort());
          expect(out[0]).toBe(shortlist[0]);
        },
      ),
    );
  });
});

describe('cosine', () => {
  it('is 1 for the same direction, 0 for an empty or zero vector', () => {
    expect(cosine([1, 2, 3], [2, 4, 6])).toBeCloseTo(1, 10);
    expect(cosine([1, 0], [0, 1])).toBe(0);
    expect(cosine([], [1])).toBe(0);
    expect(cosine([0, 0], [1, 1])).toBe(0);
  });
});
