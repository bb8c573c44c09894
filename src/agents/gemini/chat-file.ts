// Reading a Gemini CLI chat file for token use, through the shared incremental JSONL reader
// (chat.ts says what a line means).
import type { TranscriptCursor, TranscriptRead } from '../adapter.js';
import { readJsonlUsage, type JsonlCursor, type LineRules } from '../transcript-file.js';
import { applyChatLine, ChatBackwardScan, EMPTY_CHAT, type ChatState } from './chat.js';

const GEMINI_LINES: LineRules<ChatState> = {
  empty: EMPTY_CHAT,
  forward: (state, line) => applyChatLine(state, line),
  backward: () => new ChatBackwardScan(),
  restore: ({ lastUsage, boundary, model, window }) => {
    const state: ChatState = { lastUsage };
    if (boundary !== undefined) state.boundary = boundary;
    if (model !== undefined) state.model = model;
    if (window !== undefined) state.window = window;
    return state;
  },
};

export async function readChatUsage(file: string, previous?: TranscriptCursor): Promise<TranscriptRead> {
  const read = await readJsonlUsage(file, previous as JsonlCursor<ChatState> | undefined, GEMINI_LINES);
  return { cursor: read.cursor, view: read.view, changed: read.changed };
}
