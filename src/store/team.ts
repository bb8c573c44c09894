// The team memory file on disk: `.wmem/memory.md` at the root of the project's git repository.
// `wmem share` finds the root with git itself; the per-prompt path finds it by looking for `.git`
// up from the project folder (no process to start) and composes the block anew only when the file's
// size or modification time, or the project's own entries, changed (a small cache in the project's
// memory folder), so a team file of any size costs a prompt one stat.
import { lstatSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { FILE_MODE, atomicWrite, createExclusive, ensureDir, readTextIfExists, staysInside, tempBeside, withLock } from './fsx.js';
import { usageError } from '../ui/errors.js';
import { TEAM_FILE, teamCachePath, teamFilePath } from './paths.js';
import { TEAM_ATTRIBUTES, asWorkspaceEntry, notAfter, parseTeam, shownTeamEntries, type TeamFile } from '../memory/team.js';
import { WORKSPACE_LIMITS, composeWorkspace, mergeTeam, type ComposedWorkspace, type WorkspaceLimits } from '../memory/workspace-block.js';
import type { WorkspaceEntry } from '../memory/workspace.js';
import { readRegularSync } from './regular-file.js';

/** The repository's top folder, as git says (exit 2 outside a repository). */
export async function gitRoot(cwd: string): Promise<string> {
  const { execa } = await import('execa');
  const result = await execa('git', ['rev-parse', '--show-toplevel'], { cwd, reject: false });
  if (result.failed || result.exitCode !== 0 || !result.stdout.trim()) {
    throw usageError(`${cwd} is not inside a git repository: team memory lives in a file committed with the code`, "run 'git init' first, or share from inside the repository");
  }
  return result.stdout.trim();
}

/** The nearest folder up from `cwd` holding `.git` (a folder, or a file in a worktree). */
export function findRepoRootSync(cwd: string): string | undefined {
  for (let dir = path.resolve(cwd); ; dir = path.dirname(dir)) {
    try {
      lstatSync(path.join(dir, '.git'));
      return dir;
    } catch {
      /* not here */
    }
    if (path.dirname(dir) === dir) return undefined;
  }
}

export { teamFilePath };

/** The parsed team file, or undefined when there is none. A link that leads out of the repository is refused. */
export async function readTeam(root: string): Promise<TeamFile | undefined> {
  const file = teamFilePath(root);
  if (!staysInside(root, file)) throw usageError(`${file} leads outside ${root} (through a symbolic link); wmem does not follow it`, 'replace the link with the file itself');
  const text = await readTextIfExists(file);
  return text === undefined ? undefined : parseTeam(text);
}

/** Replaces the team file (atomically, under a lock on `.wmem/`) with what `change` makes of it. */
type Change<T> = { file: TeamFile; result: T; text: string };

export async function changeTeam<T>(root: string, change: (file: TeamFile | undefined) => Change<T> | Promise<Change<T>>): Promise<T> {
  const dir = path.join(root, '.wmem');
  await ensureDir(dir);
  // The lock folder and temp files that a killed wmem could leave here are never committed.
  await createExclusive(path.join(dir, '.gitignore'), '# wmem: its lock and temp files, never the memory\n.lock\n.lock.owner\n*.tmp\n', { userFolder: true });
  return withLock(dir, async () => {
    const { result, text } = await change(await readTeam(root));
    await atomicWrite(teamFilePath(root), text, { userFolder: true });
    return result;
  });
}

/** Adds the union merge line to `.gitattributes` unless it is there; true when it was added. */
export async function ensureAttributes(root: string): Promise<boolean> {
  const file = path.join(root, '.gitattributes');
  const lockDir = path.join(root, '.wmem');
  await ensureDir(lockDir);
  return withLock(lockDir, async () => {
    const current = (await readTextIfExists(file)) ?? '';
    if (current.split('\n').some((line) => line.trim().replace(/\s+/g, ' ') === TEAM_ATTRIBUTES)) return false;
    await atomicWrite(file, `${current}${current && !current.endsWith('\n') ? '\n' : ''}${TEAM_ATTRIBUTES}\n`, { userFolder: true });
    return true;
  });
}

/** The team file of the repository holding `projectCwd`, when there is one that can be read (no link out). */
function teamFileOf(projectCwd: string): { file: string; size: number; mtimeMs: number } | undefined {
  const root = findRepoRootSync(projectCwd);
  if (!root) return undefined;
  const file = teamFilePath(root);
  try {
    const stat = statSync(file);
    return stat.isFile() && staysInside(root, file) ? { file, size: stat.size, mtimeMs: stat.mtimeMs } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The team's entries as workspace memory (source `team`): one per id (the winner), a broken or
 * future `updated` made the oldest, and no entry that holds something shaped like a secret or
 * instructs the model (teamRefusal; `wmem share --check` reports those). Synchronous, no git. [] without a readable file.
 */
export function readTeamEntriesSync(projectCwd: string, nowMs: number): WorkspaceEntry[] {
  const found = teamFileOf(projectCwd);
  if (!found) return [];
  let text: string;
  try {
    text = readRegularSync(found.file, 'utf8');
  } catch {
    return []; // unreadable: the private workspace memory still renders; `wmem share --check` says why
  }
  const latest = notAfter(nowMs);
  return shownTeamEntries(parseTeam(text).entries, latest).map((e) => asWorkspaceEntry(e, latest));
}

interface BlockCache {
  /** 3: entries that instruct the model are left out (a block composed by an older wmem is not reused). */
  v: 3;
  file: string;
  size: number;
  mtimeMs: number;
  /** The project's own entries and the limits the block was composed from. */
  key: string;
  composed: ComposedWorkspace;
}

/**
 * The workspace block's entries (the project's own and the team's, composed within `limits`), for
 * the per-prompt path. The team file may hold tens of thousands of entries: it is parsed and the
 * block composed only when the file (size, modification time) or the own entries changed; the
 * result, a few dozen entries, is kept in a small cache in the project's memory folder.
 */
export function composedWorkspaceSync(projectCwd: string, projectDir: string, own: WorkspaceEntry[], nowMs: number, limits: WorkspaceLimits = WORKSPACE_LIMITS): ComposedWorkspace {
  const found = teamFileOf(projectCwd);
  if (!found) return composeWorkspace(own, limits);
  const cacheFile = teamCachePath(projectDir);
  const key = JSON.stringify([limits.entries, limits.chars, own]);
  const cached = readCache(cacheFile);
  if (cached && cached.v === 3 && cached.file === found.file && cached.size === found.size && cached.mtimeMs === found.mtimeMs && cached.key === key) return cached.composed;
  const composed = composeWorkspace(mergeTeam(own, readTeamEntriesSync(projectCwd, nowMs)), limits);
  writeCache(cacheFile, { v: 3, ...found, key, composed });
  return composed;
}

function readCache(file: string): BlockCache | undefined {
  try {
    return JSON.parse(readRegularSync(file, 'utf8')) as BlockCache;
  } catch {
    return undefined;
  }
}

/** Best effort: a cache that cannot be written is only a slower next render (its temp never stays). */
function writeCache(file: string, cache: BlockCache): void {
  const temp = tempBeside(file);
  try {
    writeFileSync(temp, JSON.stringify(cache), { mode: FILE_MODE });
    renameSync(temp, file);
  } catch {
    try {
      unlinkSync(temp);
    } catch {
      /* never written */
    }
  }
}

/** Removes every line of entry `id` from the team file; returns how many went (0: none, file untouched). */
export async function removeShared(root: string, id: string): Promise<number> {
  const { formatTeam, removeFromTeam } = await import('../memory/team.js');
  if (!(await readTeam(root))?.entries.some((e) => e.id === id)) return 0;
  return changeTeam(root, (file) => {
    const { file: next, removed } = removeFromTeam(file!, id);
    return { file: next, result: removed, text: formatTeam(next) };
  });
}
