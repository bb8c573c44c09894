// The inverted index of a large searchable file, kept under <session>/state/search/ (0600, written
// atomically). It belongs to one version of the file, known by size, mtime and identity (device
// and inode); an append to the same file is indexed from the last line on, anything else rebuilds
// it. An index that does not decode (torn by hand, another version) is rebuilt; any failure here
// costs only speed: the caller scans the file instead.
import { closeSync, fstatSync, lstatSync, openSync, readSync, writeSync, type Stats } from 'node:fs';
import { isAscii } from 'node:buffer';
import { atomicWriteWith, readRange } from './fsx.js';
import { addText, gather, CorruptIndex, decodeIndex, openIndex, dropLastLine, emptyIndex, indexData, planIndex, seal, type IndexPlan, type IndexData, type IndexMeta, type IndexView } from '../memory/search-index.js';
import { MAX_KEPT, scanText, wordMatcher, type Candidate, type CandidatePool, type Query } from '../memory/search.js';
import type { DayRun } from '../memory/search-shape.js';
import { READ_FLAGS, readRegularSync } from './regular-file.js';

/** Files from this size on are searched through an index; smaller ones are quicker to scan. */
export const INDEX_MIN_BYTES = 256 * 1024;

/** What a file's text is before it is searched (front matter blanked, its pointer read). */
export type Prepare = (text: string) => { text: string; pointer?: string };

function decodeText(bytes: Buffer): { text: string; ascii: boolean } {
  const ascii = isAscii(bytes);
  return { text: bytes.toString(ascii ? 'latin1' : 'utf8'), ascii };
}

function fresh(view: IndexView, stat: Stats): boolean {
  const m = view.meta;
  return m.size === stat.size && m.mtimeMs === stat.mtimeMs && m.ino === stat.ino && m.dev === stat.dev;
}

/** An index file open for reading by offset: its view, and the descriptor to close when done. */
export interface OpenIndex extends IndexView {
  close(): void;
}

/**
 * The index file as stored, or undefined when missing, a link, or not an index. It stays open
 * (a replacement written meanwhile is another file) and is read by offset: a search reads the
 * header, the token table and its terms' postings, not the whole index.
 */
function readIndex(indexFile: string): OpenIndex | undefined {
  let fd: number | undefined;
  try {
    if (lstatSync(indexFile).isSymbolicLink()) return undefined;
    fd = openSync(indexFile, READ_FLAGS);
    const file = fd;
    const view = openIndex(fstatSync(file).size, (at, length, into) => {
      // Not zeroed first: every byte is read into (a short read is cut off). A caller's own
      // buffer (a walk's block of line lengths) is read into again and again: no new memory.
      return readRange(file, (into ?? Buffer.allocUnsafeSlow(length)).subarray(0, length), at);
    });
    fd = undefined;
    let open = true;
    return Object.assign(view, {
      close: () => {
        if (open) closeSync(file);
        open = false;
      },
    });
  } catch (err) {
    if (err instanceof CorruptIndex || (err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** The whole index file decoded (to extend it: every posting is merged), or undefined. */
function loadIndex(indexFile: string): IndexView | undefined {
  try {
    if (lstatSync(indexFile).isSymbolicLink()) return undefined;
    return decodeIndex(readRegularSync(indexFile));
  } catch (err) {
    if (err instanceof CorruptIndex || (err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

export interface Ensured {
  /** The index (read from its file on first use); close it when done (scanIndexed's close does). */
  readonly view: IndexView & { close?(): void };
  /** What it took: nothing, indexing the appended lines, or indexing the whole file. */
  action: 'fresh' | 'extended' | 'built';
}

/** How much text is indexed at a time: the build's memory is bounded by this, not by the file. */
export const INDEX_CHUNK_BYTES = 256 << 10;

/**
 * The index of `textFile` as it is now: the stored one when fresh, else extended (an append to
 * the same file) or rebuilt, and stored. `prepare` and `skipLine` must be the same for every
 * version of a file. The file is read a chunk at a time (`chunkBytes`, whole lines).
 */
export async function ensureIndex(textFile: string, indexFile: string, prepare?: Prepare, skipLine?: (line: string) => boolean, chunkBytes = INDEX_CHUNK_BYTES): Promise<Ensured> {
  return (await ensureIndexUpTo(textFile, indexFile, Infinity, prepare, skipLine, chunkBytes))!;
}

/**
 * ensureIndex, except that a file of more than `buildMax` bytes with no index to extend gets
 * none (undefined): building one costs several scans of it, which a search that must answer
 * now leaves to a background run (see searchMemory).
 */
export async function ensureIndexUpTo(textFile: string, indexFile: string, buildMax: number, prepare?: Prepare, skipLine?: (line: string) => boolean, chunkBytes = INDEX_CHUNK_BYTES): Promise<Ensured | undefined> {
  const opened = readIndex(indexFile);
  let fd: number;
  try {
    fd = openSync(textFile, READ_FLAGS);
  } catch (err) {
    opened?.close();
    throw err;
  }
  let built: Built;
  try {
    const stat = fstatSync(fd);
    if (opened && fresh(opened, stat)) return { view: opened, action: 'fresh' };
    opened?.close();
    // Extending merges every posting: the whole index is read, once.
    const stored = opened && loadIndex(indexFile);
    const file = new ChunkedFile(fd, stat.size, chunkBytes);
    const extended = stored && extend(file, stored, stat, skipLine);
    if (!extended && stat.size > buildMax) return undefined;
    built = extended || build(file, stat, prepare, skipLine);
  } finally {
    closeSync(fd);
  }
  const { data, extra, hash, stat, extended } = built;
  const meta: IndexMeta = { size: stat.size, mtimeMs: stat.mtimeMs, ino: stat.ino, dev: stat.dev, hash, ...extra };
  return store(indexFile, planIndex(data, meta), extended ? 'extended' : 'built');
}

/**
 * Writes a planned index where it belongs, section by section: never whole in memory. It is read
 * back only when asked for (a build after a compaction never is, so its runs are gone by then);
 * when it cannot be written, or read back, it is encoded in memory.
 */
async function store(indexFile: string, plan: IndexPlan, action: Ensured['action']): Promise<Ensured> {
  const inMemory = () => {
    const encoded = Buffer.alloc(plan.size);
    plan.write((bytes, at) => encoded.set(bytes, at));
    return decodeIndex(encoded);
  };
  try {
    await atomicWriteWith(indexFile, (fd) =>
      plan.write((bytes, at) => {
        for (let done = 0; done < bytes.length; ) done += writeSync(fd, bytes, done, bytes.length - done, at + done);
      }),
    );
  } catch {
    return { view: inMemory(), action }; // a cache: the next search builds it again
  }
  let view: (IndexView & { close?(): void }) | undefined;
  return {
    action,
    get view() {
      if (view) return view;
      try {
        view = readIndex(indexFile);
      } catch {
        /* unreadable just after it was written: from memory instead */
      }
      return (view ??= inMemory());
    },
  };
}

/** A file read in chunks of whole lines, hashed as it is read (every byte once, in order). */
class ChunkedFile {
  // node:crypto loaded when an index is built or extended, not by a search that reads one.
  private hash = process.getBuiltinModule('node:crypto').createHash('sha1');
  private hashed = 0;

  constructor(
    readonly fd: number,
    readonly size: number,
    private readonly chunkBytes: number,
  ) {}

  /** One buffer for every read (grown for a line longer than a chunk): no allocation per chunk. */
  private buffer = Buffer.alloc(0);

  /** Bytes [from, to), valid until the next read. */
  read(from: number, to: number): Buffer {
    if (this.buffer.length < to - from) this.buffer = Buffer.allocUnsafe(Math.max(to - from, this.chunkBytes));
    return readRange(this.fd, this.buffer.subarray(0, to - from), from);
  }

  /** Hashes bytes [0, to) not yet hashed; returns the digest of what is hashed so far. */
  hashTo(to: number): string {
    for (let at = this.hashed; at < to; at += this.chunkBytes) this.hash.update(this.read(at, Math.min(to, at + this.chunkBytes)));
    this.hashed = Math.max(this.hashed, to);
    return this.hash.copy().digest('hex');
  }

  /** Chunks of whole lines from `from` to the end (the first at least `firstAtLeast` bytes), hashed as read. */
  *chunks(from: number, firstAtLeast = 0): Generator<{ start: number; bytes: Buffer }> {
    let start = from;
    while (start < this.size) {
      let end = Math.min(this.size, start + Math.max(this.chunkBytes, firstAtLeast));
      firstAtLeast = 0;
      let bytes = this.read(start, end);
      // Cut after the last newline; a line longer than a chunk makes the chunk longer.
      for (;;) {
        const nl = bytes.lastIndexOf(10);
        if (end >= this.size || bytes.length < end - start) break;
        if (nl >= 0) {
          bytes = bytes.subarray(0, nl + 1);
          break;
        }
        end = Math.min(this.size, end + this.chunkBytes);
        bytes = this.read(start, end);
      }
      if (!bytes.length) break;
      if (start + bytes.length > this.hashed) {
        this.hash.update(bytes.subarray(Math.max(0, this.hashed - start)));
        this.hashed = start + bytes.length;
      }
      yield { start, bytes };
      start += bytes.length;
    }
  }

  /** Where `pattern` first starts at or after `from`, reading a chunk at a time; -1 when nowhere. */
  find(pattern: string, from: number): number {
    const needle = Buffer.from(pattern, 'latin1');
    for (let at = from; at < this.size; at += this.chunkBytes) {
      const bytes = this.read(at, Math.min(this.size, at + this.chunkBytes + needle.length - 1));
      const i = bytes.indexOf(needle);
      if (i >= 0) return at + i;
    }
    return -1;
  }
}

type Built = { data: IndexData; extra: Partial<IndexMeta>; hash: string; stat: Stats; extended: boolean };

/** Indexes each chunk of `file` from `from` into `data`, sealing each (the memory stays one chunk's). */
function indexChunks(data: IndexData, file: ChunkedFile, from: number, skipLine?: (line: string) => boolean, prepareChunk?: (text: string) => string, firstAtLeast = 0): void {
  for (const { start, bytes } of file.chunks(from, firstAtLeast)) {
    const decoded = decodeText(bytes);
    const text = prepareChunk ? prepareChunk(decoded.text) : decoded.text;
    addText(data, bytes, start, text, decoded.ascii, skipLine);
    seal(data);
  }
}

/**
 * The stored index extended with the appended bytes, or undefined when the file is not the same
 * one grown with its old bytes unchanged, or has front matter (which a later line could close).
 */
function extend(file: ChunkedFile, stored: IndexView, stat: Stats, skipLine?: (line: string) => boolean): Built | undefined {
  const m = stored.meta;
  if (m.ino !== stat.ino || m.dev !== stat.dev || stat.size <= m.size || m.frontMatterLines || m.pointer) return undefined;
  if (startsFrontMatter(file.read(0, 4)) || file.hashTo(m.size) !== m.hash) return undefined;
  const data = indexData(stored);
  let from = data.bytes;
  // An unfinished last line is continued by the append: index it again, whole.
  if (data.lines && (from === 0 || file.read(from - 1, from)[0] !== 10)) {
    const lastStart = data.lineStarts.at(data.lines - 1);
    from = dropLastLine(data, decodeText(file.read(lastStart, from)).text.length);
  }
  indexChunks(data, file, from, skipLine);
  return { data, extra: {}, hash: file.hashTo(file.size), stat, extended: true };
}

const startsFrontMatter = (bytes: Buffer) => bytes.toString('latin1', 0, 4) === '---\n';

function build(file: ChunkedFile, stat: Stats, prepare?: Prepare, skipLine?: (line: string) => boolean): Built {
  const data = emptyIndex();
  let extra: Partial<IndexMeta> = {};
  // Front matter is read whole by `prepare`: the first chunk reaches past its closing line.
  const close = prepare && startsFrontMatter(file.read(0, 4)) ? file.find('\n---\n', 4) : -1;
  // Blank lines right after it count as front matter lines too, even in the chunks after.
  let first = true;
  let counting = false;
  const prepareChunk = prepare
    ? (text: string) => {
        if (!first) {
          if (counting) extra.frontMatterLines! += countFrontMatter(text);
          counting &&= countFrontMatter(text) === text.length;
          return text;
        }
        first = false;
        const prepared = prepare(text);
        const frontMatterLines = prepared.text === text ? 0 : countFrontMatter(prepared.text);
        extra = { ...(prepared.pointer ? { pointer: prepared.pointer } : {}), ...(frontMatterLines ? { frontMatterLines } : {}) };
        counting = frontMatterLines > 0 && frontMatterLines === prepared.text.length;
        return prepared.text;
      }
    : undefined;
  indexChunks(data, file, 0, skipLine, prepareChunk, close < 0 ? 0 : close + 5);
  return { data, extra, hash: file.hashTo(file.size), stat, extended: false };
}

function countFrontMatter(text: string): number {
  let n = 0;
  while (text[n] === '\n') n++;
  return n;
}

/** Prefetch: from how many lines on, bytes between two lines read through rather than a read apart, and a read's most bytes. */
const PREFETCH_MIN = 16;
const PREFETCH_GAP = 16 << 10;
const PREFETCH_BLOCK = 1 << 20;
/** Lines whose starts prefetch reads at once: nearby shortlisted lines share a read. */
const PREFETCH_STARTS = 4096;

/** Reads lines (1-based) of an indexed file by their offsets. */
class LineReader {
  private fd: number | undefined;
  /** A span of the index proved wrong while lines were read (the search then runs again, scanning). */
  damaged = false;
  /** Lines read ahead by prefetch. */
  private readonly cache = new Map<number, string>();
  constructor(
    private readonly file: string,
    private readonly view: IndexView,
  ) {}

  private range(line: number): [number, number] {
    const [from, to] = this.view.lineSpan(line);
    // Spans out of order are a damaged index: a clear CorruptIndex, not a RangeError from alloc.
    if (!(from >= 0 && from <= to)) throw new CorruptIndex('line spans out of order');
    return [from, to];
  }

  private decode(bytes: Buffer): string {
    const text = bytes.toString(this.view.meta.ascii ? 'latin1' : 'utf8');
    return text.endsWith('\n') ? text.slice(0, -1) : text;
  }

  /** Many lines: one read of the whole file is quicker than a read each. */
  many(lines: number[]): string[] {
    if (lines.length <= 256) return lines.map((l) => this.one(l));
    // Every line start in one read too (lineSpan then reads from it), rather than a read per span.
    void this.view.lineStarts;
    const bytes = readRegularSync(this.file);
    return lines.map((l) => this.decode(bytes.subarray(...this.range(l))));
  }

  /**
   * Reads the lines a search is about to ask for (its shortlist and their neighbours) in a few
   * reads of the spans they lie in, instead of two reads each (its span, its bytes): most of a
   * later search's system time. A span found wrong stops it (one() then reads and reports it).
   */
  prefetch(lines: readonly number[]): void {
    const wanted = [...new Set(lines)].filter((l) => l >= 1 && l <= this.view.meta.lines && !this.cache.has(l)).sort((a, b) => a - b);
    if (wanted.length < PREFETCH_MIN) return;
    try {
      const span = this.spans(wanted);
      const range = (k: number) => {
        const from = span[2 * k];
        const to = span[2 * k + 1];
        if (!(from >= 0 && from <= to)) throw new CorruptIndex('line spans out of order');
        return [from, to];
      };
      // One buffer for every block (its strings are copies): no new memory per block.
      let block = Buffer.alloc(0);
      for (let i = 0; i < wanted.length; ) {
        const [from] = range(i);
        let to = range(i)[1];
        let j = i;
        for (; j + 1 < wanted.length; j++) {
          const [nextFrom, nextTo] = range(j + 1);
          // Line starts that run backwards are a damaged index: one() reads and reports it.
          if (nextFrom < to) return;
          if (nextFrom - to > PREFETCH_GAP || nextTo - from > PREFETCH_BLOCK) break;
          to = nextTo;
        }
        if (block.length < to - from) block = Buffer.allocUnsafe(Math.max(to - from, 2 * block.length));
        this.fd ??= openSync(this.file, READ_FLAGS);
        if (readSync(this.fd, block, 0, to - from, from) !== to - from) return;
        for (let k = i; k <= j; k++) {
          const [a, b] = range(k);
          this.cache.set(wanted[k], this.decode(block.subarray(a - from, b - from)));
        }
        i = j + 1;
      }
    } catch (err) {
      if (!(err instanceof CorruptIndex)) throw err;
    }
  }

  /**
   * The byte spans of `lines` (ascending), [from, to) pairs: the starts of each run of nearby
   * lines in one read, not the whole section (3 MB for 750,000 lines) nor a read per line.
   */
  private spans(lines: number[]): Float64Array {
    const out = new Float64Array(2 * lines.length);
    const total = this.view.meta.lines;
    const starts = new Uint32Array(PREFETCH_STARTS + 1);
    for (let i = 0; i < lines.length; ) {
      const first = lines[i];
      let j = i;
      while (j + 1 < lines.length && lines[j + 1] - first < PREFETCH_STARTS) j++;
      const count = Math.min(lines[j] - first + 2, total - first + 1);
      this.view.lineValues('starts', first, count, starts);
      for (let k = i; k <= j; k++) {
        const at = lines[k] - first;
        out[2 * k] = starts[at];
        out[2 * k + 1] = at + 1 < count ? starts[at + 1] : this.view.meta.size;
      }
      i = j + 1;
    }
    return out;
  }

  one(line: number): string {
    const cached = this.cache.get(line);
    if (cached !== undefined) return cached;
    const [from, to] = this.range(line);
    const buf = Buffer.alloc(to - from);
    this.fd ??= openSync(this.file, READ_FLAGS);
    readSync(this.fd, buf, 0, buf.length, from);
    return this.decode(buf);
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}

export interface IndexedScan {
  lines: number;
  chars: number;
  /** A line of the text (1-based), read now: the neighbours and context of a hit. */
  line(n: number): string;
  /** Closes the file the candidates' text is read from (read when first asked for). */
  close(): void;
  /** Whether a line span of the index proved wrong as lines were read (its hits are unreliable). */
  damaged(): boolean;
}

/** How an indexed file is scanned: the scan's own options (scanText's), and for archived messages the day runs, whose sums the count pass adds up. */
export interface IndexedScanOptions {
  plain?: boolean;
  skipLine?: (line: string) => boolean;
  match?: (word: string) => number[];
  weigh?: (postingBytes: number) => void;
  days?: readonly DayRun[];
}

/**
 * Candidates of a file through its index, the same a scan of the whole file gives: term counts
 * from the index; a candidate's text read only if the ranking asks for it (the best few hundred),
 * rescanned then for the part of a long line it shows. Lines with a non-ASCII word that may match
 * are read and rescanned at once.
 */
export function scanIndexed(textFile: string, view: IndexView & { close?(): void }, query: Query, source: number, out: Candidate[], pools: CandidatePool[], options: IndexedScanOptions): IndexedScan {
  const reader = new LineReader(textFile, view);
  try {
    return scanThrough(reader, view, query, source, out, pools, options);
  } catch (err) {
    // Both descriptors, the text's too: a long-running MCP server must not leak one per failure.
    reader.close();
    view.close?.();
    throw err;
  }
}

function scanThrough(reader: LineReader, view: IndexView & { close?(): void }, query: Query, source: number, out: Candidate[], pools: CandidatePool[], options: IndexedScanOptions): IndexedScan {
  const plain = Boolean(options.plain);
  const match = options.match ?? wordMatcher(query, plain);
  const gathered = gather(view, query, plain, match, options.weigh, options.days);
  if (gathered.rescan.length) {
    const rescanned: Candidate[] = [];
    scanText(reader.many(gathered.rescan).join('\n'), query, source, rescanned, { ...options, match });
    for (const c of rescanned) {
      c.line = gathered.rescan[c.line - 1];
      out.push(c);
    }
  }
  const scan = { query, source, match, plain, view };
  pools.push({
    source,
    df: gathered.df,
    maxTf: gathered.maxTf,
    shortest: gathered.shortest,
    forEach: gathered.forEach,
    forEachDay: gathered.forEachDay,
    // A shortlisted line's text, and its neighbours (its context; the lines after it in a conversation).
    prefetch: (lines) => reader.prefetch(lines),
    candidate: (line, tf) => new LazyCandidate(reader, scan, line, tf),
  });
  const close = () => {
    reader.close();
    view.close?.();
  };
  return { lines: view.meta.lines, chars: view.meta.chars, line: (n) => readOrBlank(reader, n).replace(/\r$/, ''), close, damaged: () => reader.damaged || gathered.damaged };
}

/**
 * A line read after the index was checked: a span the damaged index gets wrong reads as a blank
 * line and marks the reader damaged (the search drops the index and runs again, scanning), rather
 * than failing the whole search with a stack trace.
 */
function readOrBlank(reader: LineReader, line: number): string {
  try {
    return reader.one(line);
  } catch (err) {
    if (!(err instanceof CorruptIndex)) throw err;
    reader.damaged = true;
    return '';
  }
}

/**
 * A candidate whose text is read (and windowed as scanText would) on first use, and its length
 * too: the ranking had it from the walk, and a read of four bytes for each of the shortlist's
 * 1,200 lines (a system call each) was a read nothing used.
 */
class LazyCandidate implements Candidate {
  private cached: string | undefined;
  private chars: number | undefined;
  constructor(
    private readonly reader: LineReader,
    private readonly scan: { query: Query; source: number; match: (word: string) => number[]; plain: boolean; view: IndexView },
    readonly line: number,
    readonly tf: Int32Array,
  ) {}

  get source(): number {
    return this.scan.source;
  }

  get length(): number {
    if (this.chars === undefined) {
      const one = new Uint32Array(1);
      this.scan.view.lineValues('lengths', this.line, 1, one);
      this.chars = one[0];
    }
    return this.chars;
  }

  get text(): string {
    if (this.cached === undefined) {
      const raw = readOrBlank(this.reader, this.line).replace(/\r$/, '');
      // A line scanText keeps whole is the line: only a longer one is rescanned for its window.
      if (raw.length <= MAX_KEPT) return (this.cached = raw);
      const one: Candidate[] = [];
      scanText(raw, this.scan.query, this.scan.source, one, { plain: this.scan.plain, match: this.scan.match });
      this.cached = one[0]?.text ?? raw.slice(0, MAX_KEPT);
    }
    return this.cached;
  }
}
