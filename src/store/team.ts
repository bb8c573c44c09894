// The team memory file on disk: `.wmem/memory.md` at the root of the project's git repository.
// `wmem share` finds the root with git itself; the per-prompt path finds it by looking for `.git`
// up from the project folder (no process to start) and reads the file only when its size or
// modification time changed since the last render (a small cache in the project's memory folder).
import { lstatSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { FILE_MODE, atomicWrite, createExclusive, ensureDir, readTextIfExists, staysInside, withLock } from './fsx.js';
import { usageError } from '../ui/errors.js';
import { TEAM_ATTRIBUTES, TEAM_FILE, asWorkspaceEntry, parseTeam, resolveTeam, type TeamEntry, type TeamFile } from '../memory/team.js';
import { findSecret } from '../memory/gate.js';
import type { WorkspaceEntry } from '../memory/workspace.js';

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

export function teamFilePath(root: string): string {
  return path.join(root, TEAM_FILE);
}

/** The parsed team file, or undefined when there is none. A link that leads out of the repository is refused. */
export async function readTeam(root: string): Promise<TeamFile | undefined> {
  const file = teamFilePath(root);
  if (!staysInside(root, file)) throw usageError(`${file} leads outside ${root} (through a symbolic link); wmem does not follow it`, 'replace the link with the file itself');
  const text = await readTextIfExists(file);
  return text === undefined ? undefined : parseTeam(text);
}

/** Replaces the team file (atomically, under a lock on `.wmem/`) with what `change` makes of it. */
export async function changeTeam<T>(root: string, change: (file: TeamFile | undefined) => { file: TeamFile; result: T; text: string }): Promise<T> {
  const dir = path.join(root, '.wmem');
  await ensureDir(dir);
  // The lock folder and temp files that a killed wmem could leave here are never committed.
  await createExclusive(path.join(dir, '.gitignore'), '# wmem: its lock and temp files, never the memory\n.lock\n.lock.owner\n*.tmp\n');
  return withLock(dir, async () => {
    const { result, text } = change(await readTeam(root));
    await atomicWrite(teamFilePath(root), text);
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
    await atomicWrite(file, `${current}${current && !current.endsWith('\n') ? '\n' : ''}${TEAM_ATTRIBUTES}\n`);
    return true;
  });
}

interface TeamCache {
  file: string;
  size: number;
  mtimeMs: number;
  entries: Omit<TeamEntry, 'line'>[];
}

/**
 * The team entries to show beside the private workspace memory (source `team`), for the
 * per-prompt path: synchronous, no git, the file parsed only when it changed. Entries that hold
 * something shaped like a secret are never shown (`wmem share --check` reports them).
 */
export function teamEntriesSync(projectCwd: string, projectDir: string): WorkspaceEntry[] {
  const root = findRepoRootSync(projectCwd);
  if (!root) return [];
  const file = teamFilePath(root);
  let stat;
  try {
    stat = statSync(file);
  } catch {
    return [];
  }
  if (!stat.isFile() || !staysInside(root, file)) return [];
  const cacheFile = path.join(projectDir, 'team-cache.json');
  const cached = readCache(cacheFile);
  if (cached && cached.file === file && cached.size === stat.size && cached.mtimeMs === stat.mtimeMs) return cached.entries.map(asWorkspaceEntry);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return []; // unreadable: the private workspace memory still renders; `wmem share --check` says why
  }
  const { entries } = resolveTeam(parseTeam(text).entries);
  const shown = entries.filter((e) => !findSecret(e.text)).map(({ line: _line, ...e }) => e);
  writeCache(cacheFile, { file, size: stat.size, mtimeMs: stat.mtimeMs, entries: shown });
  return shown.map(asWorkspaceEntry);
}

function readCache(file: string): TeamCache | undefined {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as TeamCache;
  } catch {
    return undefined;
  }
}

/** Best effort: a cache that cannot be written is only a slower next render. */
function writeCache(file: string, cache: TeamCache): void {
  const temp = `${file}.${process.pid}.tmp`;
  try {
    writeFileSync(temp, JSON.stringify(cache), { mode: FILE_MODE });
    renameSync(temp, file);
  } catch {
    /* ignored */
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
