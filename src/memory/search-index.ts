// Pure: the inverted index of one searchable text file (SPEC §3 `wmem search`). Each word run
// ([\p{L}\p{N}]+, the unit scanText reads) maps to the lines it occurs on; the file's line starts
// (in bytes) let a search read only those lines. The index only finds *candidate* lines: a search
// rescans them with scanText, so its hits are exactly those of a scan of the whole file.
//
// Encoded form (one buffer, every section 4-byte aligned, read without parsing the postings):
//   "WMIX0001" · u32 header length · header JSON · lineStarts u32[lines] · tokenEnds u32[n] ·
//   token bytes (UTF-8, concatenated) · postingEnds u32[n] · postings (varint line deltas)
// Tokens are sorted: pure-ASCII tokens first, lowercased (a prefix search finds them by binary
// search), then the others as written (tried one by one: there are few, and their case matters).
import { irregularForms } from './text.js';
import type { Query } from './search.js';

const MAGIC = 'WMIX0001';

/** The index being built or extended, in memory. */
export interface IndexData {
  /** Lines as scanText counts them (a last line without a newline counts). */
  lines: number;
  /** The searched text's length in UTF-16 units (scanText's `chars`). */
  chars: number;
  /** The file is pure ASCII (decoded as Latin-1). */
  ascii: boolean;
  /** The file's bytes covered (its size when built). */
  bytes: number;
  /** Byte offset of each line's start. */
  lineStarts: number[];
  /** Each line's length in UTF-16 units, without its newline or a final carriage return (BM25's length). */
  lineLengths: number[];
  /** Token → line, count, line, count, … (lines ascending). */
  postings: Map<string, number[]>;
}

/** What the store keeps beside the postings: which version of which file this is. */
export interface IndexMeta {
  size: number;
  mtimeMs: number;
  ino: number;
  dev: number;
  /** Hash of the file's bytes, so an append can be told from a rewrite. */
  hash: string;
  /** A detail file's `pointer:` front matter field. */
  pointer?: string;
  /** Lines of front matter blanked out (not searched). */
  frontMatterLines?: number;
}

export class CorruptIndex extends Error {}

const WORD_RUN = /[\p{L}\p{N}]+/gu;
// eslint-disable-next-line no-control-regex
const NON_ASCII = /[^\x00-\x7f]/;

export function emptyIndex(): IndexData {
  return { lines: 0, chars: 0, ascii: true, bytes: 0, lineStarts: [], lineLengths: [], postings: new Map() };
}

/**
 * Adds `text` (the decoded bytes from `fromByte` of a file, starting at a line start) as lines
 * numbered from `data.lines + 1` (front matter comes blanked: empty lines). `bytes` is the raw
 * buffer the text was decoded from (for line starts).
 */
export function addText(data: IndexData, bytes: Buffer, fromByte: number, text: string, ascii: boolean, skipLine?: (line: string) => boolean): void {
  let line = data.lines;
  let pos = fromByte;
  for (;;) {
    if (pos >= bytes.length) break;
    data.lineStarts.push(pos);
    line++;
    const nl = bytes.indexOf(10, pos);
    if (nl === -1) break;
    pos = nl + 1;
  }
  data.ascii = data.ascii && ascii;
  data.chars += text.length;
  data.bytes = bytes.length;
  const first = data.lines + 1;
  data.lines = line;
  let lineNo = first;
  let start = 0;
  const postings = data.postings;
  for (;;) {
    let end = text.indexOf('\n', start);
    if (end === -1) end = text.length;
    if (lineNo > data.lines) break;
    const line = text.slice(start, end);
    data.lineLengths.push(line.endsWith('\r') ? line.length - 1 : line.length);
    if (line && !skipLine?.(line.endsWith('\r') ? line.slice(0, -1) : line)) addLine(postings, line, lineNo, ascii);
    if (end >= text.length) break;
    start = end + 1;
    lineNo++;
  }
}

// A run right after an underscore is never read by the search (no word boundary there), so it is
// not indexed: an ASCII token's counts are then exactly the search's.
function addLine(postings: Map<string, number[]>, line: string, lineNo: number, ascii: boolean): void {
  if (ascii) return addAsciiLine(postings, line, lineNo);
  WORD_RUN.lastIndex = 0;
  for (let m = WORD_RUN.exec(line); m; m = WORD_RUN.exec(line)) {
    const run = m[0];
    if (NON_ASCII.test(run)) post(postings, run, lineNo);
    else if (m.index === 0 || line.charCodeAt(m.index - 1) !== 95) post(postings, run.toLowerCase(), lineNo);
  }
}

/** addLine for pure ASCII, a character at a time (runs of letters and digits): the index's hot loop. */
function addAsciiLine(postings: Map<string, number[]>, line: string, lineNo: number): void {
  let start = -1;
  let upper = false;
  for (let i = 0; i <= line.length; i++) {
    const c = i < line.length ? line.charCodeAt(i) : 0;
    const folded = c | 0x20;
    if ((c >= 48 && c <= 57) || (folded >= 97 && folded <= 122)) {
      if (start < 0) {
        start = i;
        upper = false;
      }
      if (c <= 90 && c >= 65) upper = true;
      continue;
    }
    if (start < 0) continue;
    if (start === 0 || line.charCodeAt(start - 1) !== 95) {
      const token = line.slice(start, i);
      post(postings, upper ? token.toLowerCase() : token, lineNo);
    }
    start = -1;
  }
}

function post(postings: Map<string, number[]>, token: string, lineNo: number): void {
  const list = postings.get(token);
  if (!list) postings.set(token, [lineNo, 1]);
  else if (list[list.length - 2] !== lineNo) list.push(lineNo, 1);
  else list[list.length - 1]++;
}

/**
 * Drops the last line (an unfinished line an append continues), so the appended bytes can be
 * indexed from that line's start. Returns the byte it started at.
 */
export function dropLastLine(data: IndexData, lastLineChars: number): number {
  const last = data.lines;
  const start = data.lineStarts.pop() ?? 0;
  for (const [token, list] of data.postings) {
    if (list[list.length - 2] === last) {
      list.length -= 2;
      if (!list.length) data.postings.delete(token);
    }
  }
  data.lineLengths.pop();
  data.lines--;
  data.chars -= lastLineChars;
  data.bytes = start;
  return start;
}

/** A growing byte buffer for the postings. */
class ByteSink {
  bytes = new Uint8Array(1 << 16);
  length = 0;

  varint(n: number): void {
    if (this.length + 8 > this.bytes.length) {
      const grown = new Uint8Array(this.bytes.length * 2);
      grown.set(this.bytes);
      this.bytes = grown;
    }
    while (n >= 0x80) {
      this.bytes[this.length++] = (n & 0x7f) | 0x80;
      n = Math.floor(n / 128);
    }
    this.bytes[this.length++] = n;
  }
}

function align4(n: number): number {
  return (n + 3) & ~3;
}

function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The canonical bytes of an index: the same content always gives the same bytes. */
export function encodeIndex(data: IndexData, meta: IndexMeta): Buffer {
  const asciiTokens: string[] = [];
  const otherTokens: string[] = [];
  for (const token of data.postings.keys()) (NON_ASCII.test(token) ? otherTokens : asciiTokens).push(token);
  asciiTokens.sort(compareCodeUnits);
  otherTokens.sort(compareCodeUnits);
  const tokens = [...asciiTokens, ...otherTokens];
  const tokenBytes = Buffer.from(tokens.join(''), 'utf8');
  const tokenEnds = new Uint32Array(tokens.length);
  const postingEnds = new Uint32Array(tokens.length);
  let tokenAt = 0;
  const varints = new ByteSink();
  tokens.forEach((token, i) => {
    tokenAt += Buffer.byteLength(token, 'utf8');
    tokenEnds[i] = tokenAt;
    let prev = 0;
    const list = data.postings.get(token)!;
    for (let p = 0; p < list.length; p += 2) {
      varints.varint(list[p] - prev);
      varints.varint(list[p + 1]);
      prev = list[p];
    }
    postingEnds[i] = varints.length;
  });
  const header = Buffer.from(
    JSON.stringify({ ...meta, lines: data.lines, chars: data.chars, ascii: data.ascii, bytes: data.bytes, tokens: tokens.length, asciiTokens: asciiTokens.length, tokenBytes: tokenBytes.length, postingBytes: varints.length }),
    'utf8',
  );
  const headerEnd = align4(12 + header.length);
  const lineStartsAt = headerEnd;
  const lineLengthsAt = lineStartsAt + 4 * data.lines;
  const tokenEndsAt = lineLengthsAt + 4 * data.lines;
  const tokenBytesAt = tokenEndsAt + 4 * tokens.length;
  const postingEndsAt = align4(tokenBytesAt + tokenBytes.length);
  const postingsAt = postingEndsAt + 4 * tokens.length;
  const out = Buffer.alloc(postingsAt + varints.length);
  out.write(MAGIC, 0, 'latin1');
  out.writeUInt32LE(header.length, 8);
  header.copy(out, 12);
  Buffer.from(Uint32Array.from(data.lineStarts).buffer).copy(out, lineStartsAt);
  Buffer.from(Uint32Array.from(data.lineLengths).buffer).copy(out, lineLengthsAt);
  Buffer.from(tokenEnds.buffer).copy(out, tokenEndsAt);
  tokenBytes.copy(out, tokenBytesAt);
  Buffer.from(postingEnds.buffer).copy(out, postingEndsAt);
  out.set(varints.bytes.subarray(0, varints.length), postingsAt);
  return out;
}

/** An encoded index, read in place. */
export interface IndexView {
  meta: IndexMeta & { lines: number; chars: number; ascii: boolean; bytes: number };
  lineStarts: Uint32Array;
  lineLengths: Uint32Array;
  tokenCount: number;
  asciiTokens: number;
  token(i: number): string;
  postings(i: number): number[];
  /** Calls `fn(line, count)` for each posting of token `i`, without building a list. */
  forEachPosting(i: number, fn: (line: number, count: number) => void): void;
}

interface Header extends IndexMeta {
  lines: number;
  chars: number;
  ascii: boolean;
  bytes: number;
  tokens: number;
  asciiTokens: number;
  tokenBytes: number;
  postingBytes: number;
}

function u32(buf: Buffer, at: number, count: number): Uint32Array {
  if ((buf.byteOffset + at) % 4 === 0) return new Uint32Array(buf.buffer, buf.byteOffset + at, count);
  return new Uint32Array(Uint8Array.prototype.slice.call(buf, at, at + 4 * count).buffer);
}

/** Reads an encoded index; throws CorruptIndex when its sections do not add up. */
export function decodeIndex(buf: Buffer): IndexView {
  if (buf.length < 12 || buf.toString('latin1', 0, 8) !== MAGIC) throw new CorruptIndex('not a wmem search index');
  const headerLength = buf.readUInt32LE(8);
  let h: Header;
  try {
    h = JSON.parse(buf.toString('utf8', 12, 12 + headerLength)) as Header;
  } catch {
    throw new CorruptIndex('unreadable header');
  }
  const counts = [h.lines, h.chars, h.bytes, h.tokens, h.asciiTokens, h.tokenBytes, h.postingBytes, h.size];
  if (counts.some((n) => !Number.isSafeInteger(n) || n < 0) || h.asciiTokens > h.tokens) throw new CorruptIndex('bad counts');
  const lineStartsAt = align4(12 + headerLength);
  const lineLengthsAt = lineStartsAt + 4 * h.lines;
  const tokenEndsAt = lineLengthsAt + 4 * h.lines;
  const tokenBytesAt = tokenEndsAt + 4 * h.tokens;
  const postingEndsAt = align4(tokenBytesAt + h.tokenBytes);
  const postingsAt = postingEndsAt + 4 * h.tokens;
  if (postingsAt + h.postingBytes !== buf.length) throw new CorruptIndex('truncated or padded');
  const lineStarts = u32(buf, lineStartsAt, h.lines);
  const lineLengths = u32(buf, lineLengthsAt, h.lines);
  const tokenEnds = u32(buf, tokenEndsAt, h.tokens);
  const postingEnds = u32(buf, postingEndsAt, h.tokens);
  if (h.tokens && (tokenEnds[h.tokens - 1] !== h.tokenBytes || postingEnds[h.tokens - 1] !== h.postingBytes)) throw new CorruptIndex('sections do not add up');
  return {
    meta: h,
    lineStarts,
    lineLengths,
    tokenCount: h.tokens,
    asciiTokens: h.asciiTokens,
    token(i) {
      const from = i ? tokenEnds[i - 1] : 0;
      if (from > tokenEnds[i]) throw new CorruptIndex('token bounds');
      return buf.toString(i < h.asciiTokens ? 'latin1' : 'utf8', tokenBytesAt + from, tokenBytesAt + tokenEnds[i]);
    },
    postings(i) {
      const out: number[] = [];
      this.forEachPosting(i, (line, count) => out.push(line, count));
      return out;
    },
    forEachPosting(i, fn) {
      const from = postingsAt + (i ? postingEnds[i - 1] : 0);
      const to = postingsAt + postingEnds[i];
      if (from > to) throw new CorruptIndex('posting bounds');
      let line = 0;
      let p = from;
      while (p < to) {
        let delta = buf[p++];
        if (delta & 0x80) [delta, p] = varint(buf, p, delta);
        if (p >= to) throw new CorruptIndex('posting cut short');
        let count = buf[p++];
        if (count & 0x80) [count, p] = varint(buf, p, count);
        line += delta;
        if (delta < 1 || line > h.lines || count < 1 || p > to) throw new CorruptIndex('posting out of range');
        fn(line, count);
      }
    },
  };
}

/** The rest of a varint whose first byte (with its high bit) was `first`; returns it and where it ended. */
function varint(buf: Buffer, p: number, first: number): [number, number] {
  let value = first & 0x7f;
  let scale = 128;
  for (;;) {
    const byte = buf[p++];
    if (byte === undefined) throw new CorruptIndex('posting cut short');
    value += (byte & 0x7f) * scale;
    if (!(byte & 0x80)) return [value, p];
    scale *= 128;
  }
}

/** The whole index back in memory, to extend it with appended lines. */
export function indexData(view: IndexView): IndexData {
  const postings = new Map<string, number[]>();
  for (let i = 0; i < view.tokenCount; i++) postings.set(view.token(i), view.postings(i));
  const { lines, chars, ascii, bytes } = view.meta;
  return { lines, chars, ascii, bytes, lineStarts: Array.from(view.lineStarts), lineLengths: Array.from(view.lineLengths), postings };
}

/** Which query terms a word (read where the query's expression matched) stands for: the search's own test. */
export type WordTerms = (word: string) => number[];

/** What the index says about a query: term counts per line, and the lines to read to know. */
export interface Gathered {
  /** Lines (ascending) whose words are all plain ASCII tokens, with their counts. */
  lines: number[];
  /** Occurrences per query term of `lines[i]`: row `row(lines[i])`, `terms` wide. */
  tf: Int32Array;
  row(line: number): number;
  /** Lines holding a non-ASCII word that may match: their counts come from rescanning them. */
  rescan: number[];
}

/**
 * Reads the query's terms out of the index. An ASCII token is a word the search reads whole at a
 * word start, so it is found by the prefixes the query's expression looks for and counted
 * exactly; the others are tried as scanText would read them (from the run's start, or from inside
 * it next to a non-ASCII character), and their lines are left to a rescan.
 */
export function gather(view: IndexView, query: Query, plain: boolean, termsOf: WordTerms): Gathered {
  const width = query.terms.length;
  const hitTokens = asciiHits(view, query, plain, termsOf);
  const slot = new Int32Array(view.meta.lines + 1);
  let tf = new Int32Array(1024 * width);
  const lines: number[] = [];
  for (const { token, hits } of hitTokens) {
    view.forEachPosting(token, (line, count) => {
      let row = slot[line];
      if (!row) {
        lines.push(line);
        row = slot[line] = lines.length;
        if (row * width > tf.length) {
          const grown = new Int32Array(tf.length * 2);
          grown.set(tf);
          tf = grown;
        }
      }
      const at = (row - 1) * width;
      for (const h of hits) tf[at + h] += count;
    });
  }
  const rescan = nonAsciiLines(view, query, termsOf);
  const rescanned = new Set(rescan);
  return {
    lines: rescan.length ? lines.filter((l) => !rescanned.has(l)) : lines,
    tf,
    row: (line) => slot[line] - 1,
    rescan,
  };
}

/** The ASCII tokens that stand for a query term: found by the prefixes the expression looks for. */
function asciiHits(view: IndexView, query: Query, plain: boolean, termsOf: WordTerms): { token: number; hits: number[] }[] {
  const prefixes = new Set<string>();
  for (const t of query.terms) {
    if (t.cjk) continue;
    prefixes.add(t.prefix.toLowerCase());
    if (!plain) for (const form of irregularForms(t.term)) prefixes.add(form);
  }
  const seen = new Set<number>();
  const out: { token: number; hits: number[] }[] = [];
  for (const prefix of prefixes) {
    for (let i = lowerBound(view, prefix); i < view.asciiTokens; i++) {
      const token = view.token(i);
      if (!token.startsWith(prefix)) break;
      if (seen.has(i)) continue;
      seen.add(i);
      const hits = termsOf(token);
      if (hits.length) out.push({ token: i, hits });
    }
  }
  return out;
}

/** Lines with a non-ASCII token scanText may read a query term in. */
function nonAsciiLines(view: IndexView, query: Query, termsOf: WordTerms): number[] {
  const rescan = new Set<number>();
  const re = new RegExp(query.regex.source, query.regex.flags.replace('g', ''));
  for (let i = view.asciiTokens; i < view.tokenCount; i++) {
    const token = view.token(i);
    // Either neighbour before the run decides \b: try both.
    if (!re.test(` ${token}`) && !re.test(`_${token}`)) continue;
    for (let s = 0; s < token.length; s++) {
      if (s > 0 && !NON_ASCII.test(token[s - 1]) && !NON_ASCII.test(token[s])) continue;
      if (termsOf(token.slice(s)).length) {
        view.forEachPosting(i, (line) => rescan.add(line));
        break;
      }
    }
  }
  return [...rescan].sort((a, b) => a - b);
}

function lowerBound(view: IndexView, prefix: string): number {
  let lo = 0;
  let hi = view.asciiTokens;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (view.token(mid) < prefix) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
