// Reads a JSONL transcript for its token use without reading it whole on every prompt: the first
// time backward from the end (stopping at the last compaction), then forward from where the
// previous read stopped. A rewritten transcript (its bytes before that point changed) is read
// again from the end. What a line means is the agent's: its adapter gives the LineRules (Claude
// Code's in claude/transcript.ts, Codex's, Gemini CLI's); any agent whose transcript is JSONL can use this reader.
import type { UsageView } from '../memory/meter.js';
import { openRegularFile, type ReadHandle } from '../store/fsx.js';

/** How an agent's transcript lines change the usage, read forward or backward. */
export interface LineRules<S extends UsageView> {
  empty: S;
  /** Applies one line (at byte `offset`) read in file order. */
  forward(state: S, line: string, offset: number): S;
  /** A scan newest line first: `step` returns true once nothing older can change the answer. */
  backward(): { step(line: string, offset: number): boolean; result(): S };
  /** The state kept in a cursor (a cursor is flat: its own fields and the state's). */
  restore(cursor: S): S;
}

const CHUNK = 256 * 1024;
/**
 * A line longer than this is skipped, not read: no usage line is that long, and a file of one
 * endless line (a 2 GB sparse file named as the transcript) must not be read into memory.
 */
export const MAX_LINE = 16 * 1024 * 1024;

async function readRange(handle: ReadHandle, start: number, end: number): Promise<Buffer> {
  const buf = Buffer.alloc(end - start);
  let done = 0;
  while (done < buf.length) {
    const { bytesRead } = await handle.read(buf, done, buf.length - done, start + done);
    if (bytesRead === 0) break;
    done += bytesRead;
  }
  return buf.subarray(0, done);
}

async function tailHash(handle: ReadHandle, end: number): Promise<string> {
  return end === 0 ? '' : (await readRange(handle, Math.max(0, end - 256), end)).toString('base64');
}

/** Scans [0, end) newest line first; `end` is 0 or just after a newline. */
async function scanBackward<S extends UsageView>(handle: ReadHandle, end: number, rules: LineRules<S>): Promise<S> {
  const scan = rules.backward();
  let pos = end;
  let head = Buffer.alloc(0);
  // Set once an over-long line was dropped: buf's last piece is that line's start, not a line.
  let skipping = false;
  for (;;) {
    const start = Math.max(0, pos - CHUNK);
    // buf covers [start, start + buf.length) and ends with the newline of its last line.
    const buf = Buffer.concat([await readRange(handle, start, pos), head]);
    let lineEnd = skipping ? buf.length : buf.length - 1;
    while (lineEnd >= 0) {
      const nl = lineEnd > 0 ? buf.lastIndexOf(10, lineEnd - 1) : -1;
      if (nl === -1 && start > 0) break;
      const line = skipping ? '' : buf.toString('utf8', nl + 1, lineEnd);
      skipping = false;
      if (line && scan.step(line, start + nl + 1)) return scan.result();
      lineEnd = nl;
    }
    if (start === 0) return scan.result();
    // While skipping, a chunk without a newline is more of the dropped line: nothing to keep.
    head = skipping && lineEnd >= buf.length ? Buffer.alloc(0) : buf.subarray(0, lineEnd + 1);
    if (head.length > MAX_LINE) {
      head = Buffer.alloc(0);
      skipping = true;
    }
    pos = start;
  }
}

/** Applies the complete lines of [from, size) in order; returns the state and where they end. */
async function scanForward<S extends UsageView>(handle: ReadHandle, from: number, size: number, state: S, rules: LineRules<S>): Promise<{ state: S; consumed: number }> {
  let pos = from;
  let carry = Buffer.alloc(0);
  let consumed = from;
  // Set once an over-long line was dropped: the next newline ends it.
  let skipping = false;
  while (pos < size) {
    const end = Math.min(size, pos + CHUNK);
    const buf = Buffer.concat([carry, await readRange(handle, pos, end)]);
    const base = pos - carry.length;
    pos = end;
    let start = 0;
    for (let nl = buf.indexOf(10); nl !== -1; nl = buf.indexOf(10, start)) {
      if (!skipping) state = rules.forward(state, buf.toString('utf8', start, nl), base + start);
      skipping = false;
      start = nl + 1;
    }
    consumed = base + start;
    // While skipping, what follows the last newline is more of the dropped line: nothing to keep.
    carry = skipping ? Buffer.alloc(0) : buf.subarray(start);
    if (carry.length > MAX_LINE) {
      carry = Buffer.alloc(0);
      skipping = true;
    }
  }
  return { state, consumed };
}

export interface TranscriptRead<S extends UsageView = UsageView> {
  cursor: JsonlCursor<S>;
  /** Including a last line without its newline yet (not cached: it may still grow). */
  view: S;
  changed: boolean;
}

/** The reader's place in the file, and the usage up to it. */
export type JsonlCursor<S extends UsageView> = S & { version: 1; path: string; consumed: number; tailHash: string };

/** Brings `previous` up to date with the transcript at `file`. Throws ENOENT when it does not exist. */
export async function readJsonlUsage<S extends UsageView>(file: string, previous: JsonlCursor<S> | undefined, rules: LineRules<S>): Promise<TranscriptRead<S>> {
  const handle = await openRegularFile(file);
  try {
    const size = (await handle.stat()).size;
    let state: S = rules.empty;
    let reuse = false;
    if (previous && previous.version === 1 && previous.path === file && previous.consumed <= size) {
      reuse = (await tailHash(handle, previous.consumed)) === previous.tailHash;
    }
    let pending = '';
    let consumed: number;
    if (reuse) {
      ({ state, consumed } = await scanForward(handle, previous!.consumed, size, rules.restore(previous!), rules));
      pending = size - consumed > MAX_LINE ? '' : (await readRange(handle, consumed, size)).toString('utf8');
    } else {
      // Complete lines end at the last newline; a final line without one is read separately.
      let end = size;
      if (size > 0) {
        const tail = await readRange(handle, Math.max(0, size - CHUNK), size);
        const nl = tail.lastIndexOf(10);
        if (nl === -1 && size > CHUNK) {
          // A very long unterminated last line: find its start the slow way.
          end = 0;
          for (let pos = size - CHUNK; pos > 0; pos -= CHUNK) {
            const chunk = await readRange(handle, Math.max(0, pos - CHUNK), pos);
            const at = chunk.lastIndexOf(10);
            if (at !== -1) {
              end = Math.max(0, pos - CHUNK) + at + 1;
              break;
            }
          }
        } else {
          end = nl === -1 ? 0 : size - tail.length + nl + 1;
        }
        pending = size - end > MAX_LINE ? '' : (await readRange(handle, end, size)).toString('utf8');
      }
      state = await scanBackward(handle, end, rules);
      consumed = end;
    }
    const cursor: JsonlCursor<S> = { version: 1, path: file, consumed, tailHash: await tailHash(handle, consumed), ...state };
    const view = pending.trim() ? rules.forward(state, pending, consumed) : state;
    const changed =
      !previous || previous.path !== cursor.path || previous.consumed !== cursor.consumed || previous.tailHash !== cursor.tailHash;
    return { cursor, view, changed };
  } finally {
    await handle.close();
  }
}
