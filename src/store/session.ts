// Which session a command acts on (--session > WMEM_SESSION > the project's `current`), and the
// session's meta.json. Reading never creates anything; `init` and hooks create.
import { promises as fs, lstatSync, statSync, type Stats } from 'node:fs';
import path from 'node:path';
import { atomicWrite, linkRefusal, readTextIfExists } from './fsx.js';
import { POINTER_FLAGS } from './regular-file.js';
import { assertSessionId, sessionPaths, type SessionPaths } from './paths.js';
import { locateProject, type ProjectRef } from './project.js';
import { WmemError, jsonBreak, usageError } from '../ui/errors.js';

export interface SessionMeta {
  version: 1;
  id: string;
  cwd: string;
  createdAt: string;
  updatedAt: string;
  /** The user's window (`wmem init --tokens-max`); absent: looked up from the session's model. */
  tokensMax?: number;
  lang?: string;
  [key: string]: unknown;
}

export interface Session {
  id: string;
  project: ProjectRef;
  paths: SessionPaths;
  /** How the id was chosen: flag, env or current. */
  source: 'flag' | 'env' | 'current';
}

export interface Where {
  home: string;
  cwd: string;
  sessionFlag?: string;
  env: NodeJS.ProcessEnv;
}

export const DEFAULT_TOKENS_MAX = 200_000;

export function currentFile(projectDir: string): string {
  return path.join(projectDir, 'current');
}

export async function readCurrent(projectDir: string): Promise<string | undefined> {
  const text = await readTextIfExists(currentFile(projectDir), undefined, POINTER_FLAGS);
  const id = text?.split('\n')[0]?.trim();
  return id ? id : undefined;
}

export async function writeCurrent(projectDir: string, id: string): Promise<void> {
  await atomicWrite(currentFile(projectDir), id + '\n');
}

/** The session id the flags and environment ask for, validated, or undefined to fall back to `current`. */
export function requestedSessionId(where: Where): { id: string; source: 'flag' | 'env' } | undefined {
  if (where.sessionFlag !== undefined) return { id: assertSessionId(where.sessionFlag, '--session'), source: 'flag' };
  const fromEnv = where.env.WMEM_SESSION;
  if (fromEnv) return { id: assertSessionId(fromEnv, 'WMEM_SESSION'), source: 'env' };
  return undefined;
}

/** Resolves the session to act on; throws the documented error when there is none. */
export async function resolveSession(where: Where): Promise<Session> {
  const requested = requestedSessionId(where);
  const project = await locateProject(where.home, where.cwd, { create: false });
  const noSession = () => usageError(`no session for ${project?.cwd ?? where.cwd}: run 'wmem init'`);
  if (!project) throw noSession();
  let id: string;
  let source: Session['source'];
  if (requested) {
    ({ id, source } = requested);
  } else {
    const current = await readCurrent(project.dir);
    if (!current) throw noSession();
    id = assertSessionId(current, currentFile(project.dir));
    source = 'current';
  }
  const paths = sessionPaths(project.dir, id);
  try {
    statSync(paths.workingMemory);
    assertNoLinks(paths);
  } catch (err) {
    if (err instanceof WmemError) throw err;
    throw usageError(
      `unknown session ${id} for ${project.cwd} (from ${source === 'flag' ? '--session' : source === 'env' ? 'WMEM_SESSION' : currentFile(project.dir)})`,
      `run 'wmem sessions' to list them, or 'wmem init --session ${id}' to create it`,
    );
  }
  return { id, project, paths, source };
}

/**
 * A session whose own folders or memory files are symbolic links could be made to write
 * elsewhere, or to read and show what is elsewhere; refuse it (messages.jsonl included: compaction
 * rewrites it; state/search/ too: a search reads its text and indexes from there).
 */
export function assertNoLinks(paths: SessionPaths): void {
  for (const file of [paths.dir, paths.workingMemory, paths.overview, paths.scratch, paths.meta, paths.messages, paths.detailDir, paths.archiveDir, paths.stateDir, path.join(paths.stateDir, 'search')]) ownEntry(file);
}

/**
 * Whether the session a hook names is whole (overview.md, scratch.md and meta.json there). A
 * session folder, working-memory/ or state/ that is a symbolic link is refused (linkRefusal), and
 * so is a memory file that is one: every hook reads and writes there, before anything else of the
 * session. One lstat each, the files' as before (a link is a folder's only way out that a later
 * open would not refuse: O_NOFOLLOW guards the last part of a path only); what it covers is a link
 * there when the hook starts, not one swapped in while it runs (docs/guarantees.md).
 */
export function sessionWhole(paths: SessionPaths): boolean {
  if (!ownEntry(paths.dir)) return false;
  ownEntry(paths.workingMemory);
  ownEntry(paths.stateDir);
  return [paths.overview, paths.scratch, paths.meta].every((file) => ownEntry(file) !== undefined);
}

/** `file`'s lstat, undefined when it is not there (or cannot be looked at); a symbolic link is refused. */
function ownEntry(file: string): Stats | undefined {
  let st: Stats | undefined;
  try {
    st = lstatSync(file, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
  if (st?.isSymbolicLink()) throw linkRefusal(file);
  return st;
}

export async function readMeta(paths: SessionPaths): Promise<SessionMeta | undefined> {
  const text = await readTextIfExists(paths.meta);
  if (text === undefined) return undefined;
  try {
    const parsed = JSON.parse(text) as Partial<SessionMeta>;
    return upgradeMeta(parsed);
  } catch (err) {
    throw usageError(`${paths.meta} is not valid JSON (${jsonBreak(err, text)})`, 'fix that file or remove it (wmem init recreates it)');
  }
}

/** Older or hand-made meta files are upgraded on load, never refused (docs/operations.md). */
export function upgradeMeta(raw: Partial<SessionMeta>): SessionMeta {
  const tokensMax = Number(raw.tokensMax);
  const { tokensMax: _dropped, ...rest } = raw;
  return {
    ...rest,
    version: 1,
    id: String(raw.id ?? ''),
    cwd: String(raw.cwd ?? ''),
    createdAt: String(raw.createdAt ?? ''),
    updatedAt: String(raw.updatedAt ?? raw.createdAt ?? ''),
    ...(Number.isSafeInteger(tokensMax) && tokensMax > 0 ? { tokensMax } : {}),
  };
}

export async function writeMeta(paths: SessionPaths, meta: SessionMeta): Promise<void> {
  await atomicWrite(paths.meta, JSON.stringify(meta, null, 2) + '\n');
}

/** Session ids of a project, oldest first (generated ids sort by time; others by createdAt). */
export async function listSessionIds(projectDir: string): Promise<string[]> {
  let entries: import('node:fs').Dirent[];
  try {
    entries = await fs.readdir(projectDir, { withFileTypes: true });
  } catch {
    return [];
  }
  const ids: string[] = [];
  for (const entry of entries) {
    if (!entry.isDirectory() || entry.name === 'cache') continue;
    try {
      await fs.access(path.join(projectDir, entry.name, 'working-memory'));
      ids.push(entry.name);
    } catch {
      /* not a session */
    }
  }
  return ids.sort();
}
