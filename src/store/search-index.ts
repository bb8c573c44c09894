// The inverted index of a large searchable file, kept under <session>/state/search/ (0600, written
// atomically). It belongs to one version of the file, known by size, mtime and identity (device
// and inode); an append to the same file is indexed from the last line on, anything else rebuilds
// it. An index that does not decode (torn by hand, another version) is rebuilt; any failure here
// costs only speed: the caller scans the file instead.
import { closeSync, lstatSync, openSync, readFileSync, readSync, statSync, type Stats } from 'node:fs';
import { isAscii } from 'node:buffer';
import { createHash } from 'node:crypto';
import { atomicWrite } from './fsx.js';
import { addText, gather, CorruptIndex, decodeIndex, dropLastLine, emptyIndex, encodeIndex, indexData, type IndexData, type IndexMeta, type IndexView } from '../memory/search-index.js';
import { scanText, wordMatcher, type Candidate, type CandidatePool, type Query } from '../memory/search.js';

/** Files from this size on are searched through an index; smaller ones are quicker to scan. */
export const INDEX_MIN_BYTES = 256 * 1024;

/** What a file's text is before it is searched (front matter blanked, its pointer read). */
export type Prepare = (text: string) => { text: string; pointer?: string };

const hashOf = (bytes: Uint8Array) => createHash('sha1').update(bytes).digest('hex');

function decodeText(bytes: Buffer): { text: string; ascii: boolean } {
  const ascii = isAscii(bytes);
  return { text: bytes.toString(ascii ? 'latin1' : 'utf8'), ascii };
}

function fresh(view: IndexView, stat: Stats): boolean {
  const m = view.meta;
  return m.size === stat.size && m.mtimeMs === stat.mtimeMs && m.ino === stat.ino && m.dev === stat.dev;
}

/** The index file as stored, or undefined when missing, a link, or not an index. */
function readIndex(indexFile: string): IndexView | undefined {
  try {
    if (lstatSync(indexFile).isSymbolicLink()) return undefined;
    return decodeIndex(readFileSync(indexFile));
  } catch (err) {
    if (err instanceof CorruptIndex || (err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

export interface Ensured {
  view: IndexView;
  /** What it took: nothing, indexing the appended lines, or indexing the whole file. */
  action: 'fresh' | 'extended' | 'built';
}

/**
 * The index of `textFile` as it is now: the stored one when fresh, else extended (an append to
 * the same file) or rebuilt, and stored. `prepare` and `skipLine` must be the same for every
 * version of a file.
 */
export async function ensureIndex(textFile: string, indexFile: string, prepare?: Prepare, skipLine?: (line: string) => boolean): Promise<Ensured> {
  const stat = statSync(textFile);
  const stored = readIndex(indexFile);
  if (stored && fresh(stored, stat)) return { view: stored, action: 'fresh' };
  const bytes = readFileSync(textFile);
  const extended = stored && appendable(stored, stat, bytes) ? extend(stored, bytes, skipLine) : undefined;
  const data = extended ?? build(bytes, prepare, skipLine);
  const meta: IndexMeta = { size: bytes.length, mtimeMs: stat.mtimeMs, ino: stat.ino, dev: stat.dev, hash: hashOf(bytes), ...data.extra };
  const encoded = encodeIndex(data.index, meta);
  try {
    await atomicWrite(indexFile, encoded);
  } catch {
    /* a cache: the next search builds it again */
  }
  return { view: decodeIndex(encoded), action: extended ? 'extended' : 'built' };
}

/** Same file, grown, its old bytes unchanged, no front matter (which a later line could close). */
function appendable(stored: IndexView, stat: Stats, bytes: Buffer): boolean {
  const m = stored.meta;
  return m.ino === stat.ino && m.dev === stat.dev && bytes.length > m.size && !m.frontMatterLines && !m.pointer && !startsFrontMatter(bytes) && hashOf(bytes.subarray(0, m.size)) === m.hash;
}

const startsFrontMatter = (bytes: Buffer) => bytes.toString('latin1', 0, 4) === '---\n';

function extend(stored: IndexView, bytes: Buffer, skipLine?: (line: string) => boolean): { index: IndexData; extra: Partial<IndexMeta> } {
  const index = indexData(stored);
  let from = index.bytes;
  // An unfinished last line is continued by the append: index it again, whole.
  if (index.lines && (from === 0 || bytes[from - 1] !== 10)) {
    const lastStart = index.lineStarts[index.lines - 1];
    from = dropLastLine(index, decodeText(bytes.subarray(lastStart, from)).text.length);
  }
  const tail = bytes.subarray(from);
  const { text, ascii } = decodeText(tail);
  addText(index, bytes, from, text, ascii, skipLine);
  return { index, extra: {} };
}

function build(bytes: Buffer, prepare?: Prepare, skipLine?: (line: string) => boolean): { index: IndexData; extra: Partial<IndexMeta> } {
  const index = emptyIndex();
  const decoded = decodeText(bytes);
  const prepared = prepare ? prepare(decoded.text) : { text: decoded.text };
  addText(index, bytes, 0, prepared.text, decoded.ascii, skipLine);
  const frontMatterLines = prepared.text === decoded.text ? 0 : countFrontMatter(prepared.text);
  return { index, extra: { ...(prepared.pointer ? { pointer: prepared.pointer } : {}), ...(frontMatterLines ? { frontMatterLines } : {}) } };
}

function countFrontMatter(text: string): number {
  let n = 0;
  while (text[n] === '\n') n++;
  return n;
}

/** Reads lines (1-based) of an indexed file by their offsets. */
class LineReader {
  private fd: number | undefined;
  constructor(
    private readonly file: string,
    private readonly view: IndexView,
  ) {}

  private range(line: number): [number, number] {
    const starts = this.view.lineStarts;
    return [starts[line - 1], line < this.view.meta.lines ? starts[line] : this.view.meta.size];
  }

  private decode(bytes: Buffer): string {
    const text = bytes.toString(this.view.meta.ascii ? 'latin1' : 'utf8');
    return text.endsWith('\n') ? text.slice(0, -1) : text;
  }

  /** Many lines: one read of the whole file is quicker than a read each. */
  many(lines: number[]): string[] {
    if (lines.length <= 256) return lines.map((l) => this.one(l));
    const bytes = readFileSync(this.file);
    return lines.map((l) => this.decode(bytes.subarray(...this.range(l))));
  }

  one(line: number): string {
    const [from, to] = this.range(line);
    const buf = Buffer.alloc(to - from);
    this.fd ??= openSync(this.file, 'r');
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
  /** Closes the file the candidates' text is read from (read when first asked for). */
  close(): void;
}

/**
 * Candidates of a file through its index, the same a scan of the whole file gives: term counts
 * from the index; a candidate's text read only if the ranking asks for it (the best few hundred),
 * rescanned then for the part of a long line it shows. Lines with a non-ASCII word that may match
 * are read and rescanned at once.
 */
export function scanIndexed(textFile: string, view: IndexView, query: Query, source: number, out: Candidate[], pools: CandidatePool[], options: { plain?: boolean; skipLine?: (line: string) => boolean }): IndexedScan {
  const plain = Boolean(options.plain);
  const match = wordMatcher(query, plain);
  const gathered = gather(view, query, plain, match);
  const reader = new LineReader(textFile, view);
  if (gathered.rescan.length) {
    const rescanned: Candidate[] = [];
    scanText(reader.many(gathered.rescan).join('\n'), query, source, rescanned, { ...options, match });
    for (const c of rescanned) {
      c.line = gathered.rescan[c.line - 1];
      out.push(c);
    }
  }
  const width = query.terms.length;
  const scan = { query, source, match, plain };
  pools.push({
    source,
    lines: gathered.lines,
    tf: gathered.tf,
    row: gathered.row,
    length: (line) => view.lineLengths[line - 1],
    candidate: (line) => {
      const row = gathered.row(line);
      return new LazyCandidate(reader, scan, line, view.lineLengths[line - 1], gathered.tf.slice(row * width, row * width + width));
    },
  });
  return { lines: view.meta.lines, chars: view.meta.chars, close: () => reader.close() };
}

/** A candidate whose text is read (and windowed as scanText would) on first use. */
class LazyCandidate implements Candidate {
  private cached: string | undefined;
  constructor(
    private readonly reader: LineReader,
    private readonly scan: { query: Query; source: number; match: (word: string) => number[]; plain: boolean },
    readonly line: number,
    readonly length: number,
    readonly tf: Int32Array,
  ) {}

  get source(): number {
    return this.scan.source;
  }

  get text(): string {
    if (this.cached === undefined) {
      const raw = this.reader.one(this.line);
      const one: Candidate[] = [];
      scanText(raw, this.scan.query, this.scan.source, one, { plain: this.scan.plain, match: this.scan.match });
      this.cached = one[0]?.text ?? raw.replace(/\r$/, '').slice(0, 3000);
    }
    return this.cached;
  }
}
