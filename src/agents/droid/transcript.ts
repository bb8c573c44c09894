// Droid's files beside a session (checked on 0.215.0): the transcript
// `~/.factory/sessions/<cwd slug>/<id>.jsonl` (one JSON message per line, no token figures) and
// `<id>.settings.json`, which holds the token use: `lastCallTokenUsage` {inputTokens (cached input
// left out), cacheReadTokens, cacheCreationTokens?, outputTokens}, rewritten after every model
// call (before the next hook runs). The context in use is the last call's whole prompt: input +
// cache read + cache creation (the API's prompt_tokens), as Claude Code's is counted. Both files
// are read size-capped and without following a link.
import type { TranscriptCursor, TranscriptRead, UsageView } from '../adapter.js';
import path from 'node:path';
import { closeSync, constants, fstatSync, openSync } from 'node:fs';
import { openRegularFile, readCapped, readRange } from '../../store/fsx.js';
import { isObject } from '../hook-json.js';

/** The transcript's last megabytes are enough for the last turn. */
const TAIL = 4 * 1024 * 1024;
/** The last turn is read back from the end this many bytes first (a turn is usually a few KB), each next block twice the last. */
const FIRST_BLOCK = 64 * 1024;
const SETTINGS_MAX = 1024 * 1024;

const parsedLine = (line: string): Record<string, unknown> | undefined => {
  if (!line.trim()) return undefined;
  try {
    const value = JSON.parse(line) as unknown;
    return isObject(value) ? value : undefined;
  } catch {
    return undefined; // a line still being written
  }
};

/**
 * The transcript's last lines as JSON (a line that does not parse is skipped), within its last
 * TAIL bytes (less the first line they cut), back to the last line `isStart` holds (included):
 * the last turn. Read from the end a block at a time, newest line first, so a Stop in a long
 * session reads its turn, not the whole transcript. `mayMatter` (given a line's raw bytes and the
 * lines kept so far, newest first) drops a line before it is decoded or parsed: a turn of many
 * calls then costs the JSON of the few lines its caller can use. Without a link followed;
 * unreadable: none.
 */
export function readTail(
  file: string,
  isStart: (line: Record<string, unknown>) => boolean = () => false,
  mayMatter: (bytes: Buffer, newer: readonly Record<string, unknown>[]) => boolean = () => true,
): Record<string, unknown>[] {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return [];
  }
  const lines: Record<string, unknown>[] = [];
  try {
    const stat = fstatSync(fd);
    const size = stat.isFile() ? stat.size : 0;
    const from = Math.max(0, size - TAIL);
    // The window in one buffer, each block read back into its place: a line across blocks is
    // whole there without a copy (a copy of each block and what it carried faulted its pages in
    // again), and what is never read is never touched (a large allocation is mapped lazily).
    const window = Buffer.allocUnsafe(size - from);
    // Where the bytes carried from the block after this one end: up to the first newline of what followed it.
    let restEnd = size - from;
    let newlineSeen = false;
    let block = FIRST_BLOCK;
    for (let end = size; end > from; block *= 2) {
      const start = Math.max(from, end - block);
      const got = readRange(fd, window.subarray(start - from, end - from), start).length;
      // A file cut short meanwhile: what was read, then what was carried, as one (what a copy joining them gave).
      if (got < end - start) {
        window.copyWithin(start - from + got, end - from, restEnd);
        restEnd -= end - start - got;
      }
      const data = window.subarray(start - from, restEnd);
      end = start;
      const newline = data.indexOf(10);
      if (newline < 0 && start > from) continue;
      // The window's first line is cut (readCapped's rule) unless the window is the whole file,
      // or holds no newline at all.
      const skip = start > from || from === 0 ? (start > from ? newline + 1 : 0) : newline >= 0 ? newline + 1 : newlineSeen ? data.length : 0;
      newlineSeen ||= newline >= 0;
      restEnd = start - from + (start > from ? newline : 0);
      // Line by line from the block's end, as bytes (a newline byte is never inside a UTF-8
      // character): only a line kept is decoded.
      for (let lineEnd = data.length; ; ) {
        const lineBreak = lineEnd > skip ? data.lastIndexOf(10, lineEnd - 1) : -1;
        const lineStart = lineBreak >= skip ? lineBreak + 1 : skip;
        const bytes = data.subarray(lineStart, lineEnd);
        const line = mayMatter(bytes, lines) ? parsedLine(bytes.toString('utf8')) : undefined;
        if (line) {
          lines.push(line);
          if (isStart(line)) return lines.reverse();
        }
        if (lineStart === skip) break;
        lineEnd = lineBreak;
      }
    }
  } catch {
    return [];
  } finally {
    closeSync(fd);
  }
  return lines.reverse();
}

/** The lines of a transcript's head that name a compaction's parent (compactionChain). */
const HEAD_LINES = 4;

/**
 * The transcript's first lines (up to 64 KiB), as JSON; none when their bytes cannot hold a
 * `session_start` line: every Droid hook asks, and a session a compaction did not start (nearly
 * every one) then costs no decoding and no JSON (the word could only hide behind a \u escape).
 */
async function readHead(file: string): Promise<Record<string, unknown>[]> {
  const handle = await openRegularFile(file);
  try {
    const buffer = Buffer.allocUnsafe(64 * 1024);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    let end = 0;
    for (let i = 0; i < HEAD_LINES && end < bytesRead; i++) {
      const newline = buffer.indexOf(10, end);
      end = newline < 0 || newline >= bytesRead ? bytesRead : newline + 1;
    }
    const head = buffer.subarray(0, end);
    if (head.indexOf('session_start') < 0 && head.indexOf('\\u') < 0) return [];
    const text = buffer.subarray(0, bytesRead).toString('utf8');
    return text.split('\n').slice(0, HEAD_LINES).flatMap((line) => {
      try {
        const value = JSON.parse(line) as unknown;
        return isObject(value) ? [value] : [];
      } catch {
        return [];
      }
    });
  } finally {
    await handle.close();
  }
}

const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;

/**
 * The session a compaction's new session continues: Droid's `compact_session` starts a session
 * whose transcript opens with `{"type":"session_start","parent":<old id>}` then a
 * `compaction_state` line. A chain of compactions is followed back (to a bounded depth) to the
 * first session, which is the wmem session of them all. Undefined: not a compaction's session.
 */
export async function compactionChain(transcript: string): Promise<{ root: string; parentTranscript: string } | undefined> {
  let file = transcript;
  let found: { root: string; parentTranscript: string } | undefined;
  for (let depth = 0; depth < 64; depth++) {
    const head = await readHead(file).catch(() => []);
    const parent = head[0]?.type === 'session_start' ? head[0].parent : undefined;
    if (typeof parent !== 'string' || !SESSION_ID.test(parent) || !head.some((l) => l.type === 'compaction_state')) break;
    const parentFile = path.join(path.dirname(file), `${parent}.jsonl`);
    found = { root: parent, parentTranscript: found?.parentTranscript ?? parentFile };
    file = parentFile;
  }
  return found;
}

/** `<transcript without .jsonl>.settings.json`. */
export function settingsFileOf(transcript: string): string {
  return transcript.replace(/\.jsonl$/, '') + '.settings.json';
}

const count = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : 0);

/** The usage a session settings file shows (pure). */
export function usageFromSettings(text: string | undefined): UsageView {
  let json: unknown;
  try {
    json = text === undefined ? undefined : JSON.parse(text);
  } catch {
    json = undefined;
  }
  if (!isObject(json)) return { lastUsage: null };
  const last = isObject(json.lastCallTokenUsage) ? json.lastCallTokenUsage : undefined;
  const used = last ? count(last.inputTokens) + count(last.cacheReadTokens) + count(last.cacheCreationTokens) : 0;
  const model = typeof json.model === 'string' && json.model ? json.model : undefined;
  return { lastUsage: used > 0 ? used : null, ...(model ? { model } : {}) };
}

interface DroidCursor extends TranscriptCursor {
  view: UsageView;
}

export async function readDroidUsage(file: string, previous?: TranscriptCursor): Promise<TranscriptRead> {
  const text = readCapped(settingsFileOf(file), SETTINGS_MAX);
  // A settings file gone since (or not written yet) keeps the last figure.
  const prior = previous?.path === file ? (previous as DroidCursor).view : undefined;
  const view = text === undefined && prior ? prior : usageFromSettings(text);
  const changed = JSON.stringify(view) !== JSON.stringify(prior);
  return { cursor: { path: file, view } as DroidCursor, view, changed };
}
