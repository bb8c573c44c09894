// What the full scan (search-corpus.ts) and the raw-byte search (search-raw.ts) read alike in an
// archive's bytes: how its text is decoded, and where a line's day is.
import { isAscii } from 'node:buffer';

/**
 * Archives are mostly ASCII: checked in one native pass, such bytes are decoded as Latin-1 (the
 * same characters, several times faster than UTF-8 decoding); any other byte means UTF-8.
 */
export function decodeText(bytes: Buffer): string {
  return isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8');
}

/** A line's day from its `timestamp` (Claude Code, Codex and most agents write one on every line). */
export const TIMESTAMP_KEY = '"timestamp":"';
export const DAY = /^\d{4}-\d{2}-\d{2}T/;
