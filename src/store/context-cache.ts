// A cache of derived figures under <session>/state/context-cache.json, so that `wmem context`
// (run on every prompt) parses Markdown and loads the tokenizer only when its inputs changed.
// It holds nothing that cannot be recomputed from the memory files: losing it costs time only.
import path from 'node:path';
import { atomicWrite, readTextIfExists } from './fsx.js';
import type { OverviewDigest } from '../render/context.js';
import type { HistoryStats } from '../history/stats.js';

export interface ContextCache {
  // 3: history stats carry the model and window of the last usage (read again once).
  version: 3;
  // Keyed by the exact text, not a hash: a few KB compared byte for byte, no false hit possible.
  overview?: { text: string; digest: OverviewDigest };
  memoryTokens?: { text: string; count: number };
  history?: HistoryStats;
}

export function cacheFile(stateDir: string): string {
  return path.join(stateDir, 'context-cache.json');
}

export async function readContextCache(stateDir: string): Promise<ContextCache> {
  const text = await readTextIfExists(cacheFile(stateDir)).catch(() => undefined);
  if (!text) return { version: 3 };
  try {
    const parsed = JSON.parse(text) as ContextCache;
    return parsed?.version === 3 ? parsed : { version: 3 };
  } catch {
    return { version: 3 };
  }
}

export async function writeContextCache(stateDir: string, cache: ContextCache): Promise<void> {
  // A failed cache write must never fail the command: the next run recomputes.
  await atomicWrite(cacheFile(stateDir), JSON.stringify(cache)).catch(() => {});
}
