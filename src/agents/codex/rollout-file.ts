// Reading a Codex rollout: token use through the shared incremental JSONL reader (rollout.ts says
// what a line means); the outcome of a finished command and the summary of the last compaction.
// Codex writes the command's `item_completed` line before it runs PostToolUse, and the
// `compacted` line before PostCompact, so both are near the end: the file is read backward in
// growing chunks, up to a bound (a huge output does not make a hook slow).
import type { TranscriptCursor, TranscriptRead } from '../adapter.js';
import { openRegularFile } from '../../store/fsx.js';
import { readJsonlUsage, type JsonlCursor, type LineRules } from '../transcript-file.js';
import type { CommandOutcome } from './protocol.js';
import { applyRolloutLine, commandOutcomeOf, compactionSummaryOf, EMPTY_ROLLOUT, RolloutBackwardScan, type RolloutState } from './rollout.js';

const CODEX_LINES: LineRules<RolloutState> = {
  empty: EMPTY_ROLLOUT,
  forward: applyRolloutLine,
  backward: () => new RolloutBackwardScan(),
  restore: ({ lastUsage, boundary, model, window, afterCompaction }) => ({ lastUsage, boundary, model, window, afterCompaction }),
};

export async function readRolloutUsage(file: string, previous?: TranscriptCursor): Promise<TranscriptRead> {
  const read = await readJsonlUsage(file, previous as JsonlCursor<RolloutState> | undefined, CODEX_LINES);
  return { cursor: read.cursor, view: read.view, changed: read.changed };
}

/** How far back from the end a line is looked for. */
export const SEARCH_BYTES = 8 * 1024 * 1024;

/**
 * How much of the rollout's end is read first: the lines a hook looks for are its last few (the
 * command's outcome, the compaction's summary and the two lines after it). A larger span is read
 * only when they are not there; each span is fresh memory (a page fault per 4 KB touched).
 */
const FIRST_SPAN = 64 * 1024;

/** The first answer `match` gives on the rollout's lines, newest first, within `limit` bytes of the end. */
async function fromEnd<T>(file: string, match: (line: string) => T | undefined, limit: number): Promise<T | undefined> {
  const handle = await openRegularFile(file);
  try {
    const size = (await handle.stat()).size;
    for (let span = Math.min(size, FIRST_SPAN); ; span = Math.min(size, limit, span * 4)) {
      const buf = Buffer.allocUnsafe(span);
      const { bytesRead } = await handle.read(buf, 0, span, size - span);
      // The first line may be cut by the chunk start: skipped unless the chunk starts the file.
      const found = newestMatch(buf.subarray(0, bytesRead), span < size, match);
      if (found !== undefined) return found;
      if (span >= size || span >= limit) return undefined;
    }
  } finally {
    await handle.close();
  }
}

/**
 * The first answer `match` gives on the lines of `bytes`, newest first, or undefined; the first
 * line is skipped when `cut`. Each line is decoded alone, from the end, until one answers: not
 * the whole span (a line feed is never part of a multi-byte character, so the lines are those
 * of the span decoded whole and split).
 */
function newestMatch<T>(bytes: Buffer, cut: boolean, match: (line: string) => T | undefined): T | undefined {
  for (let end = bytes.length; ; ) {
    const nl = end > 0 ? bytes.lastIndexOf(10, end - 1) : -1;
    if (nl === -1 && cut) return undefined;
    const found = match(bytes.toString('utf8', nl + 1, end));
    if (found !== undefined || nl === -1) return found;
    end = nl;
  }
}

/** The outcome of command `callId`, or undefined when it is not near the end. */
export function findCommandOutcome(file: string, callId: string, limit = SEARCH_BYTES): Promise<CommandOutcome | undefined> {
  return fromEnd(file, (line) => commandOutcomeOf(line, callId), limit);
}

/** The summary of the last compaction, or undefined when none is near the end. */
export function findCompactionSummary(file: string, limit = SEARCH_BYTES): Promise<string | undefined> {
  return fromEnd(file, compactionSummaryOf, limit);
}
