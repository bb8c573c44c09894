// What `wmem search` reads: a session's overview, scratch, detail/ and archive/ files and the
// project's workspace memory. Archived messages (JSON lines) are searched through a text sidecar
// under <session>/state/search/ — one line of extracted text per archived line, so line numbers
// match — rebuilt only when the archive's size or mtime changed (archives are written once).
import { createReadStream, readdirSync, readFileSync, statSync } from 'node:fs';
import { createInterface } from 'node:readline';
import path from 'node:path';
import { atomicWrite } from './fsx.js';
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

/** One line of searchable text for an archived JSON line: role and what the model saw. */
function extractLine(line: string, { classifyLine, messageText }: typeof import('../history/lines.js')): string {
  const info = classifyLine(line);
  if (info.kind === 'message') return `${info.role}: ${messageText(info)}`.replace(/\s+/g, ' ').trim();
  const value = info.value as Record<string, unknown> | undefined;
  if (value && typeof value === 'object' && typeof value.summary === 'string') return `summary: ${value.summary}`.replace(/\s+/g, ' ');
  return '';
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
    if (meta.version === 1 && meta.size === stat.size && meta.mtimeMs === stat.mtimeMs) return readFileSync(textFile, 'utf8');
  } catch {
    /* build it */
  }
  const history = await import('../history/lines.js');
  const lines: string[] = [];
  const reader = createInterface({ input: createReadStream(source.path, { encoding: 'utf8' }), crlfDelay: Infinity });
  for await (const line of reader) lines.push(extractLine(line, history));
  const text = lines.join('\n') + '\n';
  // A cache: a failed write costs time on the next search, nothing else.
  try {
    await atomicWrite(textFile, text);
    await atomicWrite(metaFile, JSON.stringify({ version: 1, size: stat.size, mtimeMs: stat.mtimeMs, lines: lines.length }));
  } catch {
    /* keep going */
  }
  return text;
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
    sources.push(...sessionSources(id, paths));
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
        text = readWorkspaceSync(scope.projectDir)
          .entries.map((e) => `[${e.type}] ${e.text} (${e.id})`)
          .join('\n');
      } else {
        const raw = readFileSync(source.path, 'utf8');
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

  const best = rank(candidates, query, totals, infos, { limit: options.limit, plain });
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
