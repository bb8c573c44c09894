// Reading the GitHub Copilot CLI's events.jsonl for token use, through the shared incremental
// JSONL reader (events-log.ts says what a line means).
import type { TranscriptCursor, TranscriptRead } from '../adapter.js';
import { readJsonlUsage, type JsonlCursor } from '../transcript-file.js';
import { usageLineRules } from '../usage-lines.js';
import type { UsageView } from '../adapter.js';
import { copilotLine } from './events-log.js';

const COPILOT_LINES = usageLineRules(copilotLine);

export async function readCopilotUsage(file: string, previous?: TranscriptCursor): Promise<TranscriptRead> {
  const read = await readJsonlUsage(file, previous as JsonlCursor<UsageView> | undefined, COPILOT_LINES);
  return { cursor: read.cursor, view: read.view, changed: read.changed };
}
