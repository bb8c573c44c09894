// A cache of derived figures under <session>/state/context-cache.json, so that `wmem context`
// (run on every prompt) parses Markdown and loads the tokenizer only when its inputs changed.
// It holds nothing that cannot be recomputed from the memory files: losing it costs time only.
import path from 'node:path';
import { createHash } from 'node:crypto';
import { atomicWrite, readTextIfExists } from './fsx.js';
import type { OverviewDigest } from '../render/context.js';
import type { HistoryStats } from '../history/stats.js';

export interface ContextCache {
  version: 1;
  overview?: { hash: string; digest: OverviewDigest };
  memoryTokens?: { hash: string; count: number };
  history?: HistoryStats;
}

export function contentHash(text: string): string {
  return createHash('sha1').update(text).digest('hex');
}

export function cacheFile(stateDir: string): string {
  return path.join(stateDir, 'context-cache.json');
}

export async function readContextCache(stateDir: string): Promise<ContextCache> {
  const text = await readTextIfExists(cacheFile(stateDir)).catch(() => undefined);
  if (!text) return { version: 1 };
  try {
    const parsed = JSON.parse(text) as ContextCache;
    return parsed?.version === 1 ? parsed : { version: 1 };
  } catch {
    return { version: 1 };
  }
}

export async function writeContextCache(stateDir: string, cache: ContextCache): Promise<void> {
  // A failed cache write must never fail the command: the next run recomputes.
  await atomicWrite(cacheFile(stateDir), JSON.stringify(cache)).catch(() => {});
}
