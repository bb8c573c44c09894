import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isoTime } from '../../src/ui/time.js';

// The hooks stamp times without Date#toISOString (its first call loads the local time zone's
// data): the same text for every time value, six-digit years and invalid dates by toISOString itself.
describe('isoTime', () => {
  const same = (ms: number) => {
    const date = new Date(ms);
    let expected: string;
    try {
      expected = date.toISOString();
    } catch (err) {
      expect(() => isoTime(date)).toThrow((err as Error).constructor as ErrorConstructor);
      return;
    }
    expect(isoTime(date)).toBe(expected);
  };

  it('writes what toISOString writes, at the edges of years, leap days and the range it computes', () => {
    const edges = [0, -1, 1, 951_782_400_000, 951_868_800_000, 4_107_542_400_000, -2_208_988_800_000, -62_167_219_200_000, -62_167_219_200_001, 253_402_300_799_999, 253_402_300_800_000, 8.64e15, -8.64e15, 8.64e15 + 1, NaN];
    for (const ms of edges) same(ms);
  });

  it('writes what toISOString writes for any time value', () => {
    fc.assert(fc.property(fc.integer({ min: -8.64e15, max: 8.64e15 }), (ms) => same(ms)), { numRuns: 20_000 });
    fc.assert(fc.property(fc.integer({ min: -62_167_219_200_000, max: 253_402_300_800_000 }), (ms) => same(ms)), { numRuns: 20_000 });
  });
});
