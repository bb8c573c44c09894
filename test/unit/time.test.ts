// ui/time.ts isoTime: the hook's fired record written without toISOString (which sets up V8's
// time-zone data in a short process), the same text for every date toISOString writes.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isoTime } from '../../src/ui/time.js';

describe('isoTime', () => {
  it('writes every date as toISOString does, from year 0 to beyond 9999 and before 0', () => {
    const same = (ms: number) => isoTime(new Date(ms)) === new Date(ms).toISOString();
    // Any time a Date holds, and (most of those are past year 9999) the years toISOString writes in four digits.
    fc.assert(fc.property(fc.integer({ min: -8.64e15, max: 8.64e15 }), same), { numRuns: 2000 });
    fc.assert(fc.property(fc.integer({ min: -62_167_219_200_000, max: 253_402_300_799_999 }), same), { numRuns: 2000 });
    for (const ms of [0, -1, -62_167_219_200_000, -62_167_219_200_001, 253_402_300_799_999, 253_402_300_800_000, Date.UTC(2026, 10, 29, 3, 4, 5, 6)]) expect(isoTime(new Date(ms))).toBe(new Date(ms).toISOString());
  });

  it('throws for an invalid date, as toISOString does', () => {
    expect(() => isoTime(new Date(Number.NaN))).toThrow(RangeError);
  });
});
