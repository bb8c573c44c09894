// scratch.md, the write-ahead log: one note a line, `- [time] (importance: x) text #tags`.
// A note's text is stored on one line (newlines and backslashes escaped) so that a line is a note.
// Lines that do not parse are kept and shown as they are, never dropped.

import { lazyRegExp } from './lazy-regexp.js';

/** A note this important or more is a decision (consolidation files it under decisions). */
export const DECISION_IMPORTANCE = 0.8;

export interface Note {
  time: string;
  importance: number;
  text: string;
  tags: string[];
  /** The exact line in scratch.md (without its newline). */
  raw: string;
  line: number;
}

export interface ScratchFile {
  notes: Note[];
  /** Lines that are neither notes, blank nor wmem's header comment, with their line numbers. */
  unparsed: { line: number; raw: string }[];
}

export const DEFAULT_IMPORTANCE = 0.5;
const NOTE = /^- \[(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z)\] \(importance: ([0-9.]+)\) ([\s\S]*)$/;
// A tag starts with a letter, so an issue number like #123 in the text stays text.
const TAG = lazyRegExp('(?:^|\\s)#(\\p{L}[\\p{L}\\p{N}_-]*)', 'gu');
// TAG on ASCII text, where \p{L} is [A-Za-z] and \p{N} is [0-9]: V8 compiles a Unicode property
// class by building ICU's sets, ~7 M instructions on the first note of every prompt that parses
// scratch.md (the agent edited its overview: bench/README.md, prompt15), and notes are mostly ASCII.
const ASCII_TAG = /(?:^|\s)#([A-Za-z][A-Za-z0-9_-]*)/g;
const NOT_ASCII = /[^\x00-\x7f]/;

/** The tags in a note's text, in order (the same as TAG finds, on any text). */
export function tagsIn(text: string): string[] {
  return [...text.matchAll(NOT_ASCII.test(text) ? TAG() : ASCII_TAG)].map((m) => m[1]);
}

// Control characters (terminal escapes, NUL, a lone CR) and Unicode line separators would break
// the one-note-a-line rule or reach a terminal raw, so they are stored escaped.
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029]/g;

export function escapeNoteText(text: string): string {
  return text
    .replace(/\\/g, '\\\\')
    .replace(/\r?\n/g, '\\n')
    .replace(CONTROL, (c) => `\\u{${c.codePointAt(0)!.toString(16)}}`);
}

export function unescapeNoteText(text: string): string {
  return text.replace(/\\(\\|n|u\{([0-9a-f]{1,6})\})/g, (_, c: string, hex?: string) =>
    c === 'n' ? '\n' : c === '\\' ? '\\' : String.fromCodePoint(parseInt(hex!, 16)),
  );
}

export function normalizeTag(tag: string): string {
  return tag.replace(/^#/, '').trim();
}

export function formatNote(input: { time: Date; importance: number; text: string; tags?: string[] }): string {
  const importance = Number(input.importance.toFixed(2));
  const tags = (input.tags ?? []).map(normalizeTag).filter(Boolean);
  const existing = new Set(tagsIn(input.text));
  const suffix = tags.filter((t) => !existing.has(t)).map((t) => ` #${t}`).join('');
  const time = input.time.toISOString().replace(/\.\d{3}Z$/, 'Z');
  return `- [${time}] (importance: ${importance}) ${escapeNoteText(input.text.trim())}${suffix}`;
}

export function parseNoteLine(raw: string, line: number): Note | undefined {
  const match = NOTE.exec(raw);
  if (!match) return undefined;
  const importance = Number(match[2]);
  if (!Number.isFinite(importance) || importance < 0 || importance > 1) return undefined;
  const stored = match[3];
  return {
    time: match[1],
    importance,
    text: stored.includes('\\') ? unescapeNoteText(stored) : stored,
    tags: stored.includes('#') ? tagsIn(stored) : [],
    raw,
    line,
  };
}

export function isScratchHeader(raw: string): boolean {
  return raw.startsWith('<!--') && /^<!--\s*wmem scratch\b[\s\S]*-->\s*$/.test(raw);
}

/** A line of scratch.md as a note is read from it (without its CR); undefined for a blank line or wmem's header. */
function noteLine(raw: string): string | undefined {
  const clean = raw.replace(/\r$/, '');
  return clean.trim() === '' || isScratchHeader(clean) ? undefined : clean;
}

export function parseScratch(text: string): ScratchFile {
  const notes: Note[] = [];
  const unparsed: ScratchFile['unparsed'] = [];
  const lines = text.split('\n');
  lines.forEach((raw, index) => {
    const clean = noteLine(raw);
    if (clean === undefined) return;
    const note = parseNoteLine(clean, index + 1);
    if (note) notes.push(note);
    else unparsed.push({ line: index + 1, raw: clean });
  });
  return { notes, unparsed };
}

export function validateImportance(value: string | number | undefined): number {
  if (value === undefined) return DEFAULT_IMPORTANCE;
  const n = typeof value === 'number' ? value : Number(value);
  if (typeof value === 'string' && value.trim() === '') return NaN;
  return n;
}

/** A note that records a decision: importance 0.8 or more, or tagged #decisions. */
export function isDecision(note: Pick<Note, 'importance' | 'tags'>): boolean {
  return note.importance >= 0.8 || note.tags.includes('decisions');
}

/**
 * The last `n` decisions among notes not yet consolidated (newest last), as one line each. Read
 * from the end, each line as parseScratch reads it, until `n` are found: parsing every note of the
 * tail (~12 KB) made ~120 KB of young allocation on each render of the session state, most of a
 * scavenge (bench/README.md, prompt15).
 */
export function recentDecisions(scratchTail: string, n = 3): string[] {
  const lines = scratchTail.split('\n');
  const decisions: Note[] = [];
  for (let i = lines.length - 1; i >= 0 && decisions.length < n; i--) {
    const clean = noteLine(lines[i]);
    const note = clean === undefined ? undefined : parseNoteLine(clean, i + 1);
    if (note && isDecision(note)) decisions.push(note);
  }
  return decisions.reverse().map((d) => d.text.replace(/\s+/g, ' ').replace(/(^|\s)#decisions(?=\s|$)/, '$1').trim()).map((t) => (t.length > 200 ? t.slice(0, 199) + '…' : t));
}
