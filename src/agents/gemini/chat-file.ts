// Reading a Gemini CLI chat file for token use, through the shared incremental JSONL reader
// (chat.ts says what a line means).
import type { TranscriptCursor, TranscriptRead } from '../adapter.js';
import { readJsonlUsage, type LineGrammar } from '../transcript-file.js';
import { applyChatLine, ChatBackwardScan, EMPTY_CHAT, type ChatState } from './chat.js';

const GRAMMAR: LineGrammar<ChatState> = { empty: EMPTY_CHAT, apply: (state, line) => applyChatLine(state, line), backward: () => new ChatBackwardScan() };

export async function readChatUsage(file: string, previous?: TranscriptCursor): Promise<TranscriptRead> {
  const read = await readJsonlUsage(file, previous as Parameters<typeof readJsonlUsage<ChatState>>[1], GRAMMAR);
  return { cursor: read.cursor, view: read.view, changed: read.changed };
}
