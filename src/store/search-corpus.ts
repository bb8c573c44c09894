// What `wmem search` reads: a session's overview, scratch, detail/ and archive/ files and the
// project's workspace memory. Archived messages (JSON lines) are searched through a text sidecar
// under <session>/state/search/ — one line of extracted text per archived line, so line numbers
// match — rebuilt only when the archive's size or mtime changed (archives are written once).
import { closeSync, existsSync, openSync, readdirSync, readFileSync, readSync, rmSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { DAY, TIMESTAMP_KEY, decodeText } from './archive-bytes.js';
import path from 'node:path';
import { nameHash } from '../memory/hash.js';
import { atomicWrite, atomicWriteWith, createExclusive, listInside, lockHeldByLiveProcess, processAlive, staysInside } from './fsx.js';
import { ensureIndexUpTo, INDEX_MIN_BYTES, scanIndexed, type Ensured, type IndexedScan, type IndexedScanOptions } from './search-index.js';
import { CorruptIndex, type IndexView } from '../memory/search-index.js';
import { COMPACTION_JOURNAL, sessionPaths, type SessionPaths } from './paths.js';
import { workspaceFilePath } from './workspace.js';
import { workspaceSearchText, type WorkspaceSearchText } from './search-workspace.js';
import { boundedQuery, parseQuery, pointerKeywords, rank, scanText, snippet, wordMatcher, type Candidate, type CandidatePool, type Query, type Scored, type SourceInfo } from '../memory/search.js';
import { dateOfLine, queryDates, querySpeakers, reshape, type DayRun, type ShapeSource } from '../memory/search-shape.js';
import { irregularForms, oneSpaced } from '../memory/text.js';
import { rawNeedles, scanRawMessages } from './search-raw.js';
import { READ_FLAGS, readRegularSync } from './regular-file.js';

export type SourceKind = 'overview' | 'scratch' | 'detail' | 'archive' | 'messages' | 'workspace' | 'team';

const KIND_BOOST: Record<SourceKind, number> = { overview: 1.3, workspace: 1.3, team: 1.3, scratch: 1.2, detail: 1, archive: 0.9, messages: 0.8 };

interface Source {
  kind: SourceKind;
  session?: string;
  /** The file as shown: relative to the session folder (or the project folder). */
  file: string;
  path: string;
  mtimeMs: number;
  /** Bytes when listed (an archive's messages file: its own size, not its text's). */
  size: number;
}

export interface SearchHit {
  session?: string;
  kind: SourceKind;
  file: string;
  path: string;
  line: number;
  snippet: string;
  score: number;
  /** The same text elsewhere (a consolidated note's archive copy, say). */
  alsoIn?: { file: string; line: number }[];
  /** For a pointer line: the lines it replaced. */
  resolved?: { file: string; line: number; snippet: string }[];
  /** For an archived message: the day it was written (UTC, from its timestamp). */
  date?: string;
  /** The lines around the hit, each cut to CONTEXT_CHARS: enough to answer from without opening the file. */
  context?: { line: number; text: string }[];
}

/** How many lines before and after a hit its context holds (archived messages: the turn around it), and their width. */
const CONTEXT_BEFORE = 1;
const CONTEXT_AFTER = 1;
const CONTEXT_CHARS = 300;

export interface SearchOptions {
  limit: number;
  /** Plain BM25 (no stemming, expansions or boosts): the bench's baseline. */
  plain?: boolean;
  /** Scan every file, never an index (the bench and the tests compare the two). */
  noIndex?: boolean;
  /**
   * Search every archived messages file on its raw bytes (search-raw.ts), as the first search
   * after a compaction does, estimating its average line length from this share of the lines
   * that hold no query word: how the recall bench measures that search's ranking.
   */
  rawMessages?: { sampleShare: number };
  /**
   * Called once when the search is about to decode more than HEAVY_LINES postings of indexes (at
   * least two bytes each: told by their bytes, before the first is decoded), or the ranking to
   * walk more than HEAVY_LINES candidate lines (the search entry turns V8's inlining off then; a
   * light search never pays for it).
   */
  heavy?: () => void;
}

/** Candidate lines or postings of indexes (summed over the query's terms) from which a search counts as heavy. */
const HEAVY_LINES = 20_000;

/** options.heavy, called once: when the postings to decode (by their bytes) or the lines to walk pass HEAVY_LINES. */
function heaviness(heavy: (() => void) | undefined): { weigh(postingBytes: number): void; lines(n: number): void } {
  let bytes = 0;
  let told = !heavy;
  const tell = () => {
    told = true;
    heavy!();
  };
  return {
    weigh(postingBytes) {
      bytes += postingBytes;
      if (!told && bytes / 2 > HEAVY_LINES) tell();
    },
    lines(n) {
      if (!told && n > HEAVY_LINES) tell();
    },
  };
}

function statOf(file: string): { mtimeMs: number; size: number } | undefined {
  try {
    return statSync(file);
  } catch {
    return undefined;
  }
}

function sessionSources(id: string, paths: SessionPaths): Source[] {
  const out: Source[] = [];
  const add = (kind: SourceKind, abs: string, plain = false) => {
    // A link planted in detail/ or archive/ that leads out of the session is never read.
    if (!plain && !staysInside(paths.dir, abs)) return;
    const st = statOf(abs);
    if (st) out.push({ kind, session: id, file: path.relative(paths.dir, abs), path: abs, mtimeMs: st.mtimeMs, size: st.size });
  };
  add('overview', paths.overview);
  add('scratch', paths.scratch);
  for (const { name, plain } of listInside(paths.dir, paths.detailDir)) if (name.endsWith('.md')) add('detail', path.join(paths.detailDir, name), plain);
  for (const { name, plain } of listInside(paths.dir, paths.archiveDir)) {
    if (name.endsWith('.jsonl')) add('messages', path.join(paths.archiveDir, name), plain);
    else if (name.endsWith('.md')) add('archive', path.join(paths.archiveDir, name), plain);
  }
  return out;
}

type History = typeof import('../history/model/lines.js') & typeof import('../history/model/messages.js');

async function loadHistory(): Promise<History> {
  return { ...(await import('../history/model/lines.js')), ...(await import('../history/model/messages.js')) };
}

/** One line of searchable text for an archived JSON line: role and what the model saw. */
function extractLine(line: string, history: History): string {
  const info = history.classifyLine(line);
  if (info.kind === 'message') {
    const parts = history.messageParts(info);
    const text = parts.length
      ? parts.map((p) => (p.kind === 'tool_use' ? `${p.name ?? 'tool'} ${p.text}` : p.kind === 'image' ? '' : p.text)).join(' ')
      : history.messageText(info);
    return oneSpaced(`${info.role}: ${text}`);
  }
  const value = info.value as Record<string, unknown> | undefined;
  if (value && typeof value === 'object' && typeof value.summary === 'string') return `summary: ${value.summary}`.replace(/\s+/g, ' ');
  return '';
}

/** A file's text (archives and their readable copies run to tens of megabytes: decodeText). */
function readText(file: string): string {
  return decodeText(readRegularSync(file));
}

/**
 * Day runs as lines are read: a new run when a line's date differs from the last one's. Found with
 * indexOf, not a regular expression over the line: this runs on every archived line while the
 * compaction's finishing builds the search text, where memory is counted.
 */
function dayRecorder(): { see(raw: string, line: number): void; days: DayRun[] } {
  const days: DayRun[] = [];
  let last = '';
  return {
    days,
    see(raw, line) {
      const at = raw.indexOf(TIMESTAMP_KEY);
      if (at === -1) return;
      const start = at + TIMESTAMP_KEY.length;
      if (raw.charCodeAt(start + 10) !== 84 /* T */ || (last && raw.startsWith(last, start))) return;
      const date = raw.slice(start, start + 10);
      if (!DAY.test(raw.slice(start, start + 11))) return;
      last = date;
      days.push([line, date]);
    },
  };
}

/** `unwritten`: made in memory for want of a fresh sidecar, which an indexing run is left to write. */
type MessagesText = ({ file: string } | { text: string; unwritten?: boolean }) & { days: DayRun[] };

/**
 * The sidecar text file of an archived messages file, built when missing or stale; when it cannot
 * be written, the text itself. With it, the day each run of lines was written on. Built
 * synchronously, a MiB at a time each way: the first search after a compaction may be the one
 * that needs it, and per-line promises cost as much as the JSON parsing. A search (`searching`) of an
 * archive larger than SEARCH_BUILD_MAX gets the text made in memory, unwritten (it would not
 * index it either); the finishing, whose memory is counted, writes it a batch at a time.
 */
async function messagesText(paths: SessionPaths, source: Source, searching = false): Promise<MessagesText> {
  const dir = path.join(paths.stateDir, 'search');
  const base = path.basename(source.path);
  const textFile = path.join(dir, `${base}.txt`);
  const metaFile = path.join(dir, `${base}.json`);
  const fresh = sidecarFresh(paths, source);
  if (fresh) return { file: textFile, days: fresh.days ?? [] };
  const stat = statSync(source.path);
  const history = await loadHistory();
  let recorder = dayRecorder();
  let lines = 0;
  const extract = (write: (text: string) => void) => {
    recorder = dayRecorder();
    lines = 0;
    for (const line of linesOfSync(source.path)) {
      recorder.see(line, ++lines);
      write(extractLine(line, history) + '\n');
    }
    if (!lines) write('\n'); // as an empty join ended
  };
  // A search makes the text in memory and leaves writing it to the indexing run it starts (the
  // compaction's finishing is most often writing it already): the write, its UTF-8 encoding and
  // its fsync were a tenth of the first search after a compaction.
  if (searching && source.size > SEARCH_BUILD_MAX) return inMemory();
  // Written a batch at a time: a long archive's text is never all in memory. A cache: a failed
  // write costs time on the next search, nothing else (the text is then made in memory).
  try {
    await atomicWriteWith(textFile, (fd) => {
      let batch: string[] = [];
      let size = 0;
      const flush = () => {
        writeAll(fd, Buffer.from(batch.join(''), 'utf8'));
        batch = [];
        size = 0;
      };
      extract((text) => {
        batch.push(text);
        if ((size += text.length) >= 1 << 20) flush();
      });
      flush();
    });
    await atomicWrite(metaFile, JSON.stringify({ version: SIDECAR_VERSION, size: stat.size, mtimeMs: stat.mtimeMs, lines, days: recorder.days }));
    return { file: textFile, days: recorder.days };
  } catch {
    return inMemory();
  }
  function inMemory(): MessagesText {
    const pieces: string[] = [];
    extract((text) => pieces.push(text));
    return { text: pieces.join(''), days: recorder.days, unwritten: true };
  }
}

function writeAll(fd: number, bytes: Buffer): void {
  for (let at = 0; at < bytes.length; ) at += writeSync(fd, bytes, at, bytes.length - at);
}

/**
 * The lines of a file as readline gives them (\n, \r\n or \r ends a line), read synchronously a
 * chunk at a time: only a chunk and its lines are in memory. Each chunk is cut after its last
 * line end and decoded whole (a line end is never inside a UTF-8 sequence): as Latin-1 when it
 * is ASCII (the same characters, several times faster), split on \n alone when it has no \r.
 */
export function* linesOfSync(file: string, chunkBytes = 1 << 20): Generator<string> {
  const fd = openSync(file, READ_FLAGS);
  try {
    // What follows the last line end is moved to the front, and the next read goes after it.
    let buffer = Buffer.allocUnsafe(chunkBytes);
    let carried = 0;
    for (;;) {
      if (buffer.length - carried < chunkBytes) buffer = Buffer.concat([buffer.subarray(0, carried)], carried + chunkBytes);
      const n = readSync(fd, buffer, carried, chunkBytes, null);
      if (!n) break;
      const data = buffer.subarray(0, carried + n);
      // A \r as the last byte may be the first half of \r\n: it waits for the next chunk.
      const cut = Math.max(data.lastIndexOf(10), data.length > 1 ? data.lastIndexOf(13, data.length - 2) : -1);
      carried = data.length - cut - 1;
      if (cut === -1) continue;
      const parts = splitLines(data.subarray(0, cut + 1));
      parts.pop(); // the empty rest after the last line end
      yield* parts;
      buffer.copy(buffer, 0, cut + 1, data.length);
    }
    if (carried) {
      const rest = decodeText(buffer.subarray(0, carried));
      if (rest.endsWith('\r')) yield rest.slice(0, -1);
      else yield rest;
    }
  } finally {
    closeSync(fd);
  }
}

function splitLines(bytes: Buffer): string[] {
  const text = decodeText(bytes);
  return bytes.indexOf(13) === -1 ? text.split('\n') : text.split(/\r\n|\r|\n/);
}

/** linesOfSync as an async iterable (the property test compares it with readline). */
export async function* linesOf(file: string, chunkBytes = 1 << 16): AsyncGenerator<string> {
  yield* linesOfSync(file, chunkBytes);
}

/** Where the index of a searched file is kept: beside an archive's sidecar, or by the file's name. */
function indexFileOf(paths: SessionPaths, source: Source): string {
  const dir = path.join(paths.stateDir, 'search');
  if (source.kind === 'messages') return path.join(dir, `${path.basename(source.path)}.idx`);
  return path.join(dir, `md-${nameHash(source.file)}.idx`);
}

/**
 * A search builds a missing index itself only for a text up to this size (a few scans' worth of
 * work); a larger one (an archive just compacted, whose finishing is still indexing it) is
 * scanned, and its index left to a background run: never slower than a plain scan.
 */
export const SEARCH_BUILD_MAX = 1 << 20;

/**
 * The index of a source's text when the text is large enough to be worth one (built or brought
 * up to date); 'later' when it is worth one but larger than `buildMax` with none to extend.
 */
async function indexOf(paths: SessionPaths, source: Source, textFile: string, buildMax = Infinity): Promise<Ensured | 'later' | undefined> {
  // A small file is scanned: no index, and no system call spent on finding one.
  if (source.kind !== 'messages' && source.size < INDEX_MIN_BYTES) return undefined;
  const indexFile = indexFileOf(paths, source);
  if (!staysInside(paths.dir, indexFile)) return undefined;
  try {
    if (statSync(textFile).size < INDEX_MIN_BYTES) return undefined;
    const prepare = source.kind === 'messages' ? undefined : blankFrontMatter;
    return (await ensureIndexUpTo(textFile, indexFile, buildMax, prepare, source.kind === 'messages' ? undefined : isComment)) ?? 'later';
  } catch {
    return undefined; // scanned instead
  }
}

/**
 * Brings the search text and indexes of a session up to date (only what is missing or stale is
 * built): run when a compaction finishes, so the first search after it reads ready indexes
 * instead of scanning a large archive. Returns how many files were indexed or checked.
 */
export async function indexSession(id: string, paths: SessionPaths): Promise<number> {
  // One run at a time: a search that scanned for want of an index starts one, and so does a
  // compaction's finishing; a second would only build the same files again beside the first.
  const marker = indexingMarker(paths);
  if (!(await claimMarker(marker))) return 0;
  try {
    const sources = sessionSources(id, paths);
    dropStaleSidecars(paths, sources);
    let indexed = 0;
    for (const source of sources) {
      const text = source.kind === 'messages' ? await messagesText(paths, source) : { file: source.path };
      // Built and written; not read back (nobody searches here). One found fresh is open: closed.
      const index = 'file' in text ? await indexOf(paths, source, text.file) : undefined;
      if (index && index !== 'later' && index.action === 'fresh') index.view.close?.();
      if (index) indexed++;
    }
    return indexed;
  } finally {
    try {
      if (readRegularSync(marker, 'utf8') === String(process.pid)) unlinkSync(marker);
    } catch {
      /* gone already */
    }
  }
}

/**
 * Whether a run that will index the session is under way: the indexing marker held by a live
 * process, or a compaction's finishing (its journal on disk, the session's lock held: the
 * finishing indexes once it has done the rest). A search then starts no run of its own, which
 * would only wait for the lock and find the marker taken (a process's start on the core the
 * finishing runs on). A wrong "no" costs that start; a wrong "yes" leaves it to the next search.
 */
function indexingUnderWay(paths: SessionPaths): boolean {
  if (livePidIn(indexingMarker(paths)) === true) return true;
  return existsSync(path.join(paths.stateDir, COMPACTION_JOURNAL)) && lockHeldByLiveProcess(paths.dir);
}

/** The marker of the session's indexing run: the pid of its holder. */
function indexingMarker(paths: SessionPaths): string {
  return path.join(paths.stateDir, 'search', '.indexing');
}

/** Whether the pid in `file` is a live process's; undefined when the file cannot be read. */
function livePidIn(file: string): boolean | undefined {
  let holder: number;
  try {
    holder = Number(readRegularSync(file, 'utf8'));
  } catch {
    return undefined;
  }
  return Number.isInteger(holder) && holder > 0 && processAlive(holder);
}

/** Takes the indexing marker (the pid of its holder), over one whose process is gone. */
async function claimMarker(marker: string): Promise<boolean> {
  for (let attempt = 0; attempt < 2; attempt++) {
    if (await createExclusive(marker, String(process.pid))) return true;
    const held = livePidIn(marker);
    if (held === undefined) continue; // released meanwhile
    if (held) return false;
    try {
      unlinkSync(marker);
    } catch {
      /* another run took it over first */
    }
  }
  return false;
}

/** 3: the meta file records the day runs of the archive's lines. */
const SIDECAR_VERSION = 3;

function sidecarFresh(paths: SessionPaths, source: Source): { days?: DayRun[] } | undefined {
  const meta = path.join(paths.stateDir, 'search', `${path.basename(source.path)}.json`);
  try {
    const recorded = JSON.parse(readRegularSync(meta, 'utf8')) as { size: number; mtimeMs: number; version: number; days?: unknown };
    const stat = statSync(source.path);
    if (recorded.version !== SIDECAR_VERSION || recorded.size !== stat.size || recorded.mtimeMs !== stat.mtimeMs) return undefined;
    return { days: validDays(recorded.days) };
  } catch {
    return undefined;
  }
}

/** Day runs as recorded, or none when the file was edited into something else. */
function validDays(days: unknown): DayRun[] | undefined {
  if (!Array.isArray(days)) return undefined;
  const ok = days.every((d, i) => Array.isArray(d) && Number.isInteger(d[0]) && d[0] > (i ? days[i - 1][0] : 0) && typeof d[1] === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(d[1]));
  return ok ? (days as DayRun[]) : undefined;
}

/** Removes the search text and indexes of files that are gone (restored, removed by hand). Best effort. */
function dropStaleSidecars(paths: SessionPaths, sources: Source[]): void {
  const dir = path.join(paths.stateDir, 'search');
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  const archives = new Set(sources.filter((s) => s.kind === 'messages').map((s) => path.basename(s.path)));
  // Only a file of INDEX_MIN_BYTES or more is searched through an index: the names of the others
  // are not worked out (a session may hold thousands of small detail files).
  const indexes = new Set(sources.filter((s) => s.kind !== 'messages' && s.size >= INDEX_MIN_BYTES).map((s) => path.basename(indexFileOf(paths, s))));
  for (const name of names) {
    const base = name.replace(/\.(?:txt|json|idx)$/, '');
    const gone = base.endsWith('.jsonl') ? !archives.has(base) : /^md-[0-9a-f]{16}\.idx$/.test(name) && !indexes.has(name);
    if (!gone) continue;
    try {
      unlinkSync(path.join(dir, name));
    } catch {
      /* another search removed it */
    }
  }
}

/** Front matter lines become blank (kept for line numbers); returns the `pointer:` field when there is one. */
function blankFrontMatter(text: string): { text: string; pointer?: string } {
  if (!text.startsWith('---\n')) return { text };
  const end = text.indexOf('\n---\n', 4);
  if (end === -1) return { text };
  const block = text.slice(0, end + 5);
  let pointer: string | undefined;
  const raw = /^pointer:\s*(.+)$/m.exec(block)?.[1];
  if (raw) {
    try {
      pointer = raw.startsWith('"') ? (JSON.parse(raw) as string) : raw;
    } catch {
      pointer = raw;
    }
  }
  return { text: '\n'.repeat(block.split('\n').length - 1) + text.slice(end + 5), pointer };
}

/** A line's text without a note's time and importance or a list marker. */
function sameText(text: string): string {
  return text
    .replace(/^\s*(?:[-*+]|\d+[.)])\s+/, '')
    .replace(/^\[[^\]]+\]\s+\(importance: [0-9.]+\)\s+/, '')
    .replace(/(?:\s+#[\p{L}\p{N}_-]+)+\s*$/u, '')
    .replace(/\s+/g, ' ')
    .trim()
    .toLowerCase();
}

const isComment = (line: string) => /^\s*<!--[\s\S]*-->\s*$/.test(line);

export interface SearchScope {
  projectDir: string;
  sessions: string[];
  /** The repository's team memory file (.wmem/memory.md), searched beside workspace memory. */
  teamFile?: string;
  /** The reading time: a team entry's `updated` past it (beyond clock skew) counts as the oldest. */
  nowMs?: number;
}

/** What the scan of every source found, and what resolving pointers needs afterwards. */
interface Scanned {
  candidates: Candidate[];
  /** Indexed files' candidate lines, known by their counts. */
  pools: CandidatePool[];
  totals: { lines: number; chars: number };
  /** Pointer line → the source (detail file) that holds what it replaced. */
  pointerFiles: Map<string, number>;
  /** A pointer target's text, read when a hit asks for it. */
  texts: Map<number, () => string>;
  /** Indexed files whose lines are read as the ranking asks, with their index files. */
  readers: { close(): void; damaged(): boolean; indexFile?: string }[];
  /** Workspace memory and the team file as searched (read once for both). */
  workspace?: WorkspaceSearchText;
  /** Per source: whether it is a conversation, its days and length (for reshape). */
  shape: ShapeSource[];
  /** Per source: any line of its text (neighbours, context). */
  lineOf: Map<number, (line: number) => string | undefined>;
  /** Sessions with a large file scanned because its index was left to a background run. */
  unindexed: Set<string>;
}

/** Searches the sessions' memory files and the project's workspace memory. */
export async function searchMemory(scope: SearchScope, fullQuery: string, options: SearchOptions): Promise<{ hits: SearchHit[]; files: number; lines: number; query: Query; unindexed: string[] }> {
  const rawQuery = boundedQuery(fullQuery);
  const { result, damaged } = await searchOnce(scope, rawQuery, options);
  if (!damaged.length) return result;
  // An index whose line spans proved wrong, or an archive cut while its raw bytes were searched
  // (the compaction's finishing), gave blank hits: the index is dropped (built again later) and
  // the search runs once more, scanning those files as they are now, so the answer is a scan's.
  for (const indexFile of damaged) if (indexFile) rmSync(indexFile, { force: true });
  return (await searchOnce(scope, rawQuery, options)).result;
}

async function searchOnce(scope: SearchScope, rawQuery: string, options: SearchOptions): Promise<{ result: Awaited<ReturnType<typeof searchMemory>>; damaged: (string | undefined)[] }> {
  const plain = Boolean(options.plain);
  // WMEM_SEARCH_INDEX=off scans every file (a diagnostic switch: the bench and the tests compare).
  const noIndex = options.noIndex ?? process.env.WMEM_SEARCH_INDEX === 'off';
  const query = parseQuery(rawQuery, { plain });
  const { sources, sessionOf } = listSources(scope);
  const newest = sources.reduce((m, s) => Math.max(m, s.mtimeMs), 0);
  const infos: SourceInfo[] = sources.map((s) => ({ boost: KIND_BOOST[s.kind], recency: Math.exp(-(newest - s.mtimeMs) / (30 * 86_400_000)) }));
  const scanned: Scanned = { candidates: [], pools: [], totals: { lines: 0, chars: 0 }, pointerFiles: new Map(), texts: new Map(), readers: [], shape: sources.map(() => ({ conversation: false })), lineOf: new Map(), unindexed: new Set() };
  try {
    // One memo of which words stand for which terms, for every file (thousands of small ones).
    const match = wordMatcher(query, plain);
    const weight = heaviness(options.heavy);
    for (const [i, source] of sources.entries()) await scanSource(scope, sessionOf, source, i, query, { plain, noIndex, match, rawMessages: options.rawMessages, weigh: weight.weigh }, scanned);
    weight.lines(scanned.pools.reduce((n, pool) => pool.df.reduce((m, d) => m + d, n), 0));
    // A consolidated note is in the overview and in archive/scratch-*.md; an archived line may be
    // archived twice. The same text is one hit (the best-ranked place), the others listed with it.
    const ranked = rank(scanned.candidates, query, scanned.totals, infos, { limit: plain ? options.limit : options.limit * RESHAPED, plain, shape: scanned.shape }, scanned.pools);
    const shaped = plain ? ranked : reshape(ranked, { sources: scanned.shape, dates: queryDates(rawQuery), speakers: querySpeakers(rawQuery), query: rawQuery, lineAt: (source, line) => lineEntry(scanned, source, line) });
    const hits = toHits(shaped, sources, scanned, query, options);
    const damaged = scanned.readers.filter((r) => r.damaged()).map((r) => r.indexFile);
    // A session whose indexing is under way already (a compaction's finishing) needs no run started.
    const unindexed = [...scanned.unindexed].filter((id) => !indexingUnderWay(sessionOf.get(id)!));
    return { result: { hits, files: sources.length, lines: scanned.totals.lines, query, unindexed }, damaged };
  } finally {
    for (const r of scanned.readers) r.close();
  }
}

/** How many times the limit the line ranking hands to reshape (neighbours and days), and dedup after it. */
const RESHAPED = 6;

/** A line with no term of its own as a scored entry (a neighbour or a named day's opening). */
function lineEntry(scanned: Scanned, source: number, line: number): Scored | undefined {
  const text = scanned.lineOf.get(source)?.(line);
  if (text === undefined || !text.trim()) return undefined;
  return { candidate: { source, line, text: text.slice(0, 3000), length: text.length, tf: [] }, score: 0, matched: 0 };
}

/** A Markdown file's lines read by number, its front matter blank (as a scan sees it). */
function withoutFrontMatter(read: (line: number) => string | undefined): (line: number) => string | undefined {
  let end: number | undefined;
  const frontEnd = () => {
    if (read(1) !== '---') return 0;
    for (let n = 2; n <= 1000; n++) {
      const line = read(n);
      if (line === undefined) return 0;
      if (line === '---') return n;
    }
    return 0;
  };
  return (line) => ((end ??= frontEnd()) >= line ? '' : read(line));
}

/** Lines of a text, found on first use by where they start (a search reads a few: no string per line). */
function linesOfText(text: string): (line: number) => string | undefined {
  let starts: Uint32Array | undefined;
  let count = 0;
  const find = () => {
    let list = new Uint32Array(1024);
    list[count++] = 0;
    for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', nl + 1)) {
      if (count === list.length) {
        const grown = new Uint32Array(list.length * 2);
        grown.set(list);
        list = grown;
      }
      list[count++] = nl + 1;
    }
    return list;
  };
  return (line) => {
    starts ??= find();
    if (line < 1 || line > count) return undefined;
    const end = line < count ? starts[line] - 1 : text.length;
    return text.slice(starts[line - 1], end).replace(/\r$/, '');
  };
}

function listSources(scope: SearchScope): { sources: Source[]; sessionOf: Map<string, SessionPaths> } {
  const sources: Source[] = [];
  const sessionOf = new Map<string, SessionPaths>();
  for (const id of scope.sessions) {
    const paths = sessionPaths(scope.projectDir, id);
    sessionOf.set(id, paths);
    const own = sessionSources(id, paths);
    sources.push(...own);
    dropStaleSidecars(paths, own);
  }
  const wsPath = workspaceFilePath(scope.projectDir);
  const ws = statOf(wsPath);
  if (ws) sources.push({ kind: 'workspace', file: 'workspace-memory.json', path: wsPath, mtimeMs: ws.mtimeMs, size: ws.size });
  const team = scope.teamFile === undefined ? undefined : statOf(scope.teamFile);
  if (team) sources.push({ kind: 'team', file: '.wmem/memory.md', path: scope.teamFile!, mtimeMs: team.mtimeMs, size: team.size });
  return { sources, sessionOf };
}

/**
 * A source's candidates through its index, or undefined when the index proves damaged on the way
 * (its header checked out, a section did not): the index is dropped, so the next search or the
 * background indexing builds it again, and this search scans the text instead.
 */
function scanThroughIndex(paths: SessionPaths, source: Source, textFile: string, view: IndexView, query: Query, i: number, out: Scanned, options: IndexedScanOptions & { plain: boolean; match: (word: string) => number[] }): (IndexedScan & { indexFile?: string }) | undefined {
  const before = { candidates: out.candidates.length, pools: out.pools.length };
  const indexFile = indexFileOf(paths, source);
  try {
    const stats = scanIndexed(textFile, view, query, i, out.candidates, out.pools, options);
    return staysInside(paths.dir, indexFile) ? { ...stats, indexFile } : stats;
  } catch (err) {
    if (!(err instanceof CorruptIndex)) throw err;
    out.candidates.length = before.candidates;
    out.pools.length = before.pools;
    if (staysInside(paths.dir, indexFile)) rmSync(indexFile, { force: true });
    return undefined;
  }
}

interface ScanOptions {
  plain: boolean;
  noIndex: boolean;
  match: (word: string) => number[];
  /** Told the bytes of the postings an index search will decode (heaviness). */
  weigh?: (postingBytes: number) => void;
  rawMessages?: { sampleShare: number };
}

/**
 * An archive with no fresh search text, larger than a search builds one for (right after a
 * compaction, whose finishing is building it): searched on its raw bytes (search-raw.ts), its
 * text and index left to a background run. False when the query's words cannot be found that
 * way: the caller scans the full text.
 */
async function scanRawSource(paths: SessionPaths, source: Source, query: Query, i: number, options: ScanOptions, out: Scanned): Promise<boolean> {
  const forced = options.rawMessages;
  if (!forced && (options.noIndex || source.size <= SEARCH_BUILD_MAX || sidecarFresh(paths, source))) return false;
  const needles = rawNeedles(query, irregularForms, options.plain);
  if (!needles) return false;
  const history = await loadHistory();
  const extract = (line: string) => extractLine(line, history);
  const scan = scanRawMessages(source.path, query, needles, i, out.pools, { match: options.match, extract, sampleShare: forced?.sampleShare });
  if (!scan) return false;
  out.readers.push(scan);
  out.shape[i] = { conversation: true, days: scan.days, lines: scan.lines };
  out.lineOf.set(i, scan.line);
  add(out.totals, scan);
  if (!forced) out.unindexed.add(source.session!);
  return true;
}

/** Adds one source's candidates: through its index when it has one, else by scanning its text. */
async function scanSource(scope: SearchScope, sessionOf: Map<string, SessionPaths>, source: Source, i: number, query: Query, options: ScanOptions, out: Scanned): Promise<void> {
  const { plain } = options;
  const skipLine = source.kind === 'messages' || source.kind === 'workspace' || source.kind === 'team' ? undefined : isComment;
  let text: string;
  try {
    if (source.kind === 'workspace' || source.kind === 'team') {
      out.workspace ??= workspaceSearchText(scope.projectDir, scope.teamFile, scope.nowMs ?? Date.now());
      text = out.workspace[source.kind] ?? '';
    } else {
      const paths = sessionOf.get(source.session!)!;
      if (source.kind === 'messages' && (await scanRawSource(paths, source, query, i, options, out))) return;
      const sidecar: MessagesText | { file: string } = source.kind === 'messages' ? await messagesText(paths, source, true) : { file: source.path };
      if ('days' in sidecar) out.shape[i] = { conversation: true, days: sidecar.days };
      if ('text' in sidecar) {
        text = sidecar.text;
        if (sidecar.unwritten) out.unindexed.add(source.session!);
      } else {
        const index = options.noIndex ? undefined : await indexOf(paths, source, sidecar.file, SEARCH_BUILD_MAX);
        if (index === 'later') out.unindexed.add(source.session!);
        const view = index === 'later' ? undefined : index?.view;
        const stats = view && scanThroughIndex(paths, source, sidecar.file, view, query, i, out, { plain, skipLine, match: options.match, weigh: options.weigh, days: out.shape[i].conversation ? out.shape[i].days : undefined });
        if (stats) {
          out.readers.push(stats);
          const read = (n: number) => (n >= 1 && n <= stats.lines ? stats.line(n) : undefined);
          out.lineOf.set(i, source.kind === 'messages' ? read : withoutFrontMatter(read));
          out.shape[i].lines = stats.lines;
          add(out.totals, stats);
          if (view.meta.pointer) {
            out.pointerFiles.set(view.meta.pointer, i);
            out.texts.set(i, () => blankFrontMatter(readText(source.path)).text);
          }
          return;
        }
        const raw = readText(sidecar.file);
        const { text: body, pointer } = source.kind === 'messages' ? { text: raw } : blankFrontMatter(raw);
        text = body;
        if (pointer) {
          out.pointerFiles.set(pointer, i);
          out.texts.set(i, () => body);
        }
      }
    }
  } catch {
    return; // removed or unreadable since it was listed
  }
  const stats = scanText(text, query, i, out.candidates, { plain, skipLine, match: options.match });
  out.lineOf.set(i, linesOfText(text));
  out.shape[i].lines = stats.lines;
  add(out.totals, stats);
}

function add(totals: { lines: number; chars: number }, stats: { lines: number; chars: number }): void {
  totals.lines += stats.lines;
  totals.chars += stats.chars;
}

/** The ranked candidates as hits: one per distinct text, with where else it is and what a pointer replaced. */
function toHits(ranked: Scored[], sources: Source[], scanned: Scanned, query: Query, options: SearchOptions): SearchHit[] {
  const plain = Boolean(options.plain);
  const seen = new Map<string, { file: string; line: number }[]>();
  const best = ranked.filter(({ candidate }) => {
    const key = plain ? `${candidate.source}:${candidate.line}` : sameText(candidate.text);
    const others = seen.get(key);
    if (others) {
      others.push({ file: sources[candidate.source].file, line: candidate.line });
      return false;
    }
    seen.set(key, []);
    return true;
  }).slice(0, options.limit);
  return best.map(({ candidate, score }) => {
    const source = sources[candidate.source];
    const hit: SearchHit = {
      ...(source.session ? { session: source.session } : {}),
      kind: source.kind,
      file: source.file,
      path: source.path,
      line: candidate.line,
      snippet: snippet(candidate.text, query),
      score: Math.round(score * 1000) / 1000,
    };
    const also = seen.get(sameText(candidate.text));
    if (also?.length) hit.alsoIn = also;
    const date = dateOfLine(scanned.shape[candidate.source]?.days, candidate.line);
    if (date) hit.date = date;
    if (!plain) {
      const context = contextOf(scanned, candidate.source, candidate.line, query, source.kind === 'messages' ? undefined : isComment);
      if (context.length) hit.context = context;
    }
    // A pointer resolves to the lines it replaced, kept in the detail file that names it.
    const target = pointerKeywords(candidate.text) ? scanned.pointerFiles.get(candidate.text.trim()) : undefined;
    if (target !== undefined) hit.resolved = resolvePointer(scanned.texts.get(target)!(), sources[target].file, query);
    return hit;
  });
}

/** The lines next to a hit that say something (not blank, not a template comment), each a snippet around the query's words (or its start). */
function contextOf(scanned: Scanned, source: number, line: number, query: Query, skip?: (line: string) => boolean): { line: number; text: string }[] {
  const read = scanned.lineOf.get(source);
  if (!read) return [];
  const out: { line: number; text: string }[] = [];
  for (let n = line - CONTEXT_BEFORE; n <= line + CONTEXT_AFTER; n++) {
    if (n === line || n < 1) continue;
    const text = read(n);
    if (text?.trim() && !skip?.(text)) out.push({ line: n, text: snippet(text, query, CONTEXT_CHARS) });
  }
  return out;
}

function resolvePointer(text: string, file: string, query: Query): { file: string; line: number; snippet: string }[] {
  return text
    .split('\n')
    .map((line, n) => ({ line, n }))
    .filter(({ line }) => /^\s*[-*+]\s|\S/.test(line) && !/^#\s/.test(line) && line.trim() && !line.startsWith('Pushed out of'))
    .slice(0, 20)
    .map(({ line, n }) => ({ file, line: n + 1, snippet: snippet(line, query) }));
}
