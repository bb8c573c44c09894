// The conversation of an agent that keeps no transcript file wmem can read (OpenCode keeps its
// messages in SQLite): the hook input carries the messages, and wmem keeps them in a JSONL file of
// its own in the session's state folder, one line per message id, appended in order and never
// rewritten, so the archive's byte offsets (history/compaction/archive-transcript.ts) stay valid.
import { readTextIfExists, appendDurably } from './fsx.js';

/**
 * How every line this file gets starts (protocol.ts stringifies OpenCode's message: its info
 * first, the id first in that), the id without escapes: read without parsing the line, which a
 * compaction did for every message of the session (the file only grows).
 */
const LEAD = /^\{"info":\{"id":"([^"\\]*)"/;

/**
 * The id of a line the file holds. `whole`: the line ends in a newline. A write cut short (a kill
 * inside the append) leaves the file's last line without one, and may cut it right after a `}`:
 * that line is parsed, never read by its lead, so a cut copy never counts as its message kept
 * (the message is then appended whole after it). Every line before it was ended by its own append.
 */
function idOf(line: string, whole: boolean): string | undefined {
  const lead = whole && line.endsWith('}') ? LEAD.exec(line) : null;
  if (lead) return lead[1];
  try {
    const parsed = JSON.parse(line) as { id?: unknown; info?: { id?: unknown } };
    const id = parsed?.info?.id ?? parsed?.id;
    return typeof id === 'string' ? id : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Appends the messages whose id the file does not hold yet; returns how many were added. The
 * caller holds the session lock. Not fsynced: the archive that reads them next fsyncs the file
 * beside its own files, before its record names these bytes (archive-transcript.ts `prepare`).
 */
export async function mirrorConversation(file: string, messages: { id: string; line: string }[]): Promise<number> {
  const text = (await readTextIfExists(file)) ?? '';
  const lines = text.split('\n');
  const known = new Set(lines.map((line, i) => idOf(line, i < lines.length - 1)).filter((id): id is string => !!id));
  const fresh = messages.filter((m) => !known.has(m.id) && !m.line.includes('\n') && (known.add(m.id), true));
  if (fresh.length) await appendDurably(file, fresh.map((m) => m.line + '\n').join(''), { onNewLine: true, what: 'the conversation', sync: false });
  return fresh.length;
}
