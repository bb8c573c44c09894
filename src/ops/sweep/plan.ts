// Pure: what a sweep deletes (docs/operations.md). In a cache, a file goes when it is older than the TTL or
// not among the newest `maxFiles`; everything else a sweep may remove is state a deleted session
// left behind, judged by name and age only.
import { usageError } from '../../ui/errors.js';

export interface CacheEntry {
  name: string;
  size: number;
  mtimeMs: number;
}

export interface SweepLimits {
  maxFiles: number;
  ttlMs: number;
  nowMs: number;
}

/** The cache entries to delete: older than the TTL, or beyond the newest `maxFiles`. */
export function planCache(entries: CacheEntry[], limits: SweepLimits): CacheEntry[] {
  const newestFirst = [...entries].sort((a, b) => b.mtimeMs - a.mtimeMs || (a.name < b.name ? 1 : -1));
  return newestFirst.filter((e, rank) => rank >= limits.maxFiles || limits.nowMs - e.mtimeMs > limits.ttlMs);
}

const UNITS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** `7d`, `12h`, `30m`, `45s`, `2w`; a bare number is days. */
export function parseTtl(text: string): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*([smhdw]?)\s*$/i.exec(text);
  if (!match) throw usageError(`--ttl must be an age like 7d, 12h, 30m or 45s, not ${JSON.stringify(text)}`);
  return Math.round(Number(match[1]) * UNITS[(match[2] || 'd').toLowerCase()]);
}

/** A lock left by a dead process: its holder refreshes a live one every second (src/store/lock.ts). */
export const STALE_LOCK_MS = 60_000;
/** A temp file this old belongs to no write in progress. */
export const STALE_TEMP_MS = 3_600_000;

/** The folder a `wmem rm` was moving away when it stopped. */
export function isTrashName(name: string): boolean {
  return name.startsWith('.trash-');
}
