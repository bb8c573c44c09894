// Reading the GitHub Copilot CLI's events.jsonl for token use, through the shared incremental
// JSONL reader (events-log.ts says what a line means).
import type { TranscriptCursor, TranscriptRead } from '../adapter.js';
import { readJsonlUsage, type JsonlCursor, type LineRules } from '../transcript-file.js';
import { applyCopilotLine, CopilotBackwardScan, EMPTY_USAGE, type CopilotUsage } from './events-log.js';

const COPILOT_LINES: LineRules<CopilotUsage> = {
  empty: EMPTY_USAGE,
  forward: applyCopilotLine,
  backward: () => new CopilotBackwardScan(),
  restore: ({ lastUsage, boundary, model, window, afterCompaction }) => ({ lastUsage, boundary, model, window, afterCompaction }),
};

export async function readCopilotUsage(file: string, previous?: TranscriptCursor): Promise<TranscriptRead> {
  const read = await readJsonlUsage(file, previous as JsonlCursor<CopilotUsage> | undefined, COPILOT_LINES);
  return { cursor: read.cursor, view: read.view, changed: read.changed };
}
