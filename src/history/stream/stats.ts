// Figures about messages.jsonl that `wmem context` needs on every prompt (messages, the last
// reported usage, optionally a token count), kept incrementally: the file is mostly appended
// to, so only the bytes after the last scan are read. A rewrite (compaction) is detected by a
// hash of the bytes before that point, and triggers a full rescan.
import { closeSync, createReadStream, openSync, readSync, statSync } from 'node:fs';
import { classifyValue, messageText, parseJsonLine } from '../model/lines.js';
import type { UsageLines } from '../model/usage.js';
import type { HistoryStats } from '../../store/context-cache.js';

export const EMPTY_STATS: HistoryStats = { version: 1, consumed: 0, tailHash: '', messages: 0, lastUsage: null, tokens: null };

async function hashBefore(file: string, end: number): Promise<string> {
  if (end === 0) return '';
  const start = Math.max(0, end - 256);
  const fd = openSync(file, 'r');
  try {
    const buf = Buffer.alloc(end - start);
    readSync(fd, buf, 0, buf.length, start);
    return buf.toString('base64');
  } finally {
    closeSync(fd);
  }
}

type Counter = (text: string) => number;

type Running = Pick<HistoryStats, 'messages' | 'lastUsage' | 'tokens' | 'model' | 'window'>;

function scanLine(line: string, stats: Running, usage: UsageLines, count?: Counter) {
  const value = parseJsonLine(line);
  const event = usage.event(value);
  if (event?.kind === 'boundary') stats.lastUsage = null;
  else if (event?.kind === 'usage') {
    stats.lastUsage = event.tokens;
    if (event.model) stats.model = event.model;
    if (event.window) stats.window = event.window;
  }
  const info = classifyValue(value);
  if (info.kind === 'message') {
    stats.messages++;
    if (count && stats.tokens !== null) stats.tokens += count(messageText(info));
  }
}

/**
 * Brings `previous` up to date with `file`. Returns the new stats for the complete lines, and
 * separately the figures including a trailing line without a newline (not cached: it may grow).
 * `usage`: what a line says about token use (the caller's rules: history/ knows no agent).
 */
export async function updateHistoryStats(
  file: string,
  previous: HistoryStats | undefined,
  usage: UsageLines,
  count?: Counter,
): Promise<{ stats: HistoryStats; view: HistoryStats; changed: boolean }> {
  let size: number;
  try {
    size = statSync(file).size;
  } catch {
    return { stats: EMPTY_STATS, view: { ...EMPTY_STATS, tokens: count ? 0 : null }, changed: previous !== undefined && previous.consumed !== 0 };
  }
  let base: HistoryStats = EMPTY_STATS;
  if (previous && previous.consumed <= size && (!count || previous.tokens !== null)) {
    if ((await hashBefore(file, previous.consumed)) === previous.tailHash) base = previous;
  }
  const running: Running = { messages: base.messages, lastUsage: base.lastUsage, tokens: count ? (base.tokens ?? 0) : base.tokens, model: base.model, window: base.window };
  let consumed = base.consumed;
  let pending = '';
  if (size > consumed) {
    const stream = createReadStream(file, { start: consumed, encoding: 'utf8', highWaterMark: 1 << 20 });
    for await (const chunk of stream) {
      const text = pending + (chunk as string);
      let from = 0;
      for (let nl = text.indexOf('\n', from); nl !== -1; nl = text.indexOf('\n', from)) {
        const line = text.slice(from, nl);
        consumed += Buffer.byteLength(line, 'utf8') + 1;
        scanLine(line, running, usage, count);
        from = nl + 1;
      }
      pending = text.slice(from);
    }
  }
  const stats: HistoryStats = { version: 1, consumed, tailHash: await hashBefore(file, consumed), ...running };
  const view = { ...stats };
  if (pending.trim()) scanLine(pending, view, usage, count);
  const changed = !previous || previous.consumed !== stats.consumed || previous.tailHash !== stats.tailHash || previous.tokens !== stats.tokens;
  return { stats, view, changed };
}
