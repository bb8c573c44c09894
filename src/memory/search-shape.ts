// Pure: ranking that uses the shape of a conversation (docs/commands.md `wmem search`). Line-level
// BM25 misses what a conversation says across lines: the answer is often the reply to the line that
// holds the question's words, and a question often names the day it is about ("on May 2nd"). After
// the line ranking, each archived message line is scored with the lines before and after it, and
// lines of a day the query names are lifted (the first lines of that day join the list when none
// of them matched); a line next to a better one (already in that hit's context) yields its place,
// and so does every line but the best of a short day (one exchange). A day is also a document:
// its BM25 score over all its lines adds to each line (dayScores, used by the line ranking).
// The lines before count only within an exchange with the model (lends): between people, a line's
// words are its own. A question that asks when or how many lifts lines that hold a time or a number
// (answerCue).
import type { Scored } from './search.js';
import { K1, bm25, idfOf, type WeightedTerm } from './bm25.js';

/** A day in an archived messages file: from `line` (1-based) on, messages are of `date` (YYYY-MM-DD, UTC). */
export type DayRun = [line: number, date: string];

export interface QueryDate {
  month: number;
  day: number;
  year?: number;
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const MONTH = '(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\\.?';
const DAY = '(\\d{1,2})(?:st|nd|rd|th)?';
const YEAR = '(?:,?\\s+(\\d{4}))?';
const DATE_FORMS: { re: RegExp; parts: (m: RegExpExecArray) => QueryDate | undefined }[] = [
  { re: /\b(\d{4})-(\d{2})-(\d{2})\b/g, parts: (m) => ({ year: Number(m[1]), month: Number(m[2]), day: Number(m[3]) }) },
  { re: new RegExp(`\\b${MONTH}\\s+${DAY}\\b${YEAR}`, 'gi'), parts: (m) => ({ month: MONTHS.indexOf(m[1].slice(0, 3).toLowerCase()) + 1, day: Number(m[2]), ...(m[3] ? { year: Number(m[3]) } : {}) }) },
  { re: new RegExp(`\\b${DAY}\\s+(?:of\\s+)?${MONTH}${YEAR}`, 'gi'), parts: (m) => ({ month: MONTHS.indexOf(m[2].slice(0, 3).toLowerCase()) + 1, day: Number(m[1]), ...(m[3] ? { year: Number(m[3]) } : {}) }) },
  // Day first with dots ("14.01.2024", as most of Europe writes it); month first only when the second number cannot be a month (01.14.2024).
  { re: /\b(\d{1,2})\.(\d{1,2})\.(\d{4})\b/g, parts: (m) => (Number(m[2]) > 12 ? { month: Number(m[1]), day: Number(m[2]), year: Number(m[3]) } : { day: Number(m[1]), month: Number(m[2]), year: Number(m[3]) }) },
];

/** The calendar days a query names ("May 2nd", "2 May 2023", "2023-05-02"). */
export function queryDates(raw: string): QueryDate[] {
  const out: QueryDate[] = [];
  for (const form of DATE_FORMS) {
    for (const m of raw.matchAll(form.re)) {
      const d = form.parts(m as RegExpExecArray);
      if (!d || d.month < 1 || d.month > 12 || d.day < 1 || d.day > 31) continue;
      if (!out.some((o) => o.month === d.month && o.day === d.day && o.year === d.year)) out.push(d);
    }
  }
  return out;
}

export function dateMatches(date: string, wanted: QueryDate[]): boolean {
  const year = Number(date.slice(0, 4));
  const month = Number(date.slice(5, 7));
  const day = Number(date.slice(8, 10));
  return wanted.some((w) => w.month === month && w.day === day && (w.year === undefined || w.year === year));
}

/** The date of a line from its file's day runs (sorted by line), if known. */
export function dateOfLine(days: readonly DayRun[] | undefined, line: number): string | undefined {
  if (!days?.length) return undefined;
  let lo = 0;
  let hi = days.length - 1;
  if (line < days[0][0]) return undefined;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (days[mid][0] <= line) lo = mid;
    else hi = mid - 1;
  }
  return days[lo][1];
}

/**
 * How much the two lines before a line count toward its score (an answer follows its question, and
 * often the exchange that set it up), how much the line after (0: measured no better), and how much
 * a named day lifts its lines. Measured on the dev part of bench/data (bench/README.md).
 */
export const BEFORE_WEIGHTS = [0.8, 0.5];
export const AFTER_WEIGHT = 0;
export const DATE_BOOST = 1;
/**
 * A line of a conversation this close to a better-ranked line of the same file is already in that
 * hit's context (the line before and after it), so it goes after the other hits rather than taking
 * a place of its own: the top places reach more exchanges. Measured on the dev parts of bench/data.
 */
export const NEIGHBOUR_GAP = 1;
/**
 * A day of at most this many lines is one exchange: its best line stands for it in the first
 * places and its other lines go after the other hits (more sessions reach the top places).
 */
export const SHORT_DAY = 4;
/** A bare Markdown heading of a memory file ("## Current Task") names a section, not a fact: it keeps this share of its score. */
export const HEADING_WEIGHT = 0.3;
const BARE_HEADING = /^#{1,6}\s+\S+(?:\s+\S+){0,3}\s*$/;
/** Lines of a named day added (from its start) when none of them matched a word of the query. */
const DAY_OPENING_LINES = 4;

export interface ShapeSource {
  /** Archived messages: a line's neighbours are the conversation around it. */
  conversation: boolean;
  days?: readonly DayRun[];
  /** Lines in the file (neighbours stop at its ends). */
  lines?: number;
}

export interface ShapeContext {
  sources: readonly ShapeSource[];
  dates: QueryDate[];
  /** The query's words, lowercased (querySpeakers): a conversation line whose speaker they name is lifted. */
  speakers?: ReadonlySet<string>;
  /** The query as typed: the kind of answer it asks for (answerCue). */
  query?: string;
  /** A line as a scored entry with no term of its own (score 0), or undefined when it cannot be read. */
  lineAt(source: number, line: number): Scored | undefined;
}

/**
 * Rescores the shortlist: each line of a conversation adds BEFORE_WEIGHTS of the two lines before it
 * (when they lend it: lends) and AFTER_WEIGHT of the line after (the lines after a shortlisted
 * line join the list), and lines of a day the query names are multiplied by 1 + DATE_BOOST; a bare
 * heading of a memory file keeps HEADING_WEIGHT of its score. Best first, ties in (source, line) order, neighbours of a better line
 * after the others (spreadNeighbours).
 */
export function reshape(scored: Scored[], ctx: ShapeContext): Scored[] {
  const key = (source: number, line: number) => `${source}:${line}`;
  const base = new Map<string, Scored>();
  for (const s of scored) base.set(key(s.candidate.source, s.candidate.line), s);
  const out = new Map<string, Scored>();
  const cue = ctx.query ? answerCue(ctx.query) : undefined;
  const baseScore = (source: number, line: number) => base.get(key(source, line))?.score ?? 0;
  const consider = (source: number, line: number, own?: Scored) => {
    const k = key(source, line);
    if (out.has(k)) return;
    const info = ctx.sources[source];
    if (line < 1 || (info?.lines !== undefined && line > info.lines)) return;
    const entry = own ?? ctx.lineAt(source, line);
    if (!entry) return;
    let score = own?.score ?? 0;
    if (!info?.conversation && BARE_HEADING.test(entry.candidate.text)) score *= HEADING_WEIGHT;
    if (info?.conversation) {
      BEFORE_WEIGHTS.forEach((w, k) => {
        const giver = base.get(key(source, line - 1 - k));
        if (giver && lends(giver, entry, k, (back) => base.get(key(source, line - back)) ?? ctx.lineAt(source, line - back))) score += w * giver.score;
      });
      score += AFTER_WEIGHT * baseScore(source, line + 1);
    }
    if (cue?.(entry.candidate.text)) score *= 1 + CUE_BOOST;
    if (info?.conversation && ctx.speakers?.size) {
      const who = speakerOf(entry.candidate.text);
      if (who && ctx.speakers.has(who)) score *= SPEAKER_BOOST;
    }
    if (ctx.dates.length && info?.days) {
      const date = dateOfLine(info.days, line);
      if (date && dateMatches(date, ctx.dates)) score *= 1 + DATE_BOOST;
    }
    out.set(k, { ...entry, score });
  };
  // Shortlisted lines first: a line is scored once, with its own score when it has one.
  for (const s of scored) consider(s.candidate.source, s.candidate.line, s);
  for (const s of scored) {
    const { source, line } = s.candidate;
    if (ctx.sources[source]?.conversation) {
      if (AFTER_WEIGHT) consider(source, line - 1);
      BEFORE_WEIGHTS.forEach((_, k) => consider(source, line + 1 + k));
    }
  }
  if (ctx.dates.length) addDayOpenings(scored, ctx, consider);
  const sorted = [...out.values()].sort((a, b) => b.score - a.score || a.candidate.source - b.candidate.source || a.candidate.line - b.candidate.line);
  return spreadNeighbours(sorted, ctx.sources);
}

/**
 * How much a conversation line is lifted when the query names its speaker (the line's leading
 * "Name:" label, "What are Kate's hobbies?" → "Kate: I took up skiing"): in a chat between people,
 * what someone likes or did is what they said. Measured on REALTALK's dev part (bench/README.md).
 */
export const SPEAKER_BOOST = 3;
const SPEAKER_LABEL = /^(\p{L}[\p{L}'\u2019.-]{0,39}):\s/u;

/** The speaker a line's text names in its leading "Name:" label, after its role ("user: Kate: …" → "kate"; the role itself is none). */
export function speakerOf(text: string): string | undefined {
  const label = labelled(text).label?.toLowerCase();
  // A role however written ("User:", "Assistant:") names no speaker.
  return label === 'user' || label === 'assistant' ? undefined : label;
}

/**
 * The words of a query that can name a speaker, lowercased, a possessive's "'s" dropped ("Kate's" →
 * "kate"): written as a name is (a capital first letter), and not the query's first word unless
 * possessive. So "Error in the deploy" or "note on retries" lifts no line that opens "Error:" or
 * "Note:" (an agent's tool output), while "What are Kate's hobbies?" names Kate.
 */
export function querySpeakers(raw: string): Set<string> {
  const words = raw.match(/[\p{L}'\u2019.-]+/gu) ?? [];
  const names = words.filter((w, i) => /^\p{Lu}/u.test(w) && (i > 0 || /['\u2019]s?$/.test(w)));
  return new Set(names.map((w) => w.toLowerCase().replace(/['\u2019]s$/, '').replace(/[.'\u2019-]+$/, '')));
}

/** How much a line that holds what the question asks for (answerCue) is lifted. Measured on REALTALK's dev part (bench/README.md). */
export const CUE_BOOST = 0.3;
const NUMBER = /\b(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|forty|fifty|hundred|thousand|once|twice|several|few|couple|dozen)\b/i;
const TIME = /\b(?:\d+|today|tonight|yesterday|tomorrow|ago|last|next|since|week|weekend|month|year|morning|evening|night|monday|tuesday|wednesday|thursday|friday|saturday|sunday|january|february|march|april|may|june|july|august|september|october|november|december|christmas|summer|winter|spring|fall)\b/i;

/**
 * What kind of answer a question asks for, as a test on a line's text (its role and speaker label
 * left out): "how many / much / often / long" a number, "when" a time ("When did Kate start
 * skiing?" → "I started last winter"). Undefined for any other query.
 */
export function answerCue(raw: string): ((text: string) => boolean) | undefined {
  const q = raw.toLowerCase();
  const kind = /\bhow (?:many|much|often|long)\b/.test(q) ? NUMBER : /^\s*when\b/.test(q) ? TIME : undefined;
  return kind && ((text) => kind.test(labelled(text).body));
}

/** A line's text after its role, split into its leading "Name:" label (as written) and what follows. */
function labelled(text: string): { label?: string; body: string } {
  const role = roleOf(text);
  const rest = role ? text.slice(role.length + 2) : text;
  const label = SPEAKER_LABEL.exec(rest);
  return label ? { label: label[1], body: rest.slice(label[0].length) } : { body: rest };
}

/** The role a messages line's searchable text starts with ("user: …"), when the text shows it. */
export function roleOf(text: string): 'user' | 'assistant' | undefined {
  return text.startsWith('user: ') ? 'user' : text.startsWith('assistant: ') ? 'assistant' : undefined;
}

/**
 * Whether `giver`, `k + 1` lines before `receiver`, lends it its BEFORE_WEIGHTS share. The credit
 * models an exchange with the model (a request and its answer, the exchange that set it up), so it
 * does not run through user lines alone (`back(n)`: the line n before the receiver): between two
 * people, or in a user's notes one after another, a line's words are its own, and the reply after
 * it would take its place (REALTALK's dev part, bench/README.md). A role the text does not show
 * (a window of a long line) lends as before.
 */
export function lends(giver: Scored, receiver: Scored, k: number, back: (n: number) => Scored | undefined): boolean {
  if (roleOf(giver.candidate.text) !== 'user' || roleOf(receiver.candidate.text) !== 'user') return true;
  for (let n = 1; n <= k; n++) {
    const between = back(n);
    if (between && roleOf(between.candidate.text) !== 'user') return true;
  }
  return false;
}

/** Best first, but a conversation line within NEIGHBOUR_GAP of a line placed before it goes after the others (in its order). */
export function spreadNeighbours(sorted: Scored[], sources: readonly ShapeSource[]): Scored[] {
  const placed = new Set<string>();
  const shortDays = new Set<string>();
  const first: Scored[] = [];
  const later: Scored[] = [];
  for (const s of sorted) {
    const { source, line } = s.candidate;
    const info = sources[source];
    let near = false;
    if (info?.conversation) for (let d = 1; d <= NEIGHBOUR_GAP && !near; d++) near = placed.has(`${source}:${line - d}`) || placed.has(`${source}:${line + d}`);
    const day = info?.conversation ? shortDay(info, line) : undefined;
    if (day !== undefined && shortDays.has(`${source}:${day}`)) near = true;
    if (near) later.push(s);
    else {
      first.push(s);
      placed.add(`${source}:${line}`);
      if (day !== undefined) shortDays.add(`${source}:${day}`);
    }
  }
  return later.length ? [...first, ...later] : first;
}

/** The day (run index, first line, lines) of a conversation line, from its file's day runs. */
export function dayOf(info: ShapeSource, line: number): { run: number; start: number; lines: number } | undefined {
  const days = info.days;
  if (!days?.length || line < days[0][0]) return undefined;
  let lo = 0;
  let hi = days.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (days[mid][0] <= line) lo = mid;
    else hi = mid - 1;
  }
  const start = days[lo][0];
  const end = lo + 1 < days.length ? days[lo + 1][0] : Math.max((info.lines ?? start) + 1, start + 1);
  return { run: lo, start, lines: end - start };
}

/** The first line of the day holding `line` when that day has at most SHORT_DAY lines. */
function shortDay(info: ShapeSource, line: number): number | undefined {
  const day = dayOf(info, line);
  return day && day.lines <= SHORT_DAY ? day.start : undefined;
}

/** How much a line's day (BM25 over whole days) adds to the line's score. Measured on the dev parts of bench/data. */
export const DAY_WEIGHT = 0.5;

/**
 * BM25 over whole days of conversation (each day of each archived file one document, its term counts
 * the sum of its lines'), as a function of a line: what a session says across its lines
 * (the user's request, the options, the choice) counts together. `visit` walks every candidate line.
 */
export function dayScores(terms: readonly WeightedTerm[], shape: readonly ShapeSource[], visit: (add: (source: number, line: number, tf: ArrayLike<number>, at: number) => void, addCount: (source: number, line: number, terms: readonly number[], count: number) => void) => void): (source: number, line: number) => number {
  const T = terms.length;
  const { days: N, lines: allLines } = dayDocuments(shape);
  if (!N || !T) return () => 0;
  type Day = { tf: Float64Array; lines: number; score: number; source: number; start: number; end: number };
  const days = new Map<number, Day>();
  // Lines come in order within a source: the day of the last line is most often the next one's.
  let last: Day | undefined;
  const dayAt = (source: number, line: number, make: boolean): Day | undefined => {
    if (last && last.source === source && line >= last.start && line < last.end) return last;
    const info = shape[source];
    const day = info?.conversation ? dayOf(info, line) : undefined;
    if (!day) return undefined;
    const k = source * 1_000_000 + day.run;
    let d = days.get(k);
    if (!d && make) days.set(k, (d = { tf: new Float64Array(T), lines: day.lines, score: 0, source, start: day.start, end: day.start + day.lines }));
    return d ? (last = d) : undefined;
  };
  // A day's counts are sums of whole numbers (exact in a double): the same in whatever order or
  // grouping they come, a line's at a time (add) or a day's postings of one token at a time (addCount).
  visit(
    (source, line, tf, at) => {
      const d = dayAt(source, line, true);
      if (d) for (let t = 0; t < T; t++) d.tf[t] += tf[at + t];
    },
    (source, line, hits, count) => {
      const d = dayAt(source, line, true);
      if (d) for (let h = 0; h < hits.length; h++) d.tf[hits[h]] += count;
    },
  );
  const df = new Array<number>(T).fill(0);
  for (const d of days.values()) for (let t = 0; t < T; t++) if (d.tf[t]) df[t]++;
  const idf = idfOf(df, N);
  const avg = allLines / N;
  const best = new Float64Array(T);
  for (const d of days.values()) d.score = bm25(terms, idf, d.tf, 0, d.lines, avg, best);
  return (source, line) => dayAt(source, line, false)?.score ?? 0;
}

/** The documents dayScores ranks: the days of every conversation, and the lines they span. */
function dayDocuments(shape: readonly ShapeSource[]): { days: number; lines: number } {
  let days = 0;
  let lines = 0;
  for (const info of shape) {
    if (!info.conversation || !info.days?.length) continue;
    days += info.days.length;
    lines += Math.max(info.lines ?? 0, info.days[info.days.length - 1][0]) - info.days[0][0] + 1;
  }
  return { days, lines };
}

/**
 * The most any day's score (dayScores) can be, known before the days are added up: each group's
 * best term at its weight, as rare as a term on any day can be (one day) and counted without
 * limit; `present(t)`: whether term t is anywhere (a term on no line adds nothing to any day).
 * With room for rounding. The ranking compares a conversation's bound with it before walking the
 * conversation for its days' sums (search.ts).
 */
export function dayScoreBound(terms: readonly WeightedTerm[], shape: readonly ShapeSource[], present: (t: number) => boolean): number {
  const N = dayDocuments(shape).days;
  if (!N) return 0;
  const idf = idfOf([1], N)[0];
  const best = new Map<number, number>();
  terms.forEach((t, i) => present(i) && best.set(t.group, Math.max(best.get(t.group) ?? 0, t.weight)));
  let sum = 0;
  for (const weight of best.values()) sum += weight * idf * (K1 + 1);
  return sum * (1 + 1e-9);
}

/**
 * A named day none of whose lines matched: its first lines join, scored as a weak match (the
 * lowest shortlisted score), so "what did we talk about on May 2nd" finds that day.
 */
function addDayOpenings(scored: Scored[], ctx: ShapeContext, consider: (source: number, line: number, own?: Scored) => void): void {
  const floor = scored.length ? Math.min(...scored.map((s) => s.score)) : 1;
  ctx.sources.forEach((info, source) => {
    if (!info.days) return;
    info.days.forEach(([start, date], i) => {
      if (!dateMatches(date, ctx.dates)) return;
      const end = i + 1 < info.days!.length ? info.days![i + 1][0] : (info.lines ?? start + DAY_OPENING_LINES) + 1;
      const matched = scored.some((s) => s.candidate.source === source && s.candidate.line >= start && s.candidate.line < end);
      if (matched) return;
      for (let line = start; line < Math.min(end, start + DAY_OPENING_LINES); line++) {
        const entry = ctx.lineAt(source, line);
        if (entry) consider(source, line, { ...entry, score: floor * (1 - (line - start) * 0.01) });
      }
    });
  });
}
