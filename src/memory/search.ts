// Pure: ranked search over lines (docs/commands.md `wmem search`). Each line of each memory file is a
// document. A query becomes stemmed terms (plus a few expansions for the words people use for
// the same thing); one regular expression finds candidate lines in a file's text in a single
// pass, and candidates are scored with BM25 (k1 1.2, b 0.75, length in characters), then boosted
// for phrases, for covering more of the query, by source and by recency; an archived line also gets
// a share of its day's score (BM25 over whole days, search-shape.ts).
import { bm25, idfOf } from './bm25.js';
import { DAY_WEIGHT, dayScoreBound, dayScores, type ShapeSource } from './search-shape.js';
import { lazyRegExp } from './lazy-regexp.js';
import { STOPWORDS, irregularForms, stem, stemInitials, terms, words } from './text.js';
import { TopLines } from './top-lines.js';

export interface QueryTerm {
  term: string;
  /** 1 for the query's own words, less for expansions. */
  weight: number;
  /** What the regular expression looks for at a word start (a prefix of the stem). */
  prefix: string;
  cjk: boolean;
  /** The query word it stands for: expansions of one word count once, as their best match. */
  group: number;
}

export interface Query {
  raw: string;
  terms: QueryTerm[];
  /** Lowercased word pairs of the query, for the phrase boost. */
  bigrams: string[];
  phrase: string;
  regex: RegExp;
}

// Words people ask with ↔ words notes are written with. Kept small and about software work.
export const RELATED: readonly string[][] = [
  ['bug', 'error', 'fail', 'failure', 'broken', 'broke', 'issue', 'crash', 'exception'],
  ['test', 'tests', 'spec', 'vitest', 'jest', 'pytest'],
  ['deploy', 'release', 'ship', 'publish', 'rollout', 'production'],
  ['config', 'configuration', 'configure', 'setting', 'option', 'env', 'environment'],
  ['database', 'db', 'postgres', 'postgresql', 'sql', 'sqlite', 'mysql', 'schema'],
  ['auth', 'authentication', 'login', 'sign', 'oauth', 'session', 'token', 'sso'],
  ['slow', 'performance', 'latency', 'speed', 'fast', 'faster', 'timeout'],
  ['install', 'setup', 'dependency', 'package'],
  ['decide', 'decision', 'chose', 'choose', 'choice', 'prefer', 'pick'],
  ['user', 'customer', 'client', 'account'],
  ['start', 'run', 'launch', 'boot', 'startup'],
  ['remove', 'delete', 'drop'],
  ['fix', 'patch', 'resolve', 'workaround'],
  ['secret', 'credential', 'password', 'key', 'token'],
  ['port', 'listen', 'server'],
  ['build', 'compile', 'bundle', 'esbuild', 'webpack'],
  ['lint', 'eslint', 'format', 'formatting', 'prettier', 'style'],
  ['type', 'typecheck', 'tsc', 'typescript'],
  ['log', 'logs', 'logging', 'trace'],
  ['cache', 'caching', 'memo', 'store'],
  ['image', 'picture', 'photo', 'upload'],
  ['email', 'mail', 'smtp'],
  ['toggle', 'flag', 'feature'],
  ['translation', 'locale', 'localized', 'i18n'],
  ['backup', 'snapshot', 'restore'],
  ['realtime', 'websocket', 'socket'],
  ['timezone', 'utc', 'time', 'zone'],
  ['admin', 'administrator'],
  ['memory', 'leak', 'oom'],
  ['ci', 'pipeline', 'workflow'],
];

/** How much a related word counts beside the query's own word (each word counts once, as its best match). */
const EXPANSION_WEIGHT = 0.6;

/**
 * The stems related to a query's stem `term`: every stem of each RELATED group that holds a word
 * whose stem it is, groups in order, each stem once. Worked out per term, not as an index of every
 * group made at each start (~230 words stemmed: ~2 ms of a light search, bench/README.md,
 * sstart20): stem() keeps a word's first letter, but for an irregular one's (stemInitials), so
 * only the group words that could stem to `term` are stemmed to find the groups.
 */
export function relatedStems(term: string): string[] {
  const initials = stemInitials(term[0]);
  const out = new Set<string>();
  for (const group of RELATED) {
    if (!group.some((word) => initials.includes(word[0]) && stem(word) === term)) continue;
    for (const word of group) out.add(stem(word));
  }
  return [...out];
}

const CJK = /[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]/u;

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

export interface QueryOptions {
  /** Plain BM25: exact lowercase words, no stemming, no expansions (the bench's baseline). */
  plain?: boolean;
}

/**
 * The most of a query that is searched. Every step of a search costs in proportion to the
 * query's words (its terms, its word pairs, the rules that read it for days and names), and the
 * MCP tool takes a query of any length: past this, at a word's end, the rest is left out. A
 * question or a pasted error message is far shorter.
 */
export const MAX_QUERY_CHARS = 2_000;

export function boundedQuery(raw: string): string {
  if (raw.length <= MAX_QUERY_CHARS) return raw;
  // At a word's end only near the limit: text without spaces (Chinese, Japanese) after an early
  // one would otherwise keep that first word alone.
  const cut = raw.slice(0, MAX_QUERY_CHARS + 1);
  const space = cut.search(/\s\S*$/);
  return (space > MAX_QUERY_CHARS - 100 ? cut.slice(0, space) : cut.slice(0, MAX_QUERY_CHARS)).trimEnd();
}

export function parseQuery(raw: string, options: QueryOptions = {}): Query {
  const list: QueryTerm[] = [];
  const add = (term: string, weight: number, group: number) => {
    if (!term || list.some((t) => t.term === term)) return;
    const cjk = CJK.test(term);
    list.push({ term, weight, cjk, group, prefix: options.plain || cjk ? term : term.slice(0, Math.max(3, Math.min(term.length, 5))) });
  };
  if (options.plain) {
    for (const w of words(raw)) if (!STOPWORDS.has(w)) add(w, 1, list.length);
  } else {
    let own = terms(raw);
    if (!own.length) own = words(raw).map(stem); // a query of stopwords only
    for (const t of own) add(t, 1, list.length);
    const owners = list.slice();
    for (const owner of owners) for (const related of relatedStems(owner.term)) add(related, EXPANSION_WEIGHT, owner.group);
  }
  const lowerWords = words(raw).filter((w) => !STOPWORDS.has(w));
  // A repeated pair counts once: each is looked for in every shortlisted line.
  const pairs = new Set<string>();
  for (let i = 0; i + 1 < lowerWords.length; i++) pairs.add(`${lowerWords[i]} ${lowerWords[i + 1]}`);
  const bigrams = [...pairs];
  const latin = list.filter((t) => !t.cjk).flatMap((t) => [t.prefix, ...(options.plain ? [] : irregularForms(t.term))].map(escapeRegex));
  const cjk = list.filter((t) => t.cjk).map((t) => escapeRegex(t.term));
  const parts = [...(latin.length ? [`\\b(?:${[...new Set(latin)].join('|')})`] : []), ...(cjk.length ? [`(?:${cjk.join('|')})`] : [])];
  const regex = new RegExp(parts.length ? parts.join('|') : '(?!)', 'gi');
  return { raw, terms: list, bigrams, phrase: lowerWords.join(' '), regex };
}

// Both read words past ASCII only, which most searches never meet: made on first use (lazyRegExp).
const wordAtRe = lazyRegExp('[\\p{L}\\p{N}]+', 'uy');
const wordCharRe = lazyRegExp('[\\p{L}\\p{N}]', 'u');

/**
 * Whether the character at `at` is a letter or digit outside CJK (`[\p{L}\p{N}]`, not CJK), its
 * ASCII answer found without a regular expression: scanText asks it of every match's letters, and
 * the first search after a compaction scans tens of thousands of candidate lines.
 */
export function latinWordChar(text: string, at: number): boolean {
  const c = text.charCodeAt(at);
  if (c < 128) return asciiWordCode(c);
  const ch = text[at];
  return wordCharRe().test(ch) && !CJK.test(ch);
}

/** Whether UTF-16 code `c` is an ASCII letter or digit (what `[\p{L}\p{N}]` matches below 128). */
function asciiWordCode(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57);
}

/** The letters and digits from `start` (wordAtRe's match), an ASCII word read without the regular expression. */
export function wordAt(text: string, start: number): string | undefined {
  let end = start;
  while (asciiWordCode(text.charCodeAt(end))) end++;
  // A word that goes on past ASCII (é, a surrogate pair) or starts there: the expression decides.
  if (end === start || text.charCodeAt(end) >= 128) {
    const re = wordAtRe();
    re.lastIndex = start;
    return re.exec(text)?.[0];
  }
  return text.slice(start, end);
}

/** Which query terms a word (found at a term's prefix) stands for. */
function termsForWord(word: string, query: Query, plain: boolean): number[] {
  const lower = word.toLowerCase();
  const out: number[] = [];
  const stemmed = plain ? lower : stem(lower);
  query.terms.forEach((t, i) => {
    if (t.cjk) {
      if (lower.includes(t.term)) out.push(i);
      return;
    }
    if (plain) {
      if (lower === t.term) out.push(i);
      return;
    }
    if (stemmed === t.term) out.push(i);
    // One stem a prefix of the other (config ↔ configur): a looser match, for stems of 5 or more.
    else if (Math.min(t.term.length, stemmed.length) >= 5 && (stemmed.startsWith(t.term) || t.term.startsWith(stemmed))) out.push(i);
  });
  return out;
}

/** termsForWord, remembered per word: the same words come back on every line. */
export function wordMatcher(query: Query, plain: boolean): (word: string) => number[] {
  const memo = new Map<string, number[]>();
  return (word) => {
    const key = word.toLowerCase();
    let hit = memo.get(key);
    if (!hit) {
      hit = termsForWord(key, query, plain);
      if (memo.size < 100_000) memo.set(key, hit);
    }
    return hit;
  };
}


/** A candidate line: where it is and how often each term occurs in it. */
export interface Candidate {
  source: number;
  line: number;
  /** The line, or a window of it around the first match when the line is very long. */
  text: string;
  /**
   * The full line's length in characters (BM25's document length). An indexed pool's candidate
   * reads it from the index on first use (the ranking has it from the walk): read it only while
   * its scan is open.
   */
  readonly length: number;
  /** Occurrences per query term (index into query.terms). */
  tf: number[] | Int32Array;
}

/** The most of a line a candidate keeps (keptText). */
export const MAX_KEPT = 3000;

export interface ScanStats {
  lines: number;
  chars: number;
}

/**
 * Finds the lines of `text` that hold a query term, in one pass of the query's regular
 * expression. `skip` says which lines are not content (front matter, template comments).
 */
export function scanText(text: string, query: Query, source: number, out: Candidate[], options: { plain?: boolean; skipLine?: (line: string) => boolean; lineText?: (line: string) => string; match?: (word: string) => number[] } = {}): ScanStats {
  const plain = Boolean(options.plain);
  const match = options.match ?? wordMatcher(query, plain);
  const re = new RegExp(query.regex.source, query.regex.flags);
  let lineNo = 1;
  let lineStart = 0;
  let current: Candidate | undefined;
  let currentLine = -1;
  let m: RegExpExecArray | null;
  while ((m = re.exec(text))) {
    const index = m.index;
    for (;;) {
      const nl = text.indexOf('\n', lineStart);
      if (nl === -1 || nl >= index) break;
      lineNo++;
      lineStart = nl + 1;
    }
    const word = wordOfMatch(text, re, m, lineStart);
    const hits = match(word);
    if (!hits.length) continue;
    if (currentLine !== lineNo) {
      let end = text.indexOf('\n', index);
      if (end === -1) end = text.length;
      const raw = text.charCodeAt(end - 1) === 13 ? text.slice(lineStart, end - 1) : text.slice(lineStart, end);
      if (options.skipLine?.(raw)) {
        // Jump past this line entirely.
        re.lastIndex = end;
        continue;
      }
      const full = options.lineText ? options.lineText(raw) : raw;
      current = { source, line: lineNo, text: keptText(full, index - lineStart), length: full.length, tf: new Array(query.terms.length).fill(0) };
      currentLine = lineNo;
      out.push(current);
    }
    for (const h of hits) current!.tf[h]++;
  }
  let lines = 0;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) lines++;
  if (text.length && !text.endsWith('\n')) lines++;
  return { lines, chars: text.length };
}

/** The whole word around a match of the query's expression (a Latin term's starts at a word boundary), not before `lineStart`; moves `re` past it. */
function wordOfMatch(text: string, re: RegExp, m: RegExpExecArray, lineStart: number): string {
  let start = m.index;
  if (m[0] && latinWordChar(text, start)) {
    while (start > lineStart && latinWordChar(text, start - 1)) start--;
  }
  const word = wordAt(text, start) ?? m[0];
  re.lastIndex = Math.max(re.lastIndex, start + word.length);
  return word;
}

/** What a candidate keeps of its line: all of it, or a window around its first counted match (at `first`) when very long. */
export function keptText(line: string, first: number): string {
  if (line.length <= MAX_KEPT) return line;
  const from = Math.max(0, Math.min(first - 1000, line.length - MAX_KEPT));
  return line.slice(from, from + MAX_KEPT);
}

/**
 * The query's terms in one line (no line end in it), counted as scanText counts them into
 * `tf[at + t]` (zeroed by the caller): the index of the first match that counted (keptText's
 * `first`), -1 when none did. `re` is a global copy of the query's expression, reused line to line.
 */
export function countLine(line: string, re: RegExp, match: (word: string) => number[], tf: Int32Array, at: number): number {
  let first = -1;
  re.lastIndex = 0;
  for (let m = re.exec(line); m; m = re.exec(line)) {
    const index = m.index;
    const hits = match(wordOfMatch(line, re, m, 0));
    if (!hits.length) continue;
    if (first === -1) first = index;
    for (const h of hits) tf[at + h]++;
  }
  return first;
}

export interface SourceInfo {
  /** Multiplier by kind: overview and workspace memory first, archived messages last. */
  boost: number;
  /** 0..1, 1 the newest. */
  recency: number;
}

export interface Scored {
  candidate: Candidate;
  score: number;
  matched: number;
}

export interface RankOptions {
  plain?: boolean;
  limit: number;
  /** Per source: whether it is a conversation and its days (a line's day adds to its score). */
  shape?: readonly ShapeSource[];
}

/**
 * Candidate lines known only by their term counts (from an index): scored like candidates, made
 * into Candidate objects only if they reach the shortlist.
 */
export interface CandidatePool {
  source: number;
  /** Per query term, how many of the pool's lines hold it. */
  df: readonly number[];
  /** Per query term, the most occurrences on any one of the pool's lines, when known (the ranking's bound). */
  maxTf?: readonly number[];
  /** No line the walk gives is shorter than this, when known (the ranking's bound; 0 or none: any length). */
  shortest?: number;
  /**
   * Walks the pool's lines (ascending): occurrences per query term in `tf[at + t]`
   * (`query.terms.length` wide, reused for the next line) and, when `withLength`, its length.
   * It may ask `stop(from)` now and then, and ends when it says that no line from `from` on matters.
   */
  forEach(fn: (line: number, tf: Int32Array, at: number, length: number) => void, withLength?: boolean, stop?: (from: number) => boolean): void;
  /**
   * The walk's counts added up by day, a day and a list of postings at a time (the day's first
   * line, the terms, their sum; a day's terms possibly in several calls): what a day's score
   * needs, without forEach's walk of every line (Gathered's).
   */
  forEachDay?(fn: (start: number, terms: readonly number[], count: number) => void): void;
  /** A line the walk gave, with its counts (`query.terms.length` of them, kept). */
  candidate(line: number, tf: Int32Array): Candidate;
  /** Reads ahead the text of these lines (the shortlist's), which candidate() then asks for one by one. */
  prefetch?(lines: number[]): void;
}

/**
 * BM25 over the candidate lines with the cheap boosts (coverage, source, recency); then the
 * phrase and proximity boosts on the best few hundred only (they need the line's text); the best
 * `limit` first. The shortlist is the best by score (ties: source, then line) whatever order
 * lines come in (TopLines: nothing kept per line walked).
 */
export function rank(candidates: Candidate[], query: Query, totals: { lines: number; chars: number }, sources: SourceInfo[], options: RankOptions, pools: CandidatePool[] = []): Scored[] {
  const N = Math.max(totals.lines, 1);
  const terms = query.terms.length;
  const df = new Array<number>(terms).fill(0);
  for (const c of candidates) for (let t = 0; t < terms; t++) if (c.tf[t]) df[t]++;
  for (const pool of pools) for (let t = 0; t < terms; t++) df[t] += pool.df[t];
  const score = scorer(query, df, N, Math.max(totals.chars / N, 1), sources, Boolean(options.plain));
  const top = new TopLines(Math.max(options.limit * 20, 200), terms);
  type DayAdd = Parameters<Parameters<typeof dayScores>[2]>[0];
  // One visitor for both walks of a pool (its days' sums, then its ranking): V8 compiles the walk
  // for one call target, not again when the second walk brings another (a search is all first runs).
  let walked = { pool: pools[0], p: 0, addDay: undefined as DayAdd | undefined, bound: Infinity };
  // One byte per source: the shapes' objects are of several maps (with days, without), and a
  // compiled test of them was a deopt when the first conversation came after another source's walk.
  const conversations = Uint8Array.from(options.shape ?? [], (s) => (s?.conversation ? 1 : 0));
  const conversation = (source: number) => conversations[source] === 1;
  const visit = (line: number, tf: Int32Array, at: number, length: number) => {
    const { pool, p, addDay } = walked;
    if (addDay) return addDay(pool.source, line, tf, at);
    const value = withDay(score.of(tf, at, length, pool.source), pool.source, line);
    // -1 - p: the pool's; its counts are kept with the line (the walk reuses its own).
    if (top.admits(value, pool.source, line)) top.add(value, pool.source, line, score.matched, -1 - p, tf, at);
  };
  // And one `stop` for every walk (walkForRank): no line from `from` on can enter the shortlist.
  const stop = (from: number) => walked.bound !== Infinity && !top.admits(walked.bound, walked.pool.source, from);
  // A line's day (BM25 over whole days) adds to it: what a session says across its lines counts
  // together. Only a conversation's lines have days (any other line's day adds 0), and the days are
  // added up when a conversation's line is first scored: a search whose conversations cannot
  // reach the shortlist (their bounds, below) never adds them up at all.
  const days = options.plain || !options.shape || !DAY_WEIGHT ? undefined : { shape: options.shape, score: undefined as ((source: number, line: number) => number) | undefined };
  const dayOf = (source: number, line: number) => (days!.score ??= sumDays(days!.shape))(source, line);
  const sumDays = (shape: readonly ShapeSource[]) => {
    const ranking = walked;
    const score = dayScores(query.terms, shape, (add, addCount) => {
      for (const c of candidates) add(c.source, c.line, c.tf, 0);
      // A pool that adds its postings up by day is not walked at all (a day's counts are sums).
      pools.forEach((pool, p) => {
        if (!conversation(pool.source)) return;
        if (pool.forEachDay) return pool.forEachDay((start, hits, count) => addCount(pool.source, start, hits, count));
        walked = { pool, p, addDay: add, bound: Infinity };
        pool.forEach(visit, false, stop);
      });
    });
    walked = ranking;
    return score;
  };
  const dayShare = (value: number, source: number, dayScore: number) => value + DAY_WEIGHT * dayScore * (sources[source]?.boost ?? 1);
  const withDay = (value: number, source: number, line: number) => (days && conversation(source) ? dayShare(value, source, dayOf(source, line)) : value);
  candidates.forEach((c, i) => {
    const value = withDay(score.of(c.tf, 0, c.length, c.source), c.source, c.line);
    if (top.admits(value, c.source, c.line)) top.add(value, c.source, c.line, score.matched, i);
  });
  // Each pool's bound (walkForRank): its most on every term, its best day (a day's score is the
  // same for all its lines), or before the days are added up the most any day can score.
  const bestDay = (source: number) => {
    if (!days?.score) return dayScoreBound(query.terms, days!.shape, (t) => df[t] > 0);
    let best = 0;
    for (const [start] of options.shape?.[source]?.days ?? []) best = Math.max(best, days.score(source, start));
    return best;
  };
  const boundOf = (pool: CandidatePool) => {
    if (!pool.maxTf || pool.maxTf.some((n) => !Number.isFinite(n))) return Infinity;
    // As a typed array of doubles, as a day's counts are (dayScores): bm25 meets that map before
    // it is compiled, not first in compiled code when a conversation's days are scored after a walk.
    const value = score.of(Float64Array.from(pool.maxTf), 0, Math.max(score.shortest, pool.shortest ?? 0), pool.source);
    return days && conversation(pool.source) ? dayShare(value, pool.source, bestDay(pool.source)) : value;
  };
  walkForRank(pools, pools.map(boundOf), (pool, p, bound) => {
    walked = { pool, p, addDay: undefined, bound };
    if (stop(0)) return;
    // A conversation that may enter the shortlist: the days added up (once, for every
    // conversation), and its bound from its own best day.
    if (days && conversation(pool.source)) {
      days.score ??= sumDays(days.shape);
      walked.bound = boundOf(pool);
      if (stop(0)) return;
    }
    pool.forEach(visit, true, stop);
  });
  const shortlist = top.sorted();
  // Made into Scored entries a batch at a time, each pool's lines read ahead together.
  const materialize = (slots: number[]): Scored[] => {
    pools.forEach((pool, p) => pool.prefetch?.(slots.filter((s) => top.ref[s] === -1 - p).map((s) => top.line[s])));
    return slots.map((s) => {
      const ref = top.ref[s];
      const candidate = ref >= 0 ? candidates[ref] : pools[-1 - ref].candidate(top.line[s], top.tf.slice(s * terms, (s + 1) * terms));
      return { candidate, score: top.score[s], matched: top.matched[s] };
    });
  };
  if (options.plain) return materialize(shortlist.slice(0, options.limit));
  return boosted(shortlist, top, materialize, query, options.limit);
}

/**
 * Walks the pools for the shortlist, the most promising first, each only while a line of it could
 * still be kept: a pool's bound is the score of a line holding every term it has as often as any
 * of its lines does, as long as the longer of the average (shorter lines count as that long) and
 * its shortest line, on its best day. Every step of the score only grows with those (BM25 with a term's count and as a line
 * is shorter, the coverage with the words held, the day's share with its score), in floating point too, so no line of the pool
 * scores above its bound; once the shortlist's last ranks before the bound at the next line, the
 * rest of the pool (its lines come in order) cannot enter it. The shortlist is the same whatever
 * order lines come in: the result is the walk of every line's.
 */
function walkForRank(pools: CandidatePool[], bounds: number[], walk: (pool: CandidatePool, p: number, bound: number) => void): void {
  const order = pools.map((_, p) => p).sort((a, b) => bounds[b] - bounds[a] || a - b);
  for (const p of order) walk(pools[p], p, bounds[p]);
}

/**
 * The phrase and proximity boosts on the shortlist (they need the line's text), best `limit`
 * first: the same as boosting every shortlisted line, but only as far as a line could still reach
 * the best `limit`. Text is read a batch at a time in score order and the phrase decided at once
 * (a substring test, cheap); proximity (every word of the line matched, the dear part) runs in the
 * order of what a line could still reach (its score with its phrase factor, times proximity's
 * most), and both stop once the best `limit` boosted lines are out of every bound's reach.
 */
export function boosted(shortlist: number[], top: TopLines, materialize: (slots: number[]) => Scored[], query: Query, limit: number, near = proximity(query)): Scored[] {
  const own = new Set(query.terms.map((t) => t.group)).size;
  const batch = Math.max(2 * limit, 64);
  // The most proximity multiplies a score by (1 + PROXIMITY_WEIGHT with every word in one window),
  // and with the phrase's 1.6 the most both do, with room for rounding.
  const mostNear = (1 + PROXIMITY_WEIGHT) * (1 + 1e-9);
  const mostBoth = 1.6 * mostNear;
  // Lines whose phrase is decided, best score last; and the boosted ones' best `limit` (its last: the floor).
  let waiting: Scored[] = [];
  const best = new TopLines(limit, 0);
  const done: Scored[] = [];
  for (let read = 0; ; ) {
    const unread = read < shortlist.length ? top.score[shortlist[read]] * mostBoth : -Infinity;
    const next = waiting.length ? waiting[waiting.length - 1].score * mostNear : -Infinity;
    if (Math.max(unread, next) === -Infinity || Math.max(unread, next) < best.lastScore()) break;
    if (unread >= next) {
      for (const s of materialize(shortlist.slice(read, read + batch))) waiting.push(phrased(s, query));
      read = Math.min(shortlist.length, read + batch);
      waiting = waiting.sort((a, b) => a.score - b.score);
      continue;
    }
    const s = waiting.pop()!;
    // The question's words close together (one sentence of a long message) rather than scattered.
    if (own > 1) s.score *= 1 + (PROXIMITY_WEIGHT * (near(s.candidate.text) - 1)) / (own - 1);
    if (best.admits(s.score, s.candidate.source, s.candidate.line)) best.add(s.score, s.candidate.source, s.candidate.line, 0, 0);
    done.push(s);
  }
  return done.sort(byScore).slice(0, limit);
}

/** A shortlisted line with its phrase boost: the whole phrase ×1.6, else a pair of its words ×1.25. */
function phrased(s: Scored, query: Query): Scored {
  const lower = s.candidate.text.toLowerCase();
  if (query.phrase.includes(' ') && lower.includes(query.phrase)) s.score *= 1.6;
  else if (query.bigrams.some((bg) => lower.includes(bg))) s.score *= 1.25;
  return s;
}

/** The score of one line from its term counts (`tf[at + t]`); `matched` is how many query words it held. */
function scorer(query: Query, df: number[], N: number, avgdl: number, sources: SourceInfo[], plain: boolean) {
  const idf = idfOf(df, N);
  const own = query.terms.filter((t) => t.weight === 1).length || 1;
  const groupBest = new Float64Array(query.terms.length);
  const out = {
    matched: 0,
    /** The length every line counts as at least (a bound's). */
    shortest: plain ? 1 : avgdl,
    of(tf: ArrayLike<number>, at: number, length: number, source: number): number {
      // A line shorter than the average is not taken as more about its words than an average one
      // ("Excellent choice!" beside the exchange it closes); a longer line's words still weigh
      // less. Plain BM25 keeps its own length normalisation.
      let score = bm25(query.terms, idf, tf, at, plain ? Math.max(length, 1) : Math.max(length, avgdl), avgdl, groupBest);
      let matched = 0;
      // Indexed loops: an iterator object per line scored is garbage while the code is still cold.
      for (let g = 0; g < groupBest.length; g++) if (groupBest[g] > 0) matched++;
      out.matched = matched;
      if (!plain) {
        if (own > 1) score *= 1 + (0.6 * Math.max(0, matched - 1)) / (own - 1);
        const src = sources[source];
        if (src) score *= src.boost * (1 + 0.2 * src.recency);
      }
      return score;
    },
  };
  return out;
}

/** Words a window for the proximity boost spans, and how much holding every query word in one counts. */
const PROXIMITY_WINDOW = 6;
const PROXIMITY_WEIGHT = 0.6;

/**
 * How many of the query's words (each with its related words, counted once) the best window of a
 * line holds. `skip` false reads every word (the property test's oracle for the word skip).
 */
export function proximity(query: Query, skip = true): (text: string) => number {
  const match = wordMatcher(query, false);
  const inWindow = new Int32Array(query.terms.length);
  // A common query's shortlist is often one line many times over (a prompt or a tool's output
  // repeated): a text's answer is worked out once.
  const known = new Map<string, number>();
  const initials = skip ? wordInitials(query) : undefined;
  return (text) => {
    let best = known.get(text);
    if (best === undefined) known.set(text, (best = nearest(text)));
    return best;
  };
  function nearest(text: string): number {
    const groups: number[] = [];
    forEachWord(
      text,
      (word) => {
        const hits = match(word);
        groups.push(hits.length ? query.terms[hits[0]].group : -1);
      },
      initials,
    );
    // Each group's words in the window, and how many groups have one: counts in a typed array
    // (a group is a term's index), not a Map's entries set and deleted for every word of the line.
    inWindow.fill(0);
    let held = 0;
    let best = 1;
    for (let i = 0; i < groups.length; i++) {
      if (groups[i] >= 0 && inWindow[groups[i]]++ === 0) held++;
      const out = i >= PROXIMITY_WINDOW ? groups[i - PROXIMITY_WINDOW] : -1;
      if (out >= 0 && --inWindow[out] === 0) held--;
      best = Math.max(best, held);
    }
    return best;
  }
}

/**
 * Per ASCII code, whether a word starting with it may stand for a query term (an ASCII word for a
 * term whose stem starts with its first letter, or an irregular form of one: stemInitials); none
 * when a term is CJK (found inside words).
 */
function wordInitials(query: Query): Uint8Array | undefined {
  if (query.terms.some((t) => t.cjk)) return undefined;
  const table = new Uint8Array(128);
  for (const c of stemInitials(query.terms.map((t) => t.term[0]).join(''))) {
    const code = c.charCodeAt(0);
    if (code < 128) table[code] = table[c.toUpperCase().charCodeAt(0)] = 1;
  }
  return table;
}

// eslint-disable-next-line no-control-regex
const NON_ASCII = /[^\x00-\x7f]/;

/**
 * Calls `fn` with each run of letters and digits of `text` ([\p{L}\p{N}]+), in order: an ASCII
 * text's read a character at a time (no match object per word: the proximity boost reads every
 * word of the shortlist's lines), any other's by the expression. An ASCII word whose first
 * character `initials` does not mark is given as '' (not cut out of the text).
 */
export function forEachWord(text: string, fn: (word: string) => void, initials?: Uint8Array): void {
  if (NON_ASCII.test(text)) {
    for (const m of text.matchAll(/[\p{L}\p{N}]+/gu)) fn(m[0]);
    return;
  }
  let start = -1;
  for (let i = 0; i <= text.length; i++) {
    const c = i < text.length ? text.charCodeAt(i) : 0;
    if (asciiWordCode(c)) {
      if (start < 0) start = i;
    } else if (start >= 0) {
      fn(initials && !initials[text.charCodeAt(start)] ? '' : text.slice(start, i));
      start = -1;
    }
  }
}

function byScore(a: Scored, b: Scored): number {
  return b.score - a.score || a.candidate.source - b.candidate.source || a.candidate.line - b.candidate.line;
}

/** Up to `width` characters of `text` around its first query match. */
export function snippet(text: string, query: Query, width = 200): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= width) return flat;
  const re = new RegExp(query.regex.source, query.regex.flags);
  const at = re.exec(flat)?.index ?? 0;
  const start = Math.max(0, Math.min(at - Math.floor(width / 3), flat.length - width));
  return `${start > 0 ? '…' : ''}${flat.slice(start, start + width).trim()}${start + width < flat.length ? '…' : ''}`;
}

/** `- Past: <topic> → search: \`<keywords>\`` → the keywords. */
export function pointerKeywords(line: string): string | undefined {
  return /^\s*[-*+]\s+Past:.*search:\s*`([^`]+)`/.exec(line)?.[1];
}
