// What a sweep deletes from a cache, and how --ttl reads.
import { describe, expect, it } from 'vitest';
import { parseTtl, planCache } from '../../src/ops/sweep/plan.js';
import { isTempName } from '../../src/store/temp-names.js';

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
    ['.messages.jsonl.restore.4242.tmp', false, true],
    ['.compact-20260501T000000000Z.4242.replaced.tmp', false, true],
    ['meta.json.3456789012', false, true],
    ['overview.md.123456', false, true],
    ['current.99887766', false, true],
    ['hot.json.2233445566', true, true],
    // Never a leftover: backups and archives a user or --archive-to named, notes, short numbers.
    ['hot.json.2233445566', false, false],
    ['overview.md.12', false, false],
    ['messages.jsonl.1', false, false],
    ['messages.jsonl.20261123', false, false],
    ['before.jsonl.2', false, false],
    ['notes.md.1234567', false, false],
    ['plan.tmp', false, false],
    ['archive.jsonl.4242.tmp', false, false],
    ['overview.md', false, false],
    ['meta.json', false, false],
    ['notes-2026.md', false, false],
  ])('%s (in state/: %s) → %s', (name, inState, expected) => expect(isTempName(name, inState)).toBe(expected));
});
