// Claude Code's transcript read incrementally: the shared JSONL reader with Claude Code's rules.
import { readJsonlUsage, type TranscriptRead } from '../transcript-file.js';
import { CLAUDE_LINES, type UsageState } from './transcript.js';

export interface TranscriptCursor extends UsageState {
  version: 1;
  path: string;
  /** Bytes up to and including the last newline read. */
  consumed: number;
  /** The 256 bytes before `consumed`, base64: tells an append from a rewrite. */
  tailHash: string;
}

export { MAX_LINE } from '../transcript-file.js';

/** Brings `previous` up to date with Claude Code's transcript at `file`. Throws ENOENT when it does not exist. */
export async function readTranscriptUsage(file: string, previous?: TranscriptCursor): Promise<TranscriptRead<UsageState>> {
  return readJsonlUsage(file, previous, CLAUDE_LINES);
}
