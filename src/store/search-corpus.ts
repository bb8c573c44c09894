// What `wmem search` reads: a session's overview, scratch, detail/ and archive/ files and the
// project's workspace memory. Archived messages (JSON lines) are searched through a text sidecar
// under <session>/state/search/ — one line of extracted text per archived line, so line numbers
// match — rebuilt only when the archive's size or mtime changed (archives are written once).
import { createReadStream, readdirSync, readFileSync, statSync, unlinkSync } from 'node:fs';
import { isAscii } from 'node:buffer';
import { createInterface } from 'node:readline';
import path from 'node:path';
import { atomicWrite, staysInside } from './fsx.js';
import { sessionPaths, type SessionPaths } from './paths.js';
import { workspaceFilePath, readWorkspaceSync } from './workspace.js';
import { parseQuery, pointerKeywords, rank, scanText, snippet, type Candidate, type Query, type SourceInfo } from '../memory/search.js';

export type SourceKind = 'overview' | 'scratch' | 'detail' | 'archive' | 'messages' | 'workspace';

const KIND_BOOST: Record<SourceKind, number> = { overview: 1.3, workspace: 1.3, scratch: 1.2, detail: 1, archive: 0.9, messages: 0.8 };

interface Source {
  kind: SourceKind;
  session?: string;
  /** The file as shown: relative to the session folder (or the project folder). */
  file: string;
  path: string;
  mtimeMs: number;
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
}

export interface SearchOptions {
  limit: number;
  /** Plain BM25 (no stemming, expansions or boosts): the bench's baseline. */
  plain?: boolean;
}

function listMd(dir: string): string[] {
  try {
    return readdirSync(dir).filter((n) => n.endsWith('.md')).sort();
  } catch {
    return [];
  }
}

function mtime(file: string): number | undefined {
  try {
    return statSync(file).mtimeMs;
  } catch {
    return undefined;
  }
}

function sessionSources(id: string, paths: SessionPaths): Source[] {
  const out: Source[] = [];
  const add = (kind: SourceKind, abs: string) => {
    // A link planted in detail/ or archive/ that leads out of the session is never read.
    if (!staysInside(paths.dir, abs)) return;
    const m = mtime(abs);
    if (m !== undefined) out.push({ kind, session: id, file: path.relative(paths.dir, abs), path: abs, mtimeMs: m });
  };
  add('overview', paths.overview);
  add('scratch', paths.scratch);
  for (const name of listMd(paths.detailDir)) add('detail', path.join(paths.detailDir, name));
  let archived: string[] = [];
  try {
    archived = readdirSync(paths.archiveDir).sort();
  } catch {
    /* no archive yet */
  }
  for (const name of archived) {
    if (name.endsWith('.jsonl')) add('messages', path.join(paths.archiveDir, name));
    else if (name.endsWith('.md')) add('archive', path.join(paths.archiveDir, name));
  }
  return out;
}

type History = typeof import('../history/lines.js') & typeof import('../history/messages.js');

/** One line of searchable text for an archived JSON line: role and what the model saw. */
function extractLine(line: string, history: History): string {
  const info = history.classifyLine(line);
  if (info.kind === 'message') {
    const parts = history.messageParts(info);
    const text = parts.length
      ? parts.map((p) => (p.kind === 'tool_use' ? `${p.name ?? 'tool'} ${p.text}` : p.kind === 'image' ? '' : p.text)).join(' ')
      : history.messageText(info);
    return `${info.role}: ${text}`.replace(/\s+/g, ' ').trim();
  }
  const value = info.value as Record<string, unknown> | undefined;
  if (value && typeof value === 'object' && typeof value.summary === 'string') return `summary: ${value.summary}`.replace(/\s+/g, ' ');
  return '';
}

/**
 * A file's text. Archives and their readable copies run to tens of megabytes and are mostly
 * ASCII: checked in one native pass, such a file is decoded as Latin-1 (the same characters,
 * several times faster than UTF-8 decoding); any other byte means UTF-8.
 */
function readText(file: string): string {
  const bytes = readFileSync(file);
  return isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8');
}

/** The sidecar text of an archived messages file, built (streaming) when missing or stale. */
async function messagesText(paths: SessionPaths, source: Source): Promise<string> {
  const dir = path.join(paths.stateDir, 'search');
  const base = path.basename(source.path);
  const textFile = path.join(dir, `${base}.txt`);
  const metaFile = path.join(dir, `${base}.json`);
  const stat = statSync(source.path);
  try {
    const meta = JSON.parse(readFileSync(metaFile, 'utf8')) as { size: number; mtimeMs: number; version: number };
    if (meta.version === 2 && meta.size === stat.size && meta.mtimeMs === stat.mtimeMs) return readText(textFile);
  } catch {
    /* build it */
  }
  const history: History = { ...(await import('../history/lines.js')), ...(await import('../history/messages.js')) };
  const lines: string[] = [];
  const reader = createInterface({ input: createReadStream(source.path, { encoding: 'utf8' }), crlfDelay: Infinity });
  for await (const line of reader) lines.push(extractLine(line, history));
  const text = lines.join('\n') + '\n';
  // A cache: a failed write costs time on the next search, nothing else.
  try {
    await atomicWrite(textFile, text);
    await atomicWrite(metaFile, JSON.stringify({ version: 2, size: stat.size, mtimeMs: stat.mtimeMs, lines: lines.length }));
  } catch {
    /* keep going */
  }
  return text;
}

/**
 * Brings the text sidecars of a session's archived messages up to date (only those missing or
 * stale are built): run when a compaction finishes, so the first search after it reads ready text
 * instead of parsing a large archive. Returns how many were built.
 */
export async function indexSession(id: string, paths: SessionPaths): Promise<number> {
  const archived = sessionSources(id, paths).filter((s) => s.kind === 'messages');
  dropStaleSidecars(paths, new Set(archived.map((s) => path.basename(s.path))));
  let built = 0;
  for (const source of archived) {
    if (sidecarFresh(paths, source)) continue;
    await messagesText(paths, source);
    built++;
  }
  return built;
}

function sidecarFresh(paths: SessionPaths, source: Source): boolean {
  const meta = path.join(paths.stateDir, 'search', `${path.basename(source.path)}.json`);
  try {
    const recorded = JSON.parse(readFileSync(meta, 'utf8')) as { size: number; mtimeMs: number; version: number };
    const stat = statSync(source.path);
    return recorded.version === 2 && recorded.size === stat.size && recorded.mtimeMs === stat.mtimeMs;
  } catch {
    return false;
  }
}

/**
 * workspace-memory.json as searchable lines at their real line numbers: each entry's `"text"`
 * line holds its text (wmem writes the file indented, one field a line); a file written on one
 * line by someone else is searched entry by entry instead.
 */
function workspaceLines(projectDir: string): string {
  const raw = readFileSync(workspaceFilePath(projectDir), 'utf8');
  const lines = raw.split('\n');
  let found = 0;
  const out = lines.map((line) => {
    const m = /^\s*"text":\s*("(?:[^"\\]|\\.)*")\s*,?\s*$/.exec(line);
    if (!m) return '';
    try {
      found++;
      return JSON.parse(m[1]) as string;
    } catch {
      return '';
    }
  });
  if (found) return out.join('\n');
  return readWorkspaceSync(projectDir)
    .entries.map((e) => `[${e.type}] ${e.text} (${e.id})`)
    .join('\n');
}

/** Removes the text cache of archives that are gone (restored, or removed by hand). Best effort. */
function dropStaleSidecars(paths: SessionPaths, archives: Set<string>): void {
  const dir = path.join(paths.stateDir, 'search');
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    const base = name.replace(/\.(?:txt|json)$/, '');
    if (base.endsWith('.jsonl') && !archives.has(base)) {
      try {
        unlinkSync(path.join(dir, name));
      } catch {
        /* another search removed it */
      }
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
}

/** Searches the sessions' memory files and the project's workspace memory. */
export async function searchMemory(scope: SearchScope, rawQuery: string, options: SearchOptions): Promise<{ hits: SearchHit[]; files: number; lines: number; query: Query }> {
  const plain = Boolean(options.plain);
  const query = parseQuery(rawQuery, { plain });
  const sources: Source[] = [];
  const sessionOf = new Map<string, SessionPaths>();
  for (const id of scope.sessions) {
    const paths = sessionPaths(scope.projectDir, id);
    sessionOf.set(id, paths);
    const own = sessionSources(id, paths);
    sources.push(...own);
    dropStaleSidecars(paths, new Set(own.filter((s) => s.kind === 'messages').map((s) => path.basename(s.path))));
  }
  const wsPath = workspaceFilePath(scope.projectDir);
  const wsMtime = mtime(wsPath);
  if (wsMtime !== undefined) sources.push({ kind: 'workspace', file: 'workspace-memory.json', path: wsPath, mtimeMs: wsMtime });

  const newest = sources.reduce((m, s) => Math.max(m, s.mtimeMs), 0);
  const infos: SourceInfo[] = sources.map((s) => ({ boost: KIND_BOOST[s.kind], recency: Math.exp(-(newest - s.mtimeMs) / (30 * 86_400_000)) }));
  const candidates: Candidate[] = [];
  const totals = { lines: 0, chars: 0 };
  const pointerFiles = new Map<string, number>();
  const texts = new Map<number, string>();
  for (const [i, source] of sources.entries()) {
    let text: string;
    let skipLine: ((line: string) => boolean) | undefined;
    try {
      if (source.kind === 'messages') {
        text = await messagesText(sessionOf.get(source.session!)!, source);
      } else if (source.kind === 'workspace') {
        text = workspaceLines(scope.projectDir);
      } else {
        const raw = readText(source.path);
        const { text: body, pointer } = blankFrontMatter(raw);
        text = body;
        if (pointer) {
          pointerFiles.set(pointer, i);
          texts.set(i, body);
        }
        skipLine = isComment;
      }
    } catch {
      continue; // removed or unreadable since it was listed
    }
    const stats = scanText(text, query, i, candidates, { plain, skipLine });
    totals.lines += stats.lines;
    totals.chars += stats.chars;
  }

  // A consolidated note is in the overview and in archive/scratch-*.md; an archived line may be
  // archived twice. The same text is one hit (the best-ranked place), the others listed with it.
  const ranked = rank(candidates, query, totals, infos, { limit: plain ? options.limit : options.limit * 4, plain });
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
  const hits: SearchHit[] = best.map(({ candidate, score }) => {
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
    // A pointer resolves to the lines it replaced, kept in the detail file that names it.
    if (pointerKeywords(candidate.text)) {
      const target = pointerFiles.get(candidate.text.trim());
      if (target !== undefined) {
        const lines = texts.get(target)!.split('\n');
        hit.resolved = lines
          .map((text, n) => ({ text, n }))
          .filter(({ text }) => /^\s*[-*+]\s|\S/.test(text) && !/^#\s/.test(text) && text.trim() && !text.startsWith('Pushed out of'))
          .slice(0, 20)
          .map(({ text, n }) => ({ file: sources[target].file, line: n + 1, snippet: snippet(text, query) }));
      }
    }
    return hit;
  });
  return { hits, files: sources.length, lines: totals.lines, query };
}
