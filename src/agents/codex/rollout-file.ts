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

/** The first answer `match` gives on the rollout's lines, newest first, within `limit` bytes of the end. */
async function fromEnd<T>(file: string, match: (line: string) => T | undefined, limit: number): Promise<T | undefined> {
  const handle = await openRegularFile(file);
  try {
    const size = (await handle.stat()).size;
    for (let span = Math.min(size, 256 * 1024); ; span = Math.min(size, limit, span * 4)) {
      const buf = Buffer.alloc(span);
      const { bytesRead } = await handle.read(buf, 0, span, size - span);
      const lines = buf.toString('utf8', 0, bytesRead).split('\n');
      // The first line may be cut by the chunk start: skipped unless the chunk starts the file.
      if (span < size) lines.shift();
      for (let i = lines.length - 1; i >= 0; i--) {
        const found = match(lines[i]);
        if (found !== undefined) return found;
      }
      if (span >= size || span >= limit) return undefined;
    }
  } finally {
    await handle.close();
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
