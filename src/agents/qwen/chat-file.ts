// Reading Qwen Code's chat file for token use, through the shared incremental JSONL reader
// (chat-log.ts says what a line means).
import type { TranscriptCursor, TranscriptRead, UsageView } from '../adapter.js';
import { readJsonlUsage, type JsonlCursor } from '../transcript-file.js';
import { usageLineRules } from '../usage-lines.js';
import { qwenLine } from './chat-log.js';

const QWEN_LINES = usageLineRules(qwenLine);

export async function readQwenUsage(file: string, previous?: TranscriptCursor): Promise<TranscriptRead> {
  const read = await readJsonlUsage(file, previous as JsonlCursor<UsageView> | undefined, QWEN_LINES);
  return { cursor: read.cursor, view: read.view, changed: read.changed };
}
