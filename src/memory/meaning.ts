// Pure: the meaning rerank of a search's shortlist (opt-in, docs/commands.md `wmem search`). Words
// miss what a preference implies ("a workout playlist" ↔ the music picked for a road trip); a
// sentence embedding's closeness between the query and each hit's unit (its day for a conversation
// line when the day is short, the line and its neighbours in a long one, the line itself otherwise) adds to the hit's lexical score. The best lexical hit keeps the
// first place: measured on the real sets' dev parts (bench/semantic-rerank.mjs), letting the meaning
// move it cost recall@1 where the words had already decided, and keeping it cost nothing elsewhere.
import type { Scored } from './search.js';
import { dayOf, spreadNeighbours, type ShapeSource } from './search-shape.js';

/** What the closeness adds, at most, as a share of the best hit's score. */
export const MEANING_WEIGHT = 1;
/** How many units (days, lines) of the shortlist are embedded, in its order. */
export const MEANING_UNITS = 24;
/** A day of at most this many lines is one unit; in a longer one a line's unit is its exchange (the line before and after). */
const DAY_UNIT_LINES = 12;

/** One text the meaning is taken of: a conversation's day (its first lines) or one line. */
export interface MeaningUnit {
  key: string;
  source: number;
  start: number;
  lines: number;
}

/** A shortlisted entry's unit: its day when it is a conversation line, else the line itself. */
function unitOf(s: Scored, sources: readonly ShapeSource[]): MeaningUnit {
  const { source, line } = s.candidate;
  const info = sources[source];
  const day = info?.conversation ? dayOf(info, line) : undefined;
  if (day && day.lines <= DAY_UNIT_LINES) return { key: `${source}:${day.start}`, source, start: day.start, lines: day.lines };
  if (day) {
    const start = Math.max(day.start, line - 1);
    return { key: `${source}:${start}:window`, source, start, lines: Math.min(line + 1, day.start + day.lines - 1) - start + 1 };
  }
  return { key: `${source}:${line}:line`, source, start: line, lines: 1 };
}

/** The first MEANING_UNITS distinct units of the shortlist (best first), whose texts get embedded. */
export function meaningUnits(shortlist: readonly Scored[], sources: readonly ShapeSource[]): MeaningUnit[] {
  const out = new Map<string, MeaningUnit>();
  for (const s of shortlist) {
    if (out.size >= MEANING_UNITS) break;
    const u = unitOf(s, sources);
    if (!out.has(u.key)) out.set(u.key, u);
  }
  return [...out.values()];
}

/**
 * The shortlist reordered by score / the best score + MEANING_WEIGHT × its unit's closeness, scaled
 * to 0..1 over the units (a unit not embedded counts as the least close); the first entry stays
 * first. Then the places again (spreadNeighbours). Closeness: unit key → cosine with the query.
 */
export function withMeaning(shortlist: readonly Scored[], sources: readonly ShapeSource[], closeness: ReadonlyMap<string, number>): Scored[] {
  if (shortlist.length < 2 || closeness.size < 2) return [...shortlist];
  const values = [...closeness.values()];
  const least = Math.min(...values);
  const span = Math.max(...values) - least;
  if (!(span > 0)) return [...shortlist];
  const best = shortlist[0].score > 0 ? shortlist[0].score : 1;
  const [first, ...rest] = shortlist;
  const rescored = rest.map((s, i) => {
    const c = closeness.get(unitOf(s, sources).key);
    return { s, i, v: s.score / best + (c === undefined ? 0 : (MEANING_WEIGHT * (c - least)) / span) };
  });
  // Ties keep the shortlist's order (its own tie rules: source, then line).
  rescored.sort((a, b) => b.v - a.v || a.i - b.i);
  return spreadNeighbours([first, ...rescored.map((r) => r.s)], sources);
}

/** The cosine of two vectors (0 when either is empty or all zero). */
export function cosine(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    dot += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  return na > 0 && nb > 0 ? dot / Math.sqrt(na * nb) : 0;
}
