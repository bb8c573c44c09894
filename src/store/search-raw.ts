// The first search of a large archive that has no search text yet (right after `wmem compact`
// returned, its finishing still building the text and the index): instead of parsing every
// archived JSON line, the raw bytes are searched for the query's prefixes at word starts, and only the lines
// that hold one are parsed and scanned as the full scan would. N (the line count), the day runs,
// every candidate's term counts and length come out exact; BM25's average line length needs every
// line's extracted length, so it is estimated from a fixed sample of the other lines (exact when
// they are few). docs/memory.md (Speed) says where this can rank differently.
import { DAY, TIMESTAMP_KEY, decodeText } from './archive-bytes.js';
import { readRange } from './fsx.js';
import { isAscii } from 'node:buffer';
import { closeSync, constants as fsc, fstatSync, openSync, readSync } from 'node:fs';
import { countLine, keptText, type CandidatePool, type Query } from '../memory/search.js';
import type { DayRun } from '../memory/search-shape.js';

/**
 * Words the extraction writes that a JSON line need not hold: roles (a Codex "developer" is a
 * system line, its function call an assistant's, its output a tool's), the names it gives
 * unnamed tools and blocks, markers, and what String() makes of an object.
 */
const MADE_WORDS = ['user', 'assistant', 'tool', 'system', 'summary', 'redacted', 'image', 'block', 'object'];

/**
 * A JSON escape of an ASCII digit or letter (\u0041 is "A"): the extracted text holds the letter,
 * the raw line does not. No known writer escapes them, but a line that does is parsed. What
 * follows `\u00` (any case of hex digit). Looked for in the needles' expression only in a chunk
 * that holds one (escapeIn): there, an alternative that starts with a backslash cost the pass of
 * a 58 MB archive with none ~75-110 M instructions (bench/README.md, searchfirst6).
 */
const ASCII_ESCAPE = '3[0-9]|[46][1-9a-f]|[57][0-9a]';

/**
 * What a tool call's input, written again as JSON by the extraction (JSON.stringify), can spell
 * otherwise than the raw line: a control character escaped as `\u0009` becomes `\t` (a word
 * "t…" the raw bytes lack), a number in exponent form is spelled out (`1e5` is `100000`, `1e21`
 * is `1e+21`). A line that holds one is parsed when a needle could start such a word.
 */
const CONTROL_ESCAPE = '[01][0-9a-f]';
const EXPONENT = '[0-9][eE][-+]?[0-9]';

/**
 * The expressions of a raw pass: the needles, with (group 1) what makes a line parsed whatever
 * precedes it; and the same with the escapes too, for a chunk that holds one (escapeIn).
 */
function rawExpressions(needles: string[]): Needles {
  const escapes = [ASCII_ESCAPE];
  if (needles.some((n) => /^[tnrbfu]/.test(n))) escapes.push(CONTROL_ESCAPE);
  const always = needles.some((n) => /^[0-9]/.test(n)) ? [EXPONENT] : [];
  const expression = (parts: string[]) => new RegExp(`${parts.length ? `(${parts.join('|')})|` : ''}${needles.join('|')}`, 'gi');
  return { re: expression(always), withEscapes: expression([...always, `${ESCAPE_START_RE}(?:${escapes.join('|')})`]), escape: new RegExp(escapes.join('|'), 'iy') };
}

/** A raw pass's needles: `re` for a chunk without the escapes `escape` accepts, `withEscapes` for one with. */
interface Needles {
  re: RegExp;
  withEscapes: RegExp;
  escape: RegExp;
}

const ESCAPE_START = '\\u00';
const ESCAPE_START_RE = '\\\\u00';

/** Whether a chunk holds an escape `escape` accepts (after `\u00`): by the string's own search (no line holds one in most archives). */
function escapeIn(text: string, escape: RegExp): boolean {
  for (let at = text.indexOf(ESCAPE_START); at !== -1; at = text.indexOf(ESCAPE_START, at + 1)) {
    escape.lastIndex = at + ESCAPE_START.length;
    if (escape.test(text)) return true;
  }
  return false;
}

/** The most lines that are not candidates parsed to estimate the average length (all of them when fewer). */
export const LENGTH_SAMPLE = 2048;

export interface RawScan {
  lines: number;
  /** The extracted text's length (UTF-16 units, one line end each): exact when `exact`, else estimated. */
  chars: number;
  exact: boolean;
  days: DayRun[];
  /** A line's extracted text, parsed on demand (a hit's neighbours and context). */
  line(n: number): string | undefined;
  /** Lines parsed: candidates and the length sample. */
  parsed: number;
  /**
   * True once a line read after the pass found the file no longer the size the pass saw (the
   * compaction's finishing cuts the archive to its length): the lines read then may be blank or
   * another's, so the caller searches again.
   */
  damaged(): boolean;
  /** Closes the file (held open from the pass to the last line read: the same file throughout). */
  close(): void;
}

/**
 * What to look for in the raw bytes: every prefix (and irregular form) the query's regular
 * expression looks for, lowercase ASCII; undefined when one may hide from a byte search (not
 * ASCII, or the start of a word the extraction writes itself): the caller scans the full text.
 */
export function rawNeedles(query: Query, forms: (term: string) => string[], plain: boolean): string[] | undefined {
  const needles = new Set<string>();
  for (const t of query.terms) {
    if (t.cjk) return undefined;
    for (const n of [t.prefix, ...(plain ? [] : forms(t.term))]) needles.add(n.toLowerCase());
  }
  for (const n of needles) if (!/^[a-z0-9]+$/.test(n) || MADE_WORDS.some((w) => w.startsWith(n))) return undefined;
  return needles.size ? [...needles] : undefined;
}

/**
 * Scans an archived messages file on its raw bytes (see the top of this file): adds to `pools`
 * the lines that scanText over the full extracted text would make candidates, with their real
 * line numbers, counts and lengths (their text read again for those the ranking asks). Undefined
 * when the bytes cannot be searched this way (a \r in the file: lines would split differently)
 * or are no shortcut (most lines hold a query word).
 */
export function scanRawMessages(file: string, query: Query, needles: string[], source: number, pools: CandidatePool[], options: { match: (word: string) => number[]; extract: (line: string) => string; sampleShare?: number }): RawScan | undefined {
  const hits = new Hits(query, options.match);
  // One descriptor for the pass, the length sample and the lines read later: a rename, a removal or
  // a link put in the file's place meanwhile cannot change what is read. An archive that is itself
  // a link (one inside the session, as the listing allows) or is gone is left to the full scan.
  let fd: number;
  try {
    fd = openSync(file, fsc.O_RDONLY | fsc.O_NOFOLLOW | fsc.O_NONBLOCK);
  } catch {
    return undefined;
  }
  let open = true;
  const close = () => {
    if (open) closeSync(fd);
    open = false;
  };
  try {
    const scanned = scanOpen(fd, needles, source, pools, options, hits);
    if (!scanned) close();
    return scanned && { ...scanned, close };
  } catch (err) {
    close();
    throw err;
  }
}

function scanOpen(fd: number, needles: string[], source: number, pools: CandidatePool[], options: { extract: (line: string) => string; sampleShare?: number }, hits: Hits): Omit<RawScan, 'close'> | undefined {
  const stat = fstatSync(fd);
  if (!stat.isFile()) return undefined;
  // The length sample is taken during the pass (the bytes are in memory then) unless a share is asked.
  const sample = options.sampleShare ? undefined : new PassSample(stat.size, LENGTH_SAMPLE);
  const pass = readPass(fd, rawExpressions(needles), options.extract, hits, sample);
  if (!pass) return undefined;
  const { starts, size, candidates, days } = pass;
  // A line that ends the file without a line end is a line too; an empty file is one blank line.
  const count = Math.max(1, starts.length - (pass.endsWithLineEnd ? 1 : 0));
  // Line n's bytes are [from(n), to(n)), its line end not included (no array made per line).
  const span: Span = { from: (n) => starts[n - 1] ?? 0, to: (n) => (n < starts.length ? starts[n] - 1 : size) };
  const late = new LateLines(fd, size, span, options.extract);
  const length = estimateChars(fd, candidates, pass.textChars, count, span, options.extract, options.sampleShare ?? sample);
  pools.push(hits.pool(source, late));
  return { lines: count, chars: length.chars, exact: length.exact, days, line: (n) => (n >= 1 && n <= count ? late.line(n) : undefined), parsed: candidates.length + length.sampled, damaged: () => late.damaged };
}

/**
 * The lines that hold a query word, known by their counts and length: a pool (rank scores them
 * as it does an index's lines), so the text of 25,000 such lines is not kept for the few hundred
 * the ranking reads again. A line longer than scanText keeps whole keeps its window here.
 */
class Hits {
  lines: number[] = [];
  tf: number[] = [];
  lengths: number[] = [];
  windows = new Map<number, string>();
  readonly terms: number;
  private readonly re: RegExp;
  private readonly counts: Int32Array;
  constructor(
    query: Query,
    private readonly match: (word: string) => number[],
  ) {
    this.terms = query.terms.length;
    this.re = new RegExp(query.regex.source, query.regex.flags);
    this.counts = new Int32Array(this.terms);
  }

  /** A parsed line's text, counted as scanText counts a line; kept (by its counts) when a term is in it. */
  add(line: number, text: string): void {
    const { counts, terms } = this;
    counts.fill(0);
    const first = countLine(text, this.re, this.match, counts, 0);
    if (first === -1) return;
    this.lines.push(line);
    this.lengths.push(text.length);
    for (let t = 0; t < terms; t++) this.tf.push(counts[t]);
    const kept = keptText(text, first);
    if (kept.length < text.length) this.windows.set(line, kept);
  }

  pool(source: number, late: LateLines): CandidatePool {
    const { terms, lines, lengths, windows } = this;
    const tf = Int32Array.from(this.tf);
    const df = new Array<number>(terms).fill(0);
    for (let at = 0; at < tf.length; at++) if (tf[at]) df[at % terms]++;
    return {
      source,
      df,
      forEach: (fn) => lines.forEach((line, i) => fn(line, tf, i * terms, lengths[i])),
      candidate: (line, counts) => ({ source, line, text: windows.get(line) ?? late.line(line) ?? '', length: lengths[indexOfSorted(lines, line)], tf: counts }),
      prefetch: (wanted) => late.read(wanted.filter((line) => !windows.has(line))),
    };
  }
}

/** Lines read after the pass a batch at a time: nearer than this apart share a read, up to a read's most bytes. */
const LATE_GAP = 16 << 10;
const LATE_BLOCK = 1 << 20;

/**
 * The lines read after the pass (the shortlist's, a hit's neighbours and context) by the spans
 * the pass found: a batch (the ranking's prefetch) sorted, nearby lines in one read, and the
 * file's size checked once after each read, not once per line before it. A read that finds the
 * file no longer the size the pass saw (the compaction's finishing cuts the archive to its
 * length) keeps nothing it read, and every later line is not there: the caller searches again.
 */
class LateLines {
  damaged = false;
  private readonly texts = new Map<number, string>();
  private buffer = Buffer.alloc(0); // reused: its strings are copies
  constructor(
    private readonly fd: number,
    private readonly size: number,
    private readonly span: Span,
    private readonly extract: (line: string) => string,
  ) {}

  line(n: number): string | undefined {
    if (!this.texts.has(n)) this.read([n]);
    return this.texts.get(n);
  }

  read(lines: readonly number[]): void {
    const { span } = this;
    const wanted = [...new Set(lines)].filter((n) => !this.texts.has(n)).sort((a, b) => a - b);
    try {
      for (let i = 0; i < wanted.length && !this.damaged; ) {
        const from = span.from(wanted[i]);
        let j = i;
        while (j + 1 < wanted.length && span.from(wanted[j + 1]) - span.to(wanted[j]) <= LATE_GAP && span.to(wanted[j + 1]) - from <= LATE_BLOCK) j++;
        const length = Math.max(0, span.to(wanted[j]) - from);
        if (this.buffer.length < length) this.buffer = Buffer.allocUnsafe(Math.max(length, 2 * this.buffer.length));
        const bytes = readRange(this.fd, this.buffer.subarray(0, length), from);
        if ((this.damaged = fstatSync(this.fd).size !== this.size)) return;
        for (let k = i; k <= j; k++) this.texts.set(wanted[k], this.extract(decodeText(bytes.subarray(span.from(wanted[k]) - from, span.to(wanted[k]) - from))));
        i = j + 1;
      }
    } catch {
      /* a line not read is not there (blank for the ranking), as a file gone since the pass */
    }
  }
}

function indexOfSorted(list: number[], value: number): number {
  let lo = 0;
  let hi = list.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (list[mid] === value) return mid;
    if (list[mid] < value) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

/** Bytes [from, to) of the file as text, read into `into` when given (large enough). */
function readAt(fd: number, from: number, to: number, into?: Buffer): string {
  const length = Math.max(0, to - from);
  return decodeText(readRange(fd, (into ?? Buffer.allocUnsafe(length)).subarray(0, length), from));
}

interface Span {
  from(n: number): number;
  to(n: number): number;
}

interface Pass {
  /** Byte offset of each line's start (and of the end, after a last line end). */
  starts: number[];
  size: number;
  endsWithLineEnd: boolean;
  /** Lines parsed (1-based, ascending) for holding a needle, and their text's length (one line end each). */
  candidates: number[];
  textChars: number;
  days: DayRun[];
}

/**
 * One pass over the file a chunk at a time (a buffer reused: the whole file is never in memory):
 * line starts, the candidate lines (parsed as they are met), the day runs. Each chunk is seen as
 * Latin-1, one character per byte: offsets are byte offsets, ASCII needles match only ASCII bytes
 * (no byte of a multi-byte UTF-8 character is below 0x80), and a line is decoded as UTF-8 only
 * when it is parsed.
 */
function readPass(fd: number, re: Needles, extract: (line: string) => string, hits: Hits, sample?: PassSample): Pass | undefined {
  const pass: Pass = { starts: [0], size: 0, endsWithLineEnd: true, candidates: [], textChars: 0, days: [] };
  const day = { last: '' };
  let buffer = Buffer.allocUnsafe(CHUNK);
  let carried = 0;
  let base = 0; // the file offset of buffer[0]
  for (;;) {
    if (buffer.length - carried < CHUNK) buffer = Buffer.concat([buffer.subarray(0, carried)], carried + CHUNK);
    const n = readSync(fd, buffer, carried, CHUNK, null);
    const data = buffer.subarray(0, carried + n);
    if (data.indexOf(13) !== -1) return undefined;
    const cut = n ? data.lastIndexOf(10) + 1 : data.length; // at the end, the rest is the last line
    if (cut) scanChunk(data.subarray(0, cut), base, pass, re, extract, day, hits, sample);
    if (base < DENSE_CHECK && base + cut >= DENSE_CHECK && pass.candidates.length > DENSE_SHARE * pass.starts.length) return undefined;
    pass.size = base + data.length;
    if (!n) {
      pass.endsWithLineEnd = data.length === 0;
      return pass;
    }
    data.copy(buffer, 0, cut, data.length);
    carried = data.length - cut;
    base += cut;
  }
}

/**
 * When more than this share of the lines of the first DENSE_CHECK bytes hold a query word, the
 * bytes are no shortcut (nearly every line is parsed anyway, and the pass costs ~5-10 % on top):
 * the full scan is left to do it, having lost only that first stretch.
 */
const DENSE_SHARE = 0.75;
const DENSE_CHECK = 1 << 20;

/**
 * Bytes read at a time. A chunk's Latin-1 string stays below V8's large-object size (128 KiB):
 * with 1 MiB chunks each string took fresh pages of its own, and decoding a 58 MB archive cost
 * 100-400 ms of CPU instead of 15-50 (measured side by side, bench/README.md).
 */
const CHUNK = 1 << 16;

/** The lines of one chunk (whole lines; the last may lack its line end only at the file's end). */
function scanChunk(bytes: Buffer, base: number, pass: Pass, needles: Needles, extract: (line: string) => string, day: { last: string }, hits: Hits, sample?: PassSample): void {
  const text = bytes.toString('latin1');
  const first = pass.starts.length; // 1-based number of this chunk's first line
  const starts = [0];
  for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', nl + 1)) {
    starts.push(nl + 1);
    pass.starts.push(base + nl + 1);
  }
  const lineAt = (at: number, from: number) => {
    let i = from;
    while (i + 1 < starts.length && starts[i + 1] <= at) i++;
    return i;
  };
  const end = (i: number) => (i + 1 < starts.length ? starts[i + 1] - 1 : text.length);
  // An ASCII chunk's lines are already their text (Latin-1 is then UTF-8): a slice, not a copy.
  const ascii = isAscii(bytes);
  const lines: number[] = [];
  const textOf = (i: number) => extract(ascii ? text.slice(starts[i], end(i)) : bytes.toString('utf8', starts[i], end(i)));
  const re = escapeIn(text, needles.escape) ? needles.withEscapes : needles.re;
  re.lastIndex = 0;
  let i = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    if (m[1] === undefined && !wordStart(text, m.index)) {
      re.lastIndex = m.index + 1; // a needle may still start inside this match
      continue;
    }
    i = lineAt(m.index, i);
    const said = textOf(i);
    pass.candidates.push(first + i);
    pass.textChars += said.length + 1;
    lines.push(first + i);
    hits.add(first + i, said);
    // One candidate per line: go on from the next line's start.
    if (i + 1 >= starts.length) break;
    re.lastIndex = starts[i + 1];
  }
  sample?.take(starts, end, base, first, lines, textOf);
  dayRuns(text, starts, end, first, pass.days, day);
}
/**
 * The extracted text's length: each candidate's exactly, the others' by the ratio of extracted
 * to raw length over a fixed sample of them (spread evenly over the file, a pseudo-random line in
 * each stretch: the same file gives the same figure). Exact when there are no more than the sample.
 */
function estimateChars(fd: number, candidates: number[], textChars: number, count: number, span: Span, extract: (line: string) => string, how?: number | PassSample): { chars: number; exact: boolean; sampled: number } {
  const chars = textChars;
  // The others' raw length: every line's but the candidates' (no list of 100,000 numbers made for it).
  let othersRaw = 0;
  for (let n = 1; n <= count; n++) othersRaw += span.to(n) - span.from(n) + 1;
  for (const n of candidates) othersRaw -= span.to(n) - span.from(n) + 1;
  const otherCount = count - candidates.length;
  // A share of them (the recall bench's stand-in for a large archive), else up to LENGTH_SAMPLE.
  const share = typeof how === 'number' ? how : undefined;
  const size = share ? Math.max(1, Math.ceil(otherCount * share)) : LENGTH_SAMPLE;
  const exact = otherCount <= size;
  // Taken during the pass: no line read again (with no more lines than the sample, all are read below).
  if (!exact && how instanceof PassSample && how.taken) return { chars: chars + how.estimate(othersRaw), exact, sampled: how.read };
  const others: number[] = [];
  for (let n = 1, c = 0; n <= count; n++) {
    if (candidates[c] === n) c++;
    else others.push(n);
  }
  let seed = 0x9e3779b9;
  const sample = exact ? others : Array.from({ length: size }, (_, i) => {
    const lo = Math.floor((i * others.length) / size);
    const hi = Math.floor(((i + 1) * others.length) / size);
    seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
    return others[lo + (seed % (hi - lo))];
  });
  let sampledRaw = 0;
  let sampledChars = 0;
  let buffer = Buffer.allocUnsafe(1 << 16); // reused: thousands of short reads
  for (const n of sample) {
    const from = span.from(n);
    const to = span.to(n);
    sampledRaw += to - from + 1;
    if (buffer.length < to - from) buffer = Buffer.allocUnsafe(to - from);
    sampledChars += extract(readAt(fd, from, to, buffer)).length + 1;
  }
  if (exact) return { chars: chars + sampledChars, exact, sampled: sample.length };
  return { chars: chars + Math.round((othersRaw * sampledChars) / sampledRaw), exact, sampled: sample.length };
}

/**
 * The length sample taken during the pass, from the chunk in memory (no line read again): the
 * file cut into `wanted` stretches of bytes, and in each one the line at a pseudo-random byte
 * (the same file gives the same points), kept when it holds no query word. Stretches of bytes,
 * not of lines: the number of points and their spread over the file hold whatever the line
 * lengths, where a step in lines set from the first chunk's lines drew a sample of every line
 * (the first chunk's lines long, the rest short) or of a few dozen (the other way round). A line
 * is drawn in proportion to its length, so what it says of the others is the mean of the drawn
 * lines' ratios of text to raw length (Hansen-Hurwitz), not the ratio of their sums. A point on a
 * candidate line takes nothing (taking the next line instead would favour the lines that follow
 * candidates: a tool call after every prompt that holds "turn"). Used when the file has more such
 * lines than `wanted` (else every one of them is read, and the length is exact).
 */
export class PassSample {
  /** The drawn lines' ratios of text length to raw length (each with its line end), summed. */
  ratios = 0;
  taken = 0;
  /** Lines read for it (a long line may be drawn more than once). */
  read = 0;
  private readonly stretch: number;
  private k = 0; // the stretch whose point is looked for
  private point = 0; // its byte offset in the file
  private seed = 0x9e3779b9;
  constructor(
    readonly size: number,
    readonly wanted: number,
  ) {
    this.stretch = Math.max(1, Math.ceil(size / wanted));
    this.nextPoint();
  }

  private nextPoint(): void {
    this.seed = (Math.imul(this.seed, 1664525) + 1013904223) >>> 0;
    this.point = this.k * this.stretch + (this.seed % this.stretch);
    this.k++;
  }

  /** What the sample says the others' text length is, from their raw length. */
  estimate(othersRaw: number): number {
    return Math.round((othersRaw * this.ratios) / this.taken);
  }

  /**
   * The chunk's lines (`starts`, relative to the chunk at file offset `base`, its first line
   * numbered `first`, its `candidates` ascending). A point past the last line end of the chunk is
   * in a later chunk (or past the file's last byte: no line).
   */
  take(starts: number[], end: (i: number) => number, base: number, first: number, candidates: number[], textOf: (i: number) => string): void {
    const lines = end(starts.length - 1) === starts[starts.length - 1] ? starts.length - 1 : starts.length;
    if (!lines) return;
    const limit = base + end(lines - 1); // a point on the last line's end is on that line
    let i = 0;
    let c = 0;
    let last = -1; // a long line drawn again counts again, read once
    let ratio = 0;
    for (; this.k <= this.wanted && this.point <= limit; this.nextPoint()) {
      while (i + 1 < lines && base + starts[i + 1] <= this.point) i++;
      while (c < candidates.length && candidates[c] < first + i) c++;
      if (candidates[c] === first + i) continue;
      if (i !== last) {
        ratio = (textOf(i).length + 1) / (end(i) - starts[i] + 1);
        last = i;
        this.read++;
      }
      this.ratios += ratio;
      this.taken++;
    }
  }
}

/**
 * Whether a needle found at `at` may start a word of the extracted text, where the query's
 * expression looks for it (`\b`, ASCII word characters): not after an ASCII letter, digit or
 * underscore (`input_tokens`, `cacheRead` hold no word "tokens" or "read"), unless that character
 * ends a JSON escape (`\n`, `\u00e9`): what it stands for is not a word character.
 */
function wordStart(text: string, at: number): boolean {
  if (!WORD_CHAR.test(text.charAt(at - 1))) return true;
  if (text.charCodeAt(at - 2) === 92 && 'nrtbf'.includes(text.charAt(at - 1))) return true;
  return /\\u[0-9a-f]{4}$/i.test(text.slice(Math.max(0, at - 6), at));
}

const WORD_CHAR = /[A-Za-z0-9_]/;

/**
 * The day runs the full scan records (search-corpus.ts dayRecorder) over one chunk's lines: a
 * line's first `"timestamp":"`, its date when it is one, a new run when it differs from the last.
 */
function dayRuns(text: string, starts: number[], end: (i: number) => number, first: number, days: DayRun[], state: { last: string }): void {
  let i = 0;
  for (let at = text.indexOf(TIMESTAMP_KEY); at !== -1; ) {
    while (i + 1 < starts.length && starts[i + 1] <= at) i++;
    const start = at + TIMESTAMP_KEY.length;
    if (start + 11 <= end(i) && text.charCodeAt(start + 10) === 84 && !(state.last && text.startsWith(state.last, start)) && DAY.test(text.slice(start, start + 11))) {
      state.last = text.slice(start, start + 10);
      days.push([first + i, state.last]);
    }
    if (i + 1 >= starts.length) break;
    at = text.indexOf(TIMESTAMP_KEY, starts[i + 1]);
  }
}
