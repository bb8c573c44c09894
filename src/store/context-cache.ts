// A cache of derived figures under <session>/state/context-cache.json, so that `wmem context`
// (run on every prompt) parses Markdown and loads the tokenizer only when its inputs changed.
// It holds nothing that cannot be recomputed from the memory files: losing it costs time only.
import path from 'node:path';
import { atomicWrite } from './fsx.js';
import { readPrivateBytes } from './private-file.js';
import type { OverviewDigest } from '../render/context.js';

/** What history/stream/stats.ts keeps about messages.jsonl between prompts (its scan resumes from here). */
export interface HistoryStats {
  version: 1;
  /** Bytes up to and including the last newline scanned. */
  consumed: number;
  /** The 256 bytes before `consumed`, base64: tells an append from a rewrite. */
  tailHash: string;
  messages: number;
  /** The last usage the agent reported since the last compaction boundary, or null. */
  lastUsage: number | null;
  /** Tokenizer count of the messages' text, or null when not counted. */
  tokens: number | null;
  /** The model of the last reported usage, when the history names it. */
  model?: string;
  /** The window the agent reported with it (Codex), when it does. */
  window?: number;
}

export interface ContextCache {
  // 3: history stats carry the model and window of the last usage (read again once).
  version: 3;
  // Keyed by the exact text, not a hash: a few KB compared byte for byte, no false hit possible.
  overview?: { text: string; digest: OverviewDigest; form?: number };
  /** The memory part's token estimate, under its digest and length (app/context.ts estimateTokens); an older cache's `{text, count}` is counted again. */
  memoryTokens?: { digest: string; length: number; count: number };
  /**
   * The memory part as last rendered, keyed by everything renderMemory was given and the code
   * that rendered it (app/context.ts), with its digest (render/memory-resend.ts): a prompt whose
   * memory did not change neither renders it nor digests it again. `text` only when the part was
   * cut to its budget; a part that fits is its blocks' texts joined (one copy of it kept, not two).
   */
  memory?: {
    key: string;
    text?: string;
    digest: string;
    blocks?: Record<string, KeptBlock>;
    /**
     * The signatures of the files the part was rendered from and the rest of its inputs, and the
     * text of each file that had changed too recently for its signature to tell (app/context.ts
     * memoryPart): while they are the same, the part is recalled without rendering it.
     */
    recall?: { key: string; texts?: Record<string, string | null> };
  };
  history?: HistoryStats;
}

/**
 * One block of the memory part whole (render/context.ts renderBlock), keyed by its own inputs: its
 * length always (whether the part fits its budget whole is the sum of these); its text and digest
 * while the part fits (when the part is cut, the cut is rendered from the inputs, not these).
 */
export interface KeptBlock {
  key: string;
  length?: number;
  text?: string;
  digest?: string;
  /** The session state's block: the recent decisions it was rendered with (app/context-recall.ts keptInputs). */
  decisions?: string[];
}

export function cacheFile(stateDir: string): string {
  return path.join(stateDir, 'context-cache.json');
}

/** The recall record (ContextCache memory.recall), which every prompt after a tool call changes. */
type Recall = NonNullable<ContextCache['memory']>['recall'];

/**
 * The file's bytes as read, up to its last field, `recall` (writeContextCache writes memory.recall
 * there, apart from the rest): a write that changes the recall alone (a prompt after an `ls`)
 * writes those bytes again as they are and a new last field, not the whole cache restringified
 * (~195 KB of young allocation for a 44 KB cache: a scavenge in a short process). `recall`: the
 * field as read, to check that the bytes end with exactly it before they are replaced. The last
 * cache read only (one per command); found at the write, so that a prompt that writes nothing
 * pays nothing for it.
 */
let lastRead: { cache: ContextCache; bytes: Buffer; recall: Recall | null } | undefined;
const RECALL_FIELD = ',"recall":';

/**
 * The cache, read only when it is a regular file of this user's that no one else may write: its
 * memory part goes into the agent's prompt as it is, so a link or a planted file is a miss.
 * The top-level `recall` goes back into `memory` (a cache written before it moved keeps it there).
 */
export async function readContextCache(stateDir: string): Promise<ContextCache> {
  const bytes = readPrivateBytes(cacheFile(stateDir));
  if (!bytes) return { version: 3 };
  try {
    const parsed = JSON.parse(bytes.toString('utf8')) as ContextCache & { recall?: Recall | null };
    if (parsed?.version !== 3) return { version: 3 };
    if (!('recall' in parsed)) return parsed;
    const recall = parsed.recall ?? null;
    delete parsed.recall;
    if (parsed.memory) {
      if (recall && typeof recall === 'object') parsed.memory.recall = recall;
      else delete parsed.memory.recall;
    }
    lastRead = { cache: parsed, bytes, recall };
    return parsed;
  } catch {
    return { version: 3 };
  }
}

/**
 * Writes the cache, memory.recall last as the top-level `recall`. `recallOnly`: nothing but the
 * recall changed since it was read, so the bytes read before it are written again as they are
 * (when they end where that field began, checked); otherwise the whole cache is serialized.
 */
export async function writeContextCache(stateDir: string, cache: ContextCache, recallOnly = false): Promise<void> {
  const recall = cache.memory?.recall ?? null;
  const read = recallOnly && lastRead?.cache === cache ? lastRead : undefined;
  const field = (value: Recall | null) => `${RECALL_FIELD}${JSON.stringify(value)}}`;
  const at = read ? read.bytes.lastIndexOf(RECALL_FIELD) : -1;
  let data: string | Uint8Array;
  if (read && at > 0 && read.bytes.subarray(at).equals(Buffer.from(field(read.recall)))) data = Buffer.concat([read.bytes.subarray(0, at), Buffer.from(field(recall))]);
  else {
    const { recall: _, ...memory } = cache.memory ?? { key: '', digest: '' };
    data = JSON.stringify({ ...cache, ...(cache.memory ? { memory } : {}), recall });
  }
  lastRead = undefined;
  // A failed cache write must never fail the command: the next run recomputes.
  // Not fsynced either: what a power cut loses is recomputed (docs/guarantees.md).
  await atomicWrite(cacheFile(stateDir), data, { durable: false }).catch(() => {});
}
