// Reading a Codex rollout: token use through the shared incremental JSONL reader (rollout.ts says
// what a line means), and the outcome of a finished command. Codex writes the command's
// `item_completed` line before it runs PostToolUse, so the line is near the end: the file is read
// backward in growing chunks, up to a bound (a huge command output does not make a hook slow).
import { promises as fs } from 'node:fs';
import type { TranscriptCursor, TranscriptRead } from '../adapter.js';
import { readJsonlUsage, type LineGrammar } from '../transcript-file.js';
import type { CommandOutcome } from './protocol.js';
import { applyRolloutLine, commandOutcomeOf, EMPTY_ROLLOUT, RolloutBackwardScan, type RolloutState } from './rollout.js';

const GRAMMAR: LineGrammar<RolloutState> = { empty: EMPTY_ROLLOUT, apply: applyRolloutLine, backward: () => new RolloutBackwardScan() };

export async function readRolloutUsage(file: string, previous?: TranscriptCursor): Promise<TranscriptRead> {
  const read = await readJsonlUsage(file, previous as Parameters<typeof readJsonlUsage<RolloutState>>[1], GRAMMAR);
  return { cursor: read.cursor, view: read.view, changed: read.changed };
}

/** How far back from the end a command's line is looked for. */
export const OUTCOME_SEARCH_BYTES = 8 * 1024 * 1024;

/** The outcome of command `callId` from the end of the rollout, or undefined when not found. */
export async function findCommandOutcome(file: string, callId: string, limit = OUTCOME_SEARCH_BYTES): Promise<CommandOutcome | undefined> {
  const handle = await fs.open(file, 'r');
  try {
    const size = (await handle.stat()).size;
    for (let span = Math.min(size, 256 * 1024); ; span = Math.min(size, limit, span * 4)) {
      const buf = Buffer.alloc(span);
      const { bytesRead } = await handle.read(buf, 0, span, size - span);
      const text = buf.toString('utf8', 0, bytesRead);
      // The first line may be cut by the chunk start: skipped unless the chunk starts the file.
      const lines = text.split('\n');
      if (span < size) lines.shift();
      for (let i = lines.length - 1; i >= 0; i--) {
        const outcome = commandOutcomeOf(lines[i], callId);
        if (outcome) return outcome;
      }
      if (span >= size || span >= limit) return undefined;
    }
  } finally {
    await handle.close();
  }
}
