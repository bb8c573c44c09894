// A cache of derived figures under <session>/state/context-cache.json, so that `wmem context`
// (run on every prompt) parses Markdown and loads the tokenizer only when its inputs changed.
// It holds nothing that cannot be recomputed from the memory files: losing it costs time only.
import { closeSync, constants as fsConstants, fstatSync, openSync, readFileSync, writeSync, type Stats } from 'node:fs';
import { atomicWriteWith, writeAllSync } from './fsx.js';
import { readPrivateFile } from './private-file.js';
import { joinName } from './names.js';
import type { OverviewDigest, StoredCut } from '../render/context.js';

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
    /** With `text`: each of its segments' digest (render/memory-resend.ts copyOf's blocks), which the part's digest is composed from. */
    segments?: Record<string, string>;
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
  /** Every other block of a cut part: what the cut saw of its parts (render/context.ts cutMemory), to cut again for another session state. */
  cut?: StoredCut[];
}

export function cacheFile(stateDir: string): string {
  return joinName(stateDir, 'context-cache.json');
}

/** The recall record (ContextCache memory.recall), which every prompt after a tool call changes. */
type Recall = NonNullable<ContextCache['memory']>['recall'];

/**
 * The file a cache was read from (fstat of the descriptor read, its `recall` field as read, and
 * its stable head: Head), kept on the cache object under a symbol: JSON.stringify skips it, and it is freed with the cache.
 * (A module-level reference instead kept the cache alive into the exit's scavenge: +15..20 faults.)
 * A write that changes the recall alone (a prompt after an `ls`), to the same file still there,
 * writes that file's bytes up to its last field again as they are and a new last field, not the
 * whole cache restringified (~195 KB of young allocation for a 44 KB cache: a scavenge in a short
 * process). Its bytes are read again then, outside V8's heap; keeping the text read instead cost
 * every render that scavenges a copy of it (~90 KB).
 */
const READ = Symbol('read');
type Read = { stat: Stats; recall: Recall | null; head?: Head };
const RECALL_FIELD = ',"recall":';

/**
 * The file's stable head as read: everything before the session state's block, which the file
 * holds last among the blocks (writeContextCache): the overview, the part's key and the four other
 * blocks, by reference. A prompt after a tool call that changed the session state alone (recutState,
 * keepWhole) keeps these very objects, so its write splices the head's bytes as read and serializes
 * the volatile tail alone (the block, the part's text and digest, memoryTokens, history, recall):
 * about half the cache, and half its young allocation. Weak references: an object the render
 * replaced is not kept alive by this record into a scavenge (strong ones cost Claude's session
 * end and its prompt after an overview edit +15..+75 faults). Undefined when the file is laid out otherwise
 * (an older build's: the block in the middle; a hand-written one): the whole cache is written then.
 */
type Head = { overview?: WeakRef<object>; key: string; blocks: [string, WeakRef<KeptBlock>][] };
const STATE_FIELD = ',"session_state":{';

/**
 * The cache, read only when it is a regular file of this user's that no one else may write: its
 * memory part goes into the agent's prompt as it is, so a link or a planted file is a miss.
 * The top-level `recall` goes back into `memory` (a cache written before it moved keeps it there).
 */
export async function readContextCache(stateDir: string): Promise<ContextCache> {
  const read = readPrivateFile(cacheFile(stateDir));
  if (!read) return { version: 3 };
  try {
    const parsed = JSON.parse(read.text) as ContextCache & { recall?: Recall | null };
    if (parsed?.version !== 3) return { version: 3 };
    if (!('recall' in parsed)) return parsed;
    const recall = parsed.recall ?? null;
    delete parsed.recall;
    if (parsed.memory) {
      if (recall && typeof recall === 'object') parsed.memory.recall = recall;
      else delete parsed.memory.recall;
    }
    Object.defineProperty(parsed, READ, { value: { stat: read.stat, recall, head: headOf(parsed) } satisfies Read });
    return parsed;
  } catch {
    return { version: 3 };
  }
}

/**
 * Writes the cache, memory.recall last as the top-level `recall`. `recallOnly`: nothing but the
 * recall changed since it was read, so the bytes read before it are written again as they are
 * (when they end where that field began, checked). Else, when the cache still holds the head read
 * (sameHead), the head's bytes as read and the tail serialized (Head). Otherwise the whole cache.
 */
export async function writeContextCache(stateDir: string, cache: ContextCache, recallOnly = false): Promise<void> {
  const file = cacheFile(stateDir);
  const read = (cache as { [READ]?: Read })[READ];
  const recall = cache.memory?.recall ?? null;
  // A failed cache write must never fail the command: the next run recomputes.
  // Not fsynced either: what a power cut loses is recomputed (docs/guarantees.md).
  const head = read && (recallOnly ? headAsRead(file, read.stat, (bytes) => bytes.lastIndexOf(RECALL_FIELD), recallField(read.recall)) : sameHead(cache, read.head) && headAsRead(file, read.stat, stateBlockStart));
  if (head) {
    const tail = recallOnly ? recallField(recall) : tailJson(cache);
    await atomicWriteWith(file, (fd) => (writeAllSync(fd, head), typeof tail === 'string' ? writeTextSync(fd, tail) : writeAllSync(fd, tail)), { durable: false }).catch(() => {});
    return;
  }
  const text = JSON.stringify(ordered(cache));
  await atomicWriteWith(file, (fd) => writeTextSync(fd, text), { durable: false }).catch(() => {});
}

/** The cache in the file's order: the stable head (overview, the part's key, every block but the session state's), then the rest, the recall record last. */
function ordered(cache: ContextCache): object {
  const { version, overview, memory, ...rest } = cache;
  if (!memory) return { version, overview, ...rest, recall: null };
  const { key, blocks, recall, ...part } = memory;
  const { session_state, ...others } = blocks ?? {};
  return { version, overview, memory: { key, blocks: blocks && { ...others, session_state }, ...part }, ...rest, recall: recall ?? null };
}

/** What follows the head (Head) in the file: the session state's block, closing the blocks, then the part's other fields and the rest as `ordered` writes them. */
function tailJson(cache: ContextCache): string {
  const { version: _v, overview: _o, memory, ...rest } = cache;
  const { key: _k, blocks, recall, ...part } = memory!;
  // From JSON.stringify's own answer, not Object.keys: a field present but undefined is left out.
  const after = (fields: object) => {
    const members = JSON.stringify(fields).slice(1, -1);
    return members ? `,${members}` : '';
  };
  return `"session_state":${JSON.stringify(blocks!.session_state)}}${after(part)}}${after(rest)}${RECALL_FIELD}${JSON.stringify(recall ?? null)}}`;
}

/** The head of a cache as parsed, when its file is laid out as `ordered` writes it with every block present (the session state's last). */
function headOf(parsed: ContextCache): Head | undefined {
  const memory = parsed.memory;
  const blocks = memory?.blocks;
  if (!memory || !blocks || typeof blocks !== 'object' || typeof memory.key !== 'string') return undefined;
  const top = Object.keys(parsed);
  const names = Object.keys(blocks);
  const fields = Object.keys(memory);
  const overview = parsed.overview;
  // The overview, when there is one, right after the version (a key anywhere else would be spliced
  // away); block names that are no array index (those Object.keys lists first, whatever the file).
  const topLaidOut = top[0] === 'version' && ('overview' in parsed ? top[1] === 'overview' && top[2] === 'memory' && isObject(overview) : top[1] === 'memory');
  const laidOut = topLaidOut && fields[0] === 'key' && fields[1] === 'blocks' && names.at(-1) === 'session_state' && names.length > 1;
  if (!laidOut || !names.every((name) => !/^\d+$/.test(name) && isObject(blocks[name]))) return undefined;
  return { overview: overview && new WeakRef(overview), key: memory.key, blocks: names.slice(0, -1).map((name) => [name, new WeakRef(blocks[name])]) };
}

const isObject = (value: unknown): value is object => typeof value === 'object' && value !== null;

/**
 * Where the session state's block begins in the file's bytes (after the comma before it), when the
 * field is there once: a second one (a hand-written file; a build's never holds two, as quotes in
 * strings are escaped) would leave the head ambiguous, so the whole cache is written then.
 */
function stateBlockStart(bytes: Buffer): number {
  const at = bytes.indexOf(STATE_FIELD);
  return at >= 0 && at === bytes.lastIndexOf(STATE_FIELD) ? at + 1 : -1;
}

/** Whether `cache` still holds the head read (the same objects: nothing in them is changed in place), its session state's block alone new. */
function sameHead(cache: ContextCache, head: Head | undefined): boolean {
  const blocks = cache.memory?.blocks;
  if (!head || !blocks || cache.version !== 3 || cache.memory!.key !== head.key || !blocks.session_state) return false;
  // An object collected since the read derefs to undefined: never the same as one held now.
  const same = (now: object | undefined, ref: WeakRef<object> | undefined) => (ref ? now !== undefined && now === ref.deref() : now === undefined);
  if (!same(cache.overview, head.overview)) return false;
  // In any order: the file's is `ordered`'s whatever the object's.
  return Object.keys(blocks).length === head.blocks.length + 1 && head.blocks.every(([name, block]) => same(blocks[name], block));
}

/**
 * Writes `text` as UTF-8 to the fresh file `fd`: the string straight to writeSync, which encodes it
 * outside V8's heap, rather than a Buffer of it (~75 KB of young allocation for this cache, most of
 * what tipped a prompt after a tool call into a scavenge); a short write (rare) finishes from a Buffer.
 */
function writeTextSync(fd: number, text: string): void {
  // No position (null): a positional write would leave the file offset where the rest must not go.
  const written = writeSync(fd, text, null, 'utf8');
  const bytes = Buffer.byteLength(text, 'utf8');
  if (written < bytes) writeAllSync(fd, Buffer.from(text, 'utf8').subarray(written));
}

/**
 * The bytes of `file` before `at(bytes)`, when it is still the file read (`stat`) and, given
 * `rest`, what follows is exactly those bytes (the recall field as read); else undefined.
 */
function headAsRead(file: string, stat: Stats, at: (bytes: Buffer) => number, rest?: Buffer): Buffer | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(file, fsConstants.O_RDONLY | fsConstants.O_NOFOLLOW | fsConstants.O_NONBLOCK);
    const now = fstatSync(fd);
    if (now.ino !== stat.ino || now.dev !== stat.dev || now.size !== stat.size || now.mtimeMs !== stat.mtimeMs || now.ctimeMs !== stat.ctimeMs) return undefined;
    const bytes = readFileSync(fd);
    const end = at(bytes);
    return end > 0 && (!rest || bytes.subarray(end).equals(rest)) ? bytes.subarray(0, end) : undefined;
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** The cache's last field as writeContextCache writes it, closing the object. */
const recallField = (recall: Recall | null) => Buffer.from(`${RECALL_FIELD}${JSON.stringify(recall)}}`);
