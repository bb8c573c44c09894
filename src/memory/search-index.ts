// Pure: the inverted index of one searchable text file (SPEC §3 `wmem search`). Each word run
// ([\p{L}\p{N}]+, the unit scanText reads) maps to the lines it occurs on; the file's line starts
// (in bytes) let a search read only those lines. The index only finds *candidate* lines: a search
// rescans them with scanText, so its hits are exactly those of a scan of the whole file.
//
// Encoded form (one buffer, every section aligned to its values, read without parsing the postings):
//   "WMIX0002" · u32 header length · header JSON · lineStarts u32[lines] · lineLengths u32[lines] ·
//   tokenEnds u32[n] · token bytes (UTF-8, concatenated) · postingEnds u32[n] · postings (varint
//   line deltas) · shortest u16[n] (per token, the shortest line it is on, 65535 for any longer:
//   the ranking's bound, so that a walk can stop once no line left can enter the shortlist)
// An index of the first form ("WMIX0001", no shortest section) is still read, as one whose lines
// are all taken as short as the average; it is written again in this form when next extended or rebuilt.
// It is built a chunk of lines at a time: each chunk's postings are sealed into a sorted run in
// this same compact form, and the runs are merged (so the bytes are those of a one-pass build).
// Tokens are sorted: pure-ASCII tokens first, lowercased (a prefix search finds them by binary
// search), then the others as written (tried one by one: there are few, and their case matters).
import { lazyRegExp } from './lazy-regexp.js';
import { irregularForms } from './text.js';
import type { Query } from './search.js';
import type { DayRun } from './search-shape.js';

const MAGIC = 'WMIX0002';
/** The first form: the same sections but the last. */
const MAGIC_V1 = 'WMIX0001';
/** A token's shortest line is stored in two bytes: a longer one is stored as this (still a lower bound). */
const SHORTEST_MAX = 0xffff;

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

/** A growing list of u32 (line starts and lengths): 4 bytes a line, not a JS array's 8 or more. */
export class U32List {
  data = new Uint32Array(1024);
  length = 0;

  push(n: number): void {
    if (this.length === this.data.length) {
      const grown = new Uint32Array(this.data.length * 2);
      grown.set(this.data);
      this.data = grown;
    }
    this.data[this.length++] = n;
  }

  pop(): number | undefined {
    return this.length ? this.data[--this.length] : undefined;
  }

  at(i: number): number {
    return this.data[i];
  }

  view(): Uint32Array {
    return this.data.subarray(0, this.length);
  }

  static of(values: Uint32Array): U32List {
    const list = new U32List();
    list.data = new Uint32Array(Math.max(1024, values.length * 2));
    list.data.set(values);
    list.length = values.length;
    return list;
  }
}

/** The tokens and postings of some lines, sorted (the encoded sections): a chunk's, or a stored index's. */
export type PostingSource = Pick<IndexView, 'tokenCount' | 'asciiTokens' | 'token' | 'forEachPosting' | 'sectionBytes'>;

/**
 * The index being built or extended. Its memory stays bounded by the text of one chunk: the
 * lines being added go to `postings` (flat typed arrays), and `seal` turns those into a compact
 * sorted run (bytes); `planIndex` merges the runs. Line starts and lengths are 4 bytes a line.
 */
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
  lineStarts: U32List;
  /** Each line's length in UTF-16 units, without its newline or a final carriage return (BM25's length). */
  lineLengths: U32List;
  /** The postings of the lines added since the last seal. */
  postings: ChunkPostings;
  /** Sealed runs in line order, each with the last line of its postings still in force. */
  runs: Run[];
}

/** A sealed run; `level` counts the merges it came from (a stored index: never merged early). */
interface Run {
  source: PostingSource;
  maxLine: number;
  level: number;
}

/** Runs of one level are merged into one when there are this many: few runs, each posting merged a few times. */
const FAN_IN = 8;

export class CorruptIndex extends Error {}

/** A word run (built for an index, never by a search: lazyRegExp). */
const wordRun = lazyRegExp('[\\p{L}\\p{N}]+', 'gu');
// eslint-disable-next-line no-control-regex
const NON_ASCII = /[^\x00-\x7f]/;

export function emptyIndex(): IndexData {
  return { lines: 0, chars: 0, ascii: true, bytes: 0, lineStarts: new U32List(), lineLengths: new U32List(), postings: new ChunkPostings(), runs: [] };
}

/**
 * Adds `text` (decoded from `bytes`, which start at byte `fromByte` of the file, at a line start)
 * as lines numbered from `data.lines + 1` (front matter comes blanked: empty lines).
 */
export function addText(data: IndexData, bytes: Buffer, fromByte: number, text: string, ascii: boolean, skipLine?: (line: string) => boolean): void {
  let line = data.lines;
  let pos = 0;
  for (;;) {
    if (pos >= bytes.length) break;
    data.lineStarts.push(fromByte + pos);
    line++;
    const nl = bytes.indexOf(10, pos);
    if (nl === -1) break;
    pos = nl + 1;
  }
  data.ascii = data.ascii && ascii;
  data.chars += text.length;
  data.bytes = fromByte + bytes.length;
  const first = data.lines + 1;
  data.lines = line;
  let lineNo = first;
  let start = 0;
  const postings = data.postings;
  for (;;) {
    let end = text.indexOf('\n', start);
    if (end === -1) end = text.length;
    if (lineNo > data.lines) break;
    // An ASCII line is read where it is in the text: no string per line (the build's garbage).
    const stop = end > start && text.charCodeAt(end - 1) === 13 ? end - 1 : end;
    data.lineLengths.push(stop - start);
    if (end > start && !skipLine?.(text.slice(start, stop))) {
      if (ascii) addAsciiLine(postings, text, start, end, lineNo);
      else addLine(postings, text.slice(start, end), lineNo);
    }
    if (end >= text.length) break;
    start = end + 1;
    lineNo++;
  }
}

// A run right after an underscore is never read by the search (no word boundary there), so it is
// not indexed: an ASCII token's counts are then exactly the search's.
function addLine(postings: ChunkPostings, line: string, lineNo: number): void {
  const re = wordRun();
  re.lastIndex = 0;
  for (let m = re.exec(line); m; m = re.exec(line)) {
    const run = m[0];
    if (NON_ASCII.test(run)) postings.post(run, lineNo);
    else if (m.index === 0 || line.charCodeAt(m.index - 1) !== 95) postings.post(run.toLowerCase(), lineNo);
  }
}

/** addLine for pure ASCII text[from, to), a character at a time (runs of letters and digits): the index's hot loop. */
function addAsciiLine(postings: ChunkPostings, text: string, from: number, to: number, lineNo: number): void {
  let start = -1;
  let upper = false;
  for (let i = from; i <= to; i++) {
    const c = i < to ? text.charCodeAt(i) : 0;
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
    if (start === from || text.charCodeAt(start - 1) !== 95) {
      const token = text.slice(start, i);
      postings.post(upper ? token.toLowerCase() : token, lineNo);
    }
    start = -1;
  }
}

/**
 * A chunk's postings without an array per token: each token an id, each posting an entry of
 * three int32 (line, count, next entry of the same token) in one flat array, linked from the
 * token's first and last entries. Entry 0 is none.
 */
export class ChunkPostings {
  readonly ids = new Map<string, number>();
  readonly tokens: string[] = [];
  head: Int32Array<ArrayBuffer> = new Int32Array(1024);
  private tail: Int32Array<ArrayBuffer> = new Int32Array(1024);
  entries: Int32Array<ArrayBuffer> = new Int32Array(3 * 4096);
  private used = 3;

  post(token: string, lineNo: number): void {
    let id = this.ids.get(token);
    if (id === undefined) {
      id = this.tokens.length;
      this.ids.set(token, id);
      this.tokens.push(token);
      if (id === this.head.length) {
        this.head = grow(this.head);
        this.tail = grow(this.tail);
      }
    }
    const last = this.tail[id];
    if (last && this.entries[last] === lineNo) {
      this.entries[last + 1]++;
      return;
    }
    if (this.used + 3 > this.entries.length) this.entries = grow(this.entries);
    const at = this.used;
    this.used += 3;
    this.entries[at] = lineNo;
    this.entries[at + 1] = 1;
    if (last) this.entries[last + 2] = at;
    else this.head[id] = at;
    this.tail[id] = at;
  }
}

function grow(a: Int32Array): Int32Array<ArrayBuffer> {
  const grown = new Int32Array(a.length * 2);
  grown.set(a);
  return grown;
}

/** Turns the lines added since the last seal into a compact sorted run, freeing their per-token lists. */
export function seal(data: IndexData): void {
  const chunk = data.postings;
  if (!chunk.tokens.length) return;
  const asciiTokens: string[] = [];
  const otherTokens: string[] = [];
  for (const token of chunk.tokens) (NON_ASCII.test(token) ? otherTokens : asciiTokens).push(token);
  asciiTokens.sort(compareCodeUnits);
  otherTokens.sort(compareCodeUnits);
  const tokens = new TokenSink();
  const varints = new ByteSink();
  const postingEnds = new U32List();
  const entries = chunk.entries;
  for (const list of [asciiTokens, otherTokens]) {
    for (const token of list) {
      tokens.add(token);
      let prev = 0;
      for (let e = chunk.head[chunk.ids.get(token)!]; e; e = entries[e + 2]) {
        varints.varint(entries[e] - prev);
        varints.varint(entries[e + 1]);
        prev = entries[e];
      }
      postingEnds.push(varints.length);
    }
  }
  data.postings = new ChunkPostings();
  // Copied to their exact sizes: a run is kept until the merge, the sinks' spare room is not.
  const source = sectionsView(
    { lines: data.lines, tokens: tokens.ends.length, asciiTokens: asciiTokens.length },
    arraySections(Buffer.from(tokens.bytes()), tokens.ends.view().slice(), varints.bytes.slice(0, varints.length), postingEnds.view().slice()),
  );
  data.runs.push({ source, maxLine: data.lines, level: 0 });
  for (;;) {
    const runs = data.runs;
    const last = runs.slice(-FAN_IN);
    if (last.length < FAN_IN || last.some((r) => r.level !== last[0].level)) return;
    runs.splice(-FAN_IN, FAN_IN, { source: mergeIntoRun(last, data.lines), maxLine: data.lines, level: last[0].level + 1 });
  }
}

/** Several runs (consecutive, in line order) as one. */
function mergeIntoRun(runs: Run[], lines: number): PostingSource {
  const n = countRuns(runs);
  // The four sections in one buffer: ends first (4-byte aligned), then the bytes.
  const mem = Buffer.from(new ArrayBuffer(8 * n.tokens + n.tokenBytes + n.postingBytes));
  const put: ByteWriter = (bytes, at) => mem.set(bytes, at);
  const tokenBytesAt = 8 * n.tokens;
  const postingsAt = tokenBytesAt + n.tokenBytes;
  writeRuns(runs, { tokenEnds: new SectionWriter(0, put), postingEnds: new SectionWriter(4 * n.tokens, put), tokenBytes: new SectionWriter(tokenBytesAt, put), postings: new SectionWriter(postingsAt, put) });
  return sectionsView(
    { lines, tokens: n.tokens, asciiTokens: n.asciiTokens },
    arraySections(mem.subarray(tokenBytesAt, postingsAt), new Uint32Array(mem.buffer, 0, n.tokens), mem.subarray(postingsAt), new Uint32Array(mem.buffer, 4 * n.tokens, n.tokens)),
  );
}

/**
 * Drops the last line (an unfinished line an append continues), so the appended bytes can be
 * indexed from that line's start. Returns the byte it started at.
 */
export function dropLastLine(data: IndexData, lastLineChars: number): number {
  seal(data);
  const start = data.lineStarts.pop() ?? 0;
  data.lineLengths.pop();
  data.lines--;
  for (const run of data.runs) run.maxLine = Math.min(run.maxLine, data.lines);
  data.chars -= lastLineChars;
  data.bytes = start;
  return start;
}

/** A growing byte buffer for the postings. */
class ByteSink {
  bytes: Uint8Array;
  length = 0;

  constructor(capacity = 1 << 16) {
    this.bytes = new Uint8Array(capacity);
  }

  varint(n: number): void {
    if (this.length + 8 > this.bytes.length) this.room(8);
    while (n >= 0x80) {
      this.bytes[this.length++] = (n & 0x7f) | 0x80;
      n = Math.floor(n / 128);
    }
    this.bytes[this.length++] = n;
  }

  room(n: number): void {
    if (this.length + n <= this.bytes.length) return;
    const grown = new Uint8Array(Math.max(this.bytes.length * 2, this.length + n));
    grown.set(this.bytes.subarray(0, this.length));
    this.bytes = grown;
  }
}

/** Token text, concatenated as UTF-8, with where each token ends. */
class TokenSink {
  private buf: Buffer;
  private length = 0;
  ends = new U32List();

  constructor(capacity = 1 << 16) {
    this.buf = Buffer.allocUnsafe(capacity);
  }

  add(token: string): void {
    if (this.length + token.length * 3 > this.buf.length) {
      const grown = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.length + token.length * 3));
      this.buf.copy(grown, 0, 0, this.length);
      this.buf = grown;
    }
    this.length += this.buf.write(token, this.length, 'utf8');
    this.ends.push(this.length);
  }

  bytes(): Buffer {
    return this.buf.subarray(0, this.length);
  }
}

function align4(n: number): number {
  return (n + 3) & ~3;
}

function align2(n: number): number {
  return (n + 1) & ~1;
}

function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Where the merge puts the index's tokens and postings: counted first, then written in place. */
interface MergeSink {
  posting(delta: number, count: number): void;
  /** The token whose postings were just given (at least one). */
  token(token: string, ascii: boolean): void;
}

const varintLength = (n: number) => (n < 0x80 ? 1 : n < 0x4000 ? 2 : n < 0x200000 ? 3 : n < 0x10000000 ? 4 : 5);

/**
 * Merges the sealed runs in token order: a token found in several runs gets their postings one
 * after the other (runs cover ascending lines), re-based; a run's postings past its `maxLine`
 * are left out (a line indexed again).
 */
function mergeRuns(runs: Run[], sink: MergeSink): void {
  const at = runs.map(() => 0);
  const heads = runs.map((r) => (r.source.tokenCount ? r.source.token(0) : undefined));
  // ASCII tokens first (each run lists them first), each group in code unit order.
  const group = (r: number) => (at[r] >= runs[r].source.asciiTokens ? 1 : 0);
  for (;;) {
    let min = -1;
    for (let r = 0; r < runs.length; r++) {
      if (heads[r] === undefined) continue;
      if (min < 0 || group(r) < group(min) || (group(r) === group(min) && heads[r]! < heads[min]!)) min = r;
    }
    if (min < 0) return;
    const token = heads[min]!;
    const tokenGroup = group(min);
    let prev = 0;
    for (let r = min; r < runs.length; r++) {
      if (heads[r] !== token || group(r) !== tokenGroup) continue;
      const maxLine = runs[r].maxLine;
      runs[r].source.forEachPosting(at[r], (line, count) => {
        if (line > maxLine) return;
        sink.posting(line - prev, count);
        prev = line;
      });
      at[r]++;
      heads[r] = at[r] < runs[r].source.tokenCount ? runs[r].source.token(at[r]) : undefined;
    }
    // Every posting left out (the token was only on a line indexed again): no token.
    if (prev) sink.token(token, tokenGroup === 0);
  }
}

/** What merging `runs` gives: counts and section sizes. */
function countRuns(runs: Run[]): { tokens: number; asciiTokens: number; tokenBytes: number; postingBytes: number } {
  const n = { tokens: 0, asciiTokens: 0, tokenBytes: 0, postingBytes: 0 };
  mergeRuns(runs, {
    posting(delta, count) {
      n.postingBytes += varintLength(delta) + varintLength(count);
    },
    token(token, ascii) {
      n.tokens++;
      if (ascii) n.asciiTokens++;
      n.tokenBytes += ascii ? token.length : Buffer.byteLength(token, 'utf8');
    },
  });
  return n;
}

/** Where encoded bytes go: `bytes` (reused after the call) belong at `position`. */
export type ByteWriter = (bytes: Uint8Array, position: number) => void;

/** Writes one section from `at` on through a small buffer: a section is never whole in memory. */
class SectionWriter {
  private buf = Buffer.allocUnsafe(1 << 16);
  private n = 0;
  /** Bytes written to the section so far. */
  length = 0;

  constructor(
    private at: number,
    private readonly write: ByteWriter,
  ) {}

  text(text: string): void {
    if (text.length * 3 > this.buf.length) {
      this.flush();
      this.put(Buffer.from(text, 'utf8'));
      return;
    }
    if (this.n + text.length * 3 > this.buf.length) this.flush();
    const k = this.buf.write(text, this.n, 'utf8');
    this.n += k;
    this.length += k;
  }

  u32(value: number): void {
    if (this.n + 4 > this.buf.length) this.flush();
    this.buf.writeUInt32LE(value, this.n);
    this.n += 4;
    this.length += 4;
  }

  u16(value: number): void {
    if (this.n + 2 > this.buf.length) this.flush();
    this.buf.writeUInt16LE(value, this.n);
    this.n += 2;
    this.length += 2;
  }

  varint(value: number): void {
    if (this.n + 8 > this.buf.length) this.flush();
    const start = this.n;
    while (value >= 0x80) {
      this.buf[this.n++] = (value & 0x7f) | 0x80;
      value = Math.floor(value / 128);
    }
    this.buf[this.n++] = value;
    this.length += this.n - start;
  }

  /** Bytes written as they are (a section the caller has whole already). */
  put(bytes: Uint8Array): void {
    this.flush();
    this.write(bytes, this.at);
    this.at += bytes.length;
    this.length += bytes.length;
  }

  flush(): void {
    if (!this.n) return;
    this.write(this.buf.subarray(0, this.n), this.at);
    this.at += this.n;
    this.n = 0;
  }
}

interface SectionWriters {
  tokenEnds: SectionWriter;
  tokenBytes: SectionWriter;
  postingEnds: SectionWriter;
  postings: SectionWriter;
  /** Each token's shortest line (an index file's; a run merged in memory has none), from `lengths`. */
  shortest?: { writer: SectionWriter; lengths: Uint32Array };
}

/** Merges `runs` into sections of the sizes countRuns gave. */
function writeRuns(runs: Run[], to: SectionWriters): void {
  const lengths = to.shortest?.lengths;
  // The token's lines, from its deltas (mergeRuns re-bases them across runs), and the shortest.
  let line = 0;
  let shortest = SHORTEST_MAX;
  mergeRuns(runs, {
    posting(delta, count) {
      to.postings.varint(delta);
      to.postings.varint(count);
      if (!lengths) return;
      line += delta;
      if (lengths[line - 1] < shortest) shortest = lengths[line - 1];
    },
    token(token) {
      to.tokenBytes.text(token);
      to.tokenEnds.u32(to.tokenBytes.length);
      to.postingEnds.u32(to.postings.length);
      to.shortest?.writer.u16(shortest);
      line = 0;
      shortest = SHORTEST_MAX;
    },
  });
  for (const writer of [to.tokenEnds, to.tokenBytes, to.postingEnds, to.postings, to.shortest?.writer]) writer?.flush();
}

/** An index about to be written: its header and size, known before any section is. */
export interface IndexPlan {
  size: number;
  write(to: ByteWriter): void;
}

/**
 * Plans the canonical bytes of an index (the same content always gives the same bytes): the runs
 * are merged once to count, and again when written, section by section through small buffers,
 * wherever `to` puts them (a file, or one buffer): no section is built apart. Gaps are zeros.
 */
export function planIndex(data: IndexData, meta: IndexMeta): IndexPlan {
  seal(data);
  const n = countRuns(data.runs);
  const header = Buffer.from(JSON.stringify({ ...meta, lines: data.lines, chars: data.chars, ascii: data.ascii, bytes: data.bytes, ...n }), 'utf8');
  const lineStartsAt = align4(12 + header.length);
  const lineLengthsAt = lineStartsAt + 4 * data.lines;
  const tokenEndsAt = lineLengthsAt + 4 * data.lines;
  const tokenBytesAt = tokenEndsAt + 4 * n.tokens;
  const postingEndsAt = align4(tokenBytesAt + n.tokenBytes);
  const postingsAt = postingEndsAt + 4 * n.tokens;
  const shortestAt = align2(postingsAt + n.postingBytes);
  const u8 = (a: Uint32Array) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
  return {
    size: shortestAt + 2 * n.tokens,
    write(to) {
      const start = Buffer.alloc(lineStartsAt);
      start.write(MAGIC, 0, 'latin1');
      start.writeUInt32LE(header.length, 8);
      header.copy(start, 12);
      to(start, 0);
      to(u8(data.lineStarts.view()), lineStartsAt);
      to(u8(data.lineLengths.view()), lineLengthsAt);
      const shortest = { writer: new SectionWriter(shortestAt, to), lengths: data.lineLengths.view() };
      writeRuns(data.runs, { tokenEnds: new SectionWriter(tokenEndsAt, to), tokenBytes: new SectionWriter(tokenBytesAt, to), postingEnds: new SectionWriter(postingEndsAt, to), postings: new SectionWriter(postingsAt, to), shortest });
      // The padding before the posting ends and the shortest lines, so that every byte of the file is written.
      if (postingEndsAt > tokenBytesAt + n.tokenBytes) to(new Uint8Array(postingEndsAt - tokenBytesAt - n.tokenBytes), tokenBytesAt + n.tokenBytes);
      if (shortestAt > postingsAt + n.postingBytes) to(new Uint8Array(1), postingsAt + n.postingBytes);
    },
  };
}

/** An encoded index, read in place. */
export interface IndexView {
  meta: IndexMeta & { lines: number; chars: number; ascii: boolean; bytes: number };
  /** Read on first use (a search of a few terms needs neither for most of its work). */
  readonly lineStarts: Uint32Array;
  readonly lineLengths: Uint32Array;
  tokenCount: number;
  asciiTokens: number;
  /** Bytes of the token text and of the postings. */
  sectionBytes: { tokens: number; postings: number };
  token(i: number): string;
  postings(i: number): number[];
  /** Calls `fn(line, count)` for each posting of token `i`, without building a list. */
  forEachPosting(i: number, fn: (line: number, count: number) => void): void;
  /** Token `i`'s postings decoded into `into` (grown as needed): lines then counts; returns how many. */
  decodePostings(i: number, into: PostingBuffer): number;
  /** Token `i`'s postings as encoded (varint line deltas and counts). */
  postingBytesOf(i: number): Uint8Array;
  /** Line `line`'s bytes in the text: [start, end), its newline included. */
  lineSpan(line: number): [number, number];
  /**
   * The starts or lengths of lines [from, from + count) into `into` (from its start), read by
   * offset: a search needs those of the lines it walks, not the whole section.
   */
  lineValues(section: 'starts' | 'lengths', from: number, count: number, into: Uint32Array): void;
  /** Where token `i`'s postings start in their section (`tokenCount`: its end). */
  postingOffset(i: number): number;
  /** No line token `i` is on is shorter than this (BM25's length; 0 in an index of the first form). */
  shortest(i: number): number;
  /** Reads the postings of tokens [from, to) now, in one read (they are next to each other). */
  preload?(from: number, to: number): void;
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

/** Where decodePostings puts a token's lines and counts (reused from token to token). */
export interface PostingBuffer {
  lines: Int32Array;
  counts: Int32Array;
}

/** `length` bytes of the encoded index from `position` (fewer only at its end). */
export type ReadAt = (position: number, length: number, into?: Uint8Array) => Uint8Array;

/** Four-byte values at `at` of `bytes`, copied only when not aligned. */
function u32(bytes: Uint8Array, at: number, count: number): Uint32Array {
  if ((bytes.byteOffset + at) % 4 === 0) return new Uint32Array(bytes.buffer, bytes.byteOffset + at, count);
  return new Uint32Array(Uint8Array.prototype.slice.call(bytes, at, at + 4 * count).buffer);
}

/** Reads an encoded index; throws CorruptIndex when its sections do not add up. */
export function decodeIndex(buf: Buffer): IndexView {
  return openIndex(buf.length, (at, length) => buf.subarray(at, at + length));
}

/**
 * An encoded index of `size` bytes read by offset: the header and the sorted tokens now, a
 * token's postings and the line arrays when asked for. A search reads a few hundred kilobytes of
 * a large index instead of all of it. Throws CorruptIndex when the sections do not add up.
 */
export function openIndex(size: number, readAt: ReadAt): IndexView {
  const read = (at: number, length: number, into?: Uint8Array) => {
    const bytes = readAt(at, length, into);
    if (bytes.length !== length) throw new CorruptIndex('truncated');
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  };
  if (size < 12) throw new CorruptIndex('not a wmem search index');
  const start = read(0, 12);
  const magic = start.toString('latin1', 0, 8);
  if (magic !== MAGIC && magic !== MAGIC_V1) throw new CorruptIndex('not a wmem search index');
  const headerLength = start.readUInt32LE(8);
  if (12 + headerLength > size) throw new CorruptIndex('truncated');
  let h: Header;
  try {
    h = JSON.parse(read(12, headerLength).toString('utf8')) as Header;
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
  // The first form ends with the postings; this one with each token's shortest line after them.
  const shortestAt = magic === MAGIC ? align2(postingsAt + h.postingBytes) : undefined;
  if ((shortestAt === undefined ? postingsAt + h.postingBytes : shortestAt + 2 * h.tokens) !== size) throw new CorruptIndex('truncated or padded');
  // The token table is read a page at a time, as a binary search for the query's words asks.
  const page = pager(read, size);
  const tokenEnd = (i: number) => page.u32(tokenEndsAt + 4 * i);
  const postingEnd = (i: number) => page.u32(postingEndsAt + 4 * i);
  if (h.tokens && (tokenEnd(h.tokens - 1) !== h.tokenBytes || postingEnd(h.tokens - 1) !== h.postingBytes)) throw new CorruptIndex('sections do not add up');
  // Postings read ahead for ranges of tokens (preload): [from, from + bytes.length) of the section.
  const ahead: { from: number; bytes: Uint8Array }[] = [];
  const sections = sectionsView(h, {
    tokenEnd,
    postingEnd,
    tokenText: (from, to, encoding) => page.bytes(tokenBytesAt + from, tokenBytesAt + to).toString(encoding),
    postingBytes: (from, to) => {
      const got = ahead.find((a) => from >= a.from && to <= a.from + a.bytes.length);
      return got ? got.bytes.subarray(from - got.from, to - got.from) : read(postingsAt + from, to - from);
    },
    tokenBytes: h.tokenBytes,
    postingTotal: h.postingBytes,
  });
  let lineStarts: Uint32Array | undefined;
  let lineLengths: Uint32Array | undefined;
  return {
    ...sections,
    meta: h,
    get lineStarts() {
      return (lineStarts ??= u32(read(lineStartsAt, 4 * h.lines), 0, h.lines));
    },
    get lineLengths() {
      return (lineLengths ??= u32(read(lineLengthsAt, 4 * h.lines), 0, h.lines));
    },
    // A few lines are read by a search (its best candidates): their starts, not all the starts.
    lineSpan(line) {
      if (line < 1 || line > h.lines) throw new CorruptIndex('line out of range');
      if (lineStarts) return [lineStarts[line - 1], line < h.lines ? lineStarts[line] : h.size];
      const pair = read(lineStartsAt + 4 * (line - 1), line < h.lines ? 8 : 4);
      return [pair.readUInt32LE(0), line < h.lines ? pair.readUInt32LE(4) : h.size];
    },
    lineValues(section, from, count, into) {
      if (from < 1 || count < 0 || from - 1 + count > h.lines || count > into.length) throw new CorruptIndex('line out of range');
      const loaded = section === 'starts' ? lineStarts : lineLengths;
      if (loaded) return into.set(loaded.subarray(from - 1, from - 1 + count));
      const at = (section === 'starts' ? lineStartsAt : lineLengthsAt) + 4 * (from - 1);
      const bytes = read(at, 4 * count, new Uint8Array(into.buffer, into.byteOffset, 4 * count));
      if (bytes.buffer !== into.buffer || bytes.byteOffset !== into.byteOffset) into.set(u32(bytes, 0, count));
    },
    shortest(i) {
      if (!(i >= 0 && i < h.tokens)) throw new CorruptIndex('token out of range');
      return shortestAt === undefined ? 0 : page.u16(shortestAt + 2 * i);
    },
    preload(from, to) {
      if (from >= to) return;
      const first = from ? postingEnd(from - 1) : 0;
      const last = postingEnd(to - 1);
      if (first > last || last > h.postingBytes) throw new CorruptIndex('posting bounds');
      ahead.push({ from: first, bytes: read(postingsAt + first, last - first) });
    },
  };
}

/** Where a view reads its token table and postings: arrays in memory, or pages of a file. */
interface Sections {
  tokenEnd(i: number): number;
  postingEnd(i: number): number;
  tokenText(from: number, to: number, encoding: 'latin1' | 'utf8'): string;
  postingBytes(from: number, to: number): Uint8Array;
  tokenBytes: number;
  postingTotal: number;
}

/** The sections of a sealed run or a whole index in memory. */
function arraySections(tokenBytes: Buffer, tokenEnds: Uint32Array, postings: Uint8Array, postingEnds: Uint32Array): Sections {
  return {
    tokenEnd: (i) => tokenEnds[i],
    postingEnd: (i) => postingEnds[i],
    tokenText: (from, to, encoding) => tokenBytes.toString(encoding, from, to),
    postingBytes: (from, to) => postings.subarray(from, to),
    tokenBytes: tokenBytes.length,
    postingTotal: postings.length,
  };
}

/** Pages of 16 KiB of a file, each read once: the token table's entries a binary search visits. */
function pager(read: (at: number, length: number) => Buffer, size: number): { u32(at: number): number; u16(at: number): number; bytes(from: number, to: number): Buffer } {
  const PAGE = 1 << 14;
  const pages = new Map<number, Buffer>();
  const pageOf = (n: number) => {
    let got = pages.get(n);
    if (!got) pages.set(n, (got = read(n * PAGE, Math.min(PAGE, size - n * PAGE))));
    return got;
  };
  return {
    // A 4-byte value at a multiple of 4 never straddles two pages.
    u32: (at) => pageOf(Math.floor(at / PAGE)).readUInt32LE(at % PAGE),
    // And a 2-byte value at a multiple of 2.
    u16: (at) => pageOf(Math.floor(at / PAGE)).readUInt16LE(at % PAGE),
    bytes(from, to) {
      const n = Math.floor(from / PAGE);
      if (to <= (n + 1) * PAGE) return pageOf(n).subarray(from % PAGE, from % PAGE + (to - from));
      return read(from, to - from);
    },
  };
}

/** Sorted tokens and their postings, read in place (an index file's sections, or a sealed run's). */
function sectionsView(counts: { lines: number; tokens: number; asciiTokens: number }, at: Sections): Omit<IndexView, 'meta' | 'lineStarts' | 'lineLengths' | 'lineSpan' | 'lineValues' | 'shortest'> {
  const postingRange = (i: number): [number, number] => {
    const from = i ? at.postingEnd(i - 1) : 0;
    const to = at.postingEnd(i);
    if (from > to || to > at.postingTotal) throw new CorruptIndex('posting bounds');
    return [from, to];
  };
  return {
    tokenCount: counts.tokens,
    asciiTokens: counts.asciiTokens,
    sectionBytes: { tokens: at.tokenBytes, postings: at.postingTotal },
    token(i) {
      const from = i ? at.tokenEnd(i - 1) : 0;
      const to = at.tokenEnd(i);
      if (from > to || to > at.tokenBytes) throw new CorruptIndex('token bounds');
      return at.tokenText(from, to, i < counts.asciiTokens ? 'latin1' : 'utf8');
    },
    postingOffset(i) {
      return i ? at.postingEnd(i - 1) : 0;
    },
    postings(i) {
      const out: number[] = [];
      this.forEachPosting(i, (line, count) => out.push(line, count));
      return out;
    },
    forEachPosting(i, fn) {
      readPostings(at.postingBytes(...postingRange(i)), counts.lines, fn);
    },
    decodePostings(i, into) {
      return decodeInto(at.postingBytes(...postingRange(i)), counts.lines, into);
    },
    postingBytesOf(i) {
      return at.postingBytes(...postingRange(i));
    },
  };
}

/** Calls `fn(line, count)` for each posting of `bytes` (one token's), decoded by decodeInto. */
function readPostings(bytes: Uint8Array, lines: number, fn: (line: number, count: number) => void): void {
  const into: PostingBuffer = { lines: new Int32Array(0), counts: new Int32Array(0) };
  const n = decodeInto(bytes, lines, into);
  for (let k = 0; k < n; k++) fn(into.lines[k], into.counts[k]);
}

/** One token's postings, (delta, count) varint pairs, into typed arrays (checked as decodeSome does). */
function decodeInto(bytes: Uint8Array, lines: number, into: PostingBuffer): number {
  // Each posting takes at least two bytes.
  if (into.lines.length < bytes.length >> 1) {
    into.lines = new Int32Array(bytes.length >> 1);
    into.counts = new Int32Array(bytes.length >> 1);
  }
  return decodeSome(bytes, new Int32Array(3), 0, Infinity, lines, into.lines, into.counts, into.lines.length);
}

/**
 * Decodes one token's postings (varint line deltas, then counts) from the cursor `cur[c..c+3)`
 * (the next byte, the last line decoded, the next posting's line) into `outLines`/`outCounts`:
 * those on lines below `until`, at most `cap`; returns how many. The posting it stops at is
 * decoded and checked too (its line is the cursor's next: DONE at the end). Every posting is
 * checked (CorruptIndex). One loop with no call or allocation per posting: a search's hot path,
 * which V8 runs cold.
 */
function decodeSome(bytes: Uint8Array, cur: Int32Array, c: number, until: number, lines: number, outLines: Int32Array, outCounts: Int32Array, cap: number): number {
  const to = bytes.length;
  let p = cur[c];
  let line = cur[c + 1];
  let next = DONE;
  let n = 0;
  while (p < to) {
    let q = p;
    // Each varint read by one loop whose every step a one-byte varint runs too: V8 compiles it
    // with the type feedback of all of them (a call made for the longer ones only, or a step that
    // only they ran, was a deopt and a recompile the first time a long one came).
    let delta = 0;
    let scale = 1;
    let byte = 0;
    do {
      if (q >= to) throw new CorruptIndex('posting cut short');
      byte = bytes[q++];
      delta += (byte & 0x7f) * scale;
      scale *= 128;
    } while (byte & 0x80);
    let count = 0;
    scale = 1;
    do {
      if (q >= to) throw new CorruptIndex('posting cut short');
      byte = bytes[q++];
      count += (byte & 0x7f) * scale;
      scale *= 128;
    } while (byte & 0x80);
    if (delta < 1 || line + delta > lines || count < 1 || count > DONE) throw new CorruptIndex('posting out of range');
    if (line + delta >= until || n === cap) {
      next = line + delta;
      break;
    }
    line += delta;
    p = q;
    outLines[n] = line;
    outCounts[n++] = count;
  }
  cur[c] = p;
  cur[c + 1] = line;
  cur[c + 2] = next;
  return n;
}

/** An index to extend with appended lines: the stored postings stay where they are, as the first run. */
export function indexData(view: IndexView): IndexData {
  const { lines, chars, ascii, bytes } = view.meta;
  const data = emptyIndex();
  Object.assign(data, { lines, chars, ascii, bytes, lineStarts: U32List.of(view.lineStarts), lineLengths: U32List.of(view.lineLengths) });
  data.runs.push({ source: view, maxLine: lines, level: Infinity });
  return data;
}

/** Which query terms a word (read where the query's expression matched) stands for: the search's own test. */
export type WordTerms = (word: string) => number[];

/** What the index says about a query: the lines holding its terms, walked in order, and the lines to read to know. */
export interface Gathered {
  /**
   * Calls `fn` for each line (ascending) whose words are all plain ASCII tokens and that holds a
   * query term, with its occurrences per query term in `tf[at + t]` (`terms` wide; reused for the
   * next line: copy what is kept) and, when `withLength`, its length (BM25's).
   */
  forEach(fn: (line: number, tf: Int32Array, at: number, length: number) => void, withLength?: boolean, stop?: (from: number) => boolean): void;
  /** Per query term, how many of those lines hold it (its document frequency here). */
  df: number[];
  /** Per query term, the most occurrences it has on any one of those lines (Infinity: more than a byte counts). */
  maxTf: number[];
  /** Lines holding a non-ASCII word that may match: their counts come from rescanning them. */
  rescan: number[];
  /** No line the walk gives is shorter than this (0 when the index does not say). */
  shortest: number;
  /** Set when a walk gave a line shorter than `shortest`: the index is damaged (its bound may have stopped a walk too soon). */
  damaged: boolean;
  /**
   * When gather was given the file's days: each list's occurrences on the walk's lines added up by
   * day (by the count pass), handed to `fn` a day and a list at a time (the day's first line, the
   * query terms the list's token counts for, the sum): what a day's score needs (dayScores),
   * without walking the lines.
   */
  forEachDay?(fn: (start: number, terms: readonly number[], count: number) => void): void;
}

/** Lines walked at a time: a block's counts (terms wide) stay small and are reused, never one row per line of the file. */
const BLOCK_LINES = 2048;
/** A list walked to its end (above any line number an index holds: a u32 line start per line). */
const DONE = 0x7fffffff;

/**
 * Reads the query's terms out of the index. An ASCII token is a word the search reads whole at a
 * word start, so it is found by the prefixes the query's expression looks for and counted
 * exactly; the others are tried as scanText would read them (from the run's start, or from inside
 * it next to a non-ASCII character), and their lines are left to a rescan. The postings are read
 * now and checked (a damaged index throws CorruptIndex here, not while ranking); the lines are
 * walked when asked for, a block at a time, from those bytes: a term on most lines of a large
 * file costs no memory by line.
 */
export function gather(view: IndexView, query: Query, plain: boolean, termsOf: WordTerms, weigh?: (postingBytes: number) => void, days?: readonly DayRun[]): Gathered {
  const width = query.terms.length;
  const hits = asciiHits(view, query, plain, termsOf);
  const lists = hits.map(({ token, hits }) => ({ bytes: view.postingBytesOf(token), hits }));
  const shortest = hits.reduce((n, { token }) => Math.min(n, view.shortest(token)), SHORTEST_MAX);
  // What the walks ahead will decode, told before the first (the search entry tunes V8 then).
  weigh?.(lists.reduce((n, list) => n + list.bytes.length, 0));
  const rescan = nonAsciiLines(view, query, termsOf);
  const skip = rescan.length ? new Set(rescan) : undefined;
  const lines = view.meta.lines;
  if (lines >= DONE) throw new CorruptIndex('too many lines'); // scanned instead
  const gathered = { damaged: false } as Gathered;
  const walk: Gathered['forEach'] = (fn, withLength = false, stop) => {
    if (walkBlocks(lists, width, lines, skip, withLength ? view : undefined, fn, stop, withLength ? shortest : 0)) gathered.damaged = true;
  };
  // Each list checked now (a damaged index throws here); a term that one list alone stands for
  // has that list's lines as its df and its most occurrences on a line as its maxTf; a term of
  // several lists (test, tests) their union's, and the most their counts add up to on one line.
  const scratch = decoded();
  const most = new Int32Array(1);
  const listMost = lists.map(() => 0);
  // Each list's sums by day, added up in the same pass: no walk for the days. The days' first
  // lines end with DONE, and each list's sums start with a slot for the lines before the first
  // day: countPostings reads and stores the same with days or without (countPostings says why).
  const starts = Int32Array.from([...(days ?? []).map(([start]) => start), DONE]);
  const slots = starts.length;
  const sums = new Float64Array(lists.length * slots);
  const cursor = new Int32Array(3);
  const counts = lists.map((list, i) => {
    const n = countPostings(list.bytes, lines, skip, scratch, most, starts, sums.subarray(i * slots, (i + 1) * slots), cursor);
    listMost[i] = most[0];
    return n;
  });
  const listsOf = new Array<number>(width).fill(0);
  for (const list of lists) for (const t of list.hits) listsOf[t]++;
  const df = new Array<number>(width).fill(0);
  const maxTf = new Array<number>(width).fill(0);
  lists.forEach((list, i) => list.hits.forEach((t) => listsOf[t] === 1 && ((df[t] = counts[i]), (maxTf[t] = listMost[i]))));
  // A term of several lists counts the lines of their union: its counts added up in one byte a
  // line (saturating: a sum past a byte bounds nothing), no walk.
  let marks: Uint8Array | undefined;
  for (let t = 0; t < width; t++) {
    if (listsOf[t] < 2) continue;
    if (marks) marks.fill(0);
    else marks = new Uint8Array(lines + 1);
    most[0] = 0;
    for (const list of lists) if (list.hits.includes(t)) df[t] += countUnion(list.bytes, lines, skip, scratch, most, marks);
    maxTf[t] = most[0] >= 255 ? Infinity : most[0];
  }
  const forEachDay: Gathered['forEachDay'] = (fn) => {
    lists.forEach((list, i) => {
      for (let d = 0; d + 1 < slots; d++) if (sums[i * slots + d + 1]) fn(starts[d], list.hits, sums[i * slots + d + 1]);
    });
  };
  return Object.assign(gathered, { forEach: walk, df, maxTf, rescan, shortest }, days ? { forEachDay } : {});
}

/** Postings decoded at a time (a walk's block holds at most one a line). */
const DECODED = BLOCK_LINES;

/** Scratch for decodeSome: a block's postings of one list. */
interface Decoded {
  lines: Int32Array;
  counts: Int32Array;
}

const decoded = (): Decoded => ({ lines: new Int32Array(DECODED), counts: new Int32Array(DECODED) });

/**
 * How many lines one token's postings name, `skip`'s left out; throws CorruptIndex as the walk
 * would. `most[0]` is set to the most occurrences on one of them, and `sums[d + 1]` to their
 * occurrences on day d (from line `starts[d]` to the next day's; `starts` ends with DONE, and
 * `sums[0]` takes the lines before the first day): the postings are decoded a day at a time (up
 * to the next day's first line), so a day's sum costs an add per posting, not a search. `cur` is
 * the decoder's cursor (reset here). No allocation, and the loop's loads and stores run on every
 * list, days or not: its first run (a common term's list) is compiled on the stack before V8 has
 * type feedback for what that run did before the loop, and what a later list alone reached was a
 * deopt and a recompile. Fewer deopts, not none: the cursor's first store can still lack feedback
 * (bench/README.md, search19 and review19c's counts).
 */
function countPostings(bytes: Uint8Array, lines: number, skip: Set<number> | undefined, into: Decoded, most: Int32Array, starts: Int32Array, sums: Float64Array, cur: Int32Array): number {
  cur[0] = 0;
  cur[1] = 0;
  cur[2] = 0;
  let n = 0;
  let top = 0;
  // The slot of the day the next postings are on (0: before the first day).
  let day = 0;
  let next = 0;
  // One way through the loop for every block, its exit too: a step only the list's end takes
  // (its last compare, the day's increment) had no type feedback in the code compiled on the stack.
  do {
    const got = decodeSome(bytes, cur, 0, starts[day], lines, into.lines, into.counts, DECODED);
    let sum = 0;
    for (let j = 0; j < got; j++) {
      if (skip && skip.has(into.lines[j])) continue;
      n++;
      // Read once, always: a load only some postings reach had no type feedback when V8 compiled the loop.
      const count = into.counts[j];
      if (count > top) top = count;
      sum += count;
    }
    // Stored each block, not once after the loop: V8 compiles the loop on the stack (OSR) before
    // a store after it ever ran, and a store with no type feedback was a deopt and a recompile.
    most[0] = top;
    sums[day] += sum;
    next = cur[2];
    // The next posting is on a later day (or there is none): the next decode is up to its end.
    day += next >= starts[day] ? 1 : 0;
  } while (next !== DONE);
  return n;
}

/**
 * countPostings for one of a term's several lists: only the lines not marked before are counted,
 * and each line's counts are added up in its mark (saturating at 255); `most[0]` is raised to the
 * most a mark adds up to. A function apart: each stays compiled for the one case it sees.
 */
function countUnion(bytes: Uint8Array, lines: number, skip: Set<number> | undefined, into: Decoded, most: Int32Array, marks: Uint8Array): number {
  const cur = new Int32Array(3);
  let n = 0;
  let top = most[0];
  for (let got = 1; got; ) {
    got = decodeSome(bytes, cur, 0, DONE, lines, into.lines, into.counts, DECODED);
    for (let j = 0; j < got; j++) {
      const line = into.lines[j];
      if (skip && skip.has(line)) continue;
      const before = marks[line];
      if (!before) n++;
      const sum = Math.min(before + into.counts[j], 255);
      marks[line] = sum;
      if (sum > top) top = sum;
    }
    most[0] = top; // each block (countPostings says why)
  }
  return n;
}

/** Lines whose lengths a walk reads at once when its blocks come one after another (one read, not one a block). */
const LENGTH_WINDOW = 16 * BLOCK_LINES;

/**
 * The block walk of gather: each list's postings (varint line deltas and counts, checked as they
 * are decoded) are added into one block's counts, then the block's lines are handed out in order.
 * A block starts at the lowest line still to come, so rare terms skip the lines between.
 */
function walkBlocks(lists: { bytes: Uint8Array; hits: number[] }[], width: number, lines: number, skip: Set<number> | undefined, lengthsOf: IndexView | undefined, fn: (line: number, tf: Int32Array, at: number, length: number) => void, stop?: (from: number) => boolean, shortest = 0): boolean {
  // Whether a line given was shorter than the index said any of the terms' lines is: a damaged
  // shortest-lines section, whose bound may have ended a walk too soon (the caller drops the index).
  let belowShortest = false;
  const k = lists.length;
  // Each list's cursor (decodeSome's), its next line first peeked (nothing below line 0).
  const cur = new Int32Array(3 * k);
  const got = decoded();
  for (let i = 0; i < k; i++) decodeSome(lists[i].bytes, cur, 3 * i, 0, lines, got.lines, got.counts, DECODED);
  const tf = new Int32Array(BLOCK_LINES * width);
  const seen = new Uint8Array(BLOCK_LINES);
  const touched = new Int32Array(BLOCK_LINES);
  const lengths = new Lengths(lengthsOf, lines);
  let blocks = 0;
  for (;;) {
    let from = DONE;
    for (let i = 0; i < k; i++) if (cur[3 * i + 2] < from) from = cur[3 * i + 2];
    // `stop`: no line from `from` on can matter to the caller (the ranking's bound, search.ts).
    if (from === DONE || stop?.(from)) return belowShortest;
    const to = from + BLOCK_LINES;
    let n = 0;
    for (let i = 0; i < k; i++) {
      if (cur[3 * i + 2] >= to) continue;
      const m = decodeSome(lists[i].bytes, cur, 3 * i, to, lines, got.lines, got.counts, DECODED);
      const hits = lists[i].hits;
      for (let j = 0; j < m; j++) {
        const off = got.lines[j] - from;
        if (!seen[off]) {
          seen[off] = 1;
          touched[n++] = off;
        }
        const at = off * width;
        const count = got.counts[j];
        for (let h = 0; h < hits.length; h++) tf[at + hits[h]] += count;
      }
    }
    const span = Math.min(BLOCK_LINES, lines - from + 1);
    const lengthAt = lengths.block(from, span);
    // In line order: a dense block by its marks, a sparse one by sorting the few it touched. The
    // first block is sorted however dense (the same order): the sort has run before V8 compiles the
    // walk on the stack, not first met in compiled code after the dense blocks a common term starts
    // with (a deopt and a recompile of the whole walk). The density is compared on every block.
    const sparse = n <= span >> 4;
    const sorted = blocks === 0 || sparse;
    blocks++;
    const order = sorted ? touched.subarray(0, n).sort() : undefined;
    // One loop bound and one mark test for both orders (a sorted line is always marked): a dense
    // block after sorted ones runs no compare the compiled walk has not seen (a common term's
    // dense blocks were a deopt and a second compile of the whole walk).
    const end = order ? n : span;
    for (let j = 0; j < end; j++) {
      const off = order ? order[j] : j;
      if (!seen[off]) continue;
      const at = off * width;
      const length = lengths.values[lengthAt + off];
      if (length < shortest) belowShortest = true;
      if (!skip?.has(from + off)) fn(from + off, tf, at, length);
      // A loop, not fill(): a few slots per line, and a typed array's fill is a call into V8's C++.
      for (let h = at; h < at + width; h++) tf[h] = 0;
      seen[off] = 0;
    }
  }
}

/** The line lengths a walk reads, a window at a time when its blocks follow each other, else a block at a time. */
class Lengths {
  readonly values: Uint32Array;
  private start = 0;
  private end = 0;

  constructor(
    private readonly view: IndexView | undefined,
    private readonly lines: number,
  ) {
    this.values = new Uint32Array(view ? Math.min(LENGTH_WINDOW, lines) : BLOCK_LINES);
  }

  /** Makes lines [from, from + span) readable; returns where line `from`'s length is in `values`. */
  block(from: number, span: number): number {
    if (!this.view) return 0;
    if (from < this.start || from + span > this.end) {
      const count = from < this.end + BLOCK_LINES ? Math.min(this.values.length, this.lines - from + 1) : span;
      this.view.lineValues('lengths', from, count, this.values);
      this.start = from;
      this.end = from + count;
    }
    return from - this.start;
  }
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
    const first = out.length;
    for (let i = lowerBound(view, prefix); i < view.asciiTokens; i++) {
      const token = view.token(i);
      if (!token.startsWith(prefix)) break;
      if (seen.has(i)) continue;
      seen.add(i);
      const hits = termsOf(token);
      if (hits.length) out.push({ token: i, hits });
    }
    if (out.length - first > 1) preload(view, out.slice(first).map((h) => h.token));
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

/** One read for the postings of a prefix's tokens (next to each other), unless others lie between in bulk. */
function preload(view: IndexView, tokens: number[]): void {
  if (!view.preload) return;
  const from = tokens[0];
  const to = tokens[tokens.length - 1] + 1;
  const size = (a: number, b: number) => view.postingOffset(b) - view.postingOffset(a);
  const wanted = tokens.reduce((n, t) => n + size(t, t + 1), 0);
  if (size(from, to) <= 2 * wanted + (64 << 10)) view.preload(from, to);
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
