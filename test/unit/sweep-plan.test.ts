// What a sweep deletes from a cache, and how --ttl reads.
import { describe, expect, it } from 'vitest';
import { isTempName, parseTtl, planCache } from '../../src/ops/sweep-plan.js';

const DAY = 86_400_000;
const now = Date.UTC(2026, 10, 23);

describe('planCache', () => {
  const entries = (ages: number[]) => ages.map((days, i) => ({ name: `f${i}`, size: 10, mtimeMs: now - days * DAY }));

  it('deletes what is older than the TTL', () => {
    expect(planCache(entries([1, 2, 8, 30]), { maxFiles: 300, ttlMs: 7 * DAY, nowMs: now }).map((e) => e.name)).toEqual(['f2', 'f3']);
  });

  it('keeps only the newest maxFiles', () => {
    expect(planCache(entries([5, 1, 3, 2, 4]), { maxFiles: 2, ttlMs: 7 * DAY, nowMs: now }).map((e) => e.name).sort()).toEqual(['f0', 'f2', 'f4']);
  });

  it('deletes nothing from an empty or young cache', () => {
    expect(planCache([], { maxFiles: 0, ttlMs: DAY, nowMs: now })).toEqual([]);
    expect(planCache(entries([0, 0.5]), { maxFiles: 300, ttlMs: DAY, nowMs: now })).toEqual([]);
  });
});

describe('parseTtl', () => {
  it.each([
    ['7d', 7 * DAY],
    ['12h', 12 * 3_600_000],
    ['30m', 1_800_000],
    ['45s', 45_000],
    ['2w', 14 * DAY],
    ['3', 3 * DAY],
  ])('%s', (text, ms) => expect(parseTtl(text)).toBe(ms));

  it('refuses anything else', () => {
    expect(() => parseTtl('soon')).toThrow(/--ttl must be an age/);
    expect(() => parseTtl('-1d')).toThrow(/--ttl/);
  });
});

describe('isTempName', () => {
  it.each([
    ['messages.jsonl.123.456.tmp', true],
    ['meta.json.3456789012', true],
    ['overview.md.12', true],
    ['current.998877', true],
    ['overview.md', false],
    ['meta.json', false],
    ['notes-2026.md', false],
    ['archive-1.jsonl', false],
  ])('%s → %s', (name, expected) => expect(isTempName(name)).toBe(expected));
});
