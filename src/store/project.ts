// Finds or creates a project's folder under <home>/sessions. The encoding of a path is lossy, so
// project.json records the real path, and a folder that belongs to another path is never shared.
import { promises as fs, lstatSync, readdirSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { createExclusive, ensureDir, readTextIfExists } from './fsx.js';
import { encodeCwd, joinName, projectFilePath, projectFolderCandidate } from './paths.js';
import { WmemError, fsError, usageError } from '../ui/errors.js';

export interface ProjectRef {
  /** The project folder, e.g. ~/.ai/sessions/--home-me-app--. */
  dir: string;
  /** The real path of the working directory. */
  cwd: string;
  /** Set when the plain encoding was taken by another path and a numbered folder is used. */
  collidedWith?: string;
}

export interface ProjectFile {
  version: 1;
  cwd: string;
  createdAt: string;
}

export function realCwd(cwd: string): string {
  try {
    const real = realpathSync(cwd);
    if (!statSync(real).isDirectory()) throw usageError(`the project folder ${cwd} is not a folder`, 'pass --cwd DIR with a folder');
    return real;
  } catch (err) {
    if (err instanceof WmemError) throw err;
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
      throw usageError(`the project folder ${cwd} does not exist`, 'pass --cwd DIR with an existing folder');
    }
    throw fsError(err, 'resolve', cwd);
  }
}

export function sessionsRoot(home: string): string {
  return joinName(home, 'sessions');
}

async function readProjectFile(dir: string): Promise<ProjectFile | undefined> {
  const file = projectFilePath(dir);
  const text = await readTextIfExists(file);
  if (text === undefined) return undefined;
  try {
    const parsed = JSON.parse(text) as Partial<ProjectFile>;
    if (typeof parsed.cwd !== 'string') throw new Error('no "cwd" string');
    return { version: 1, cwd: parsed.cwd, createdAt: String(parsed.createdAt ?? '') };
  } catch (err) {
    const reason = (err as Error).message.split('\n')[0].slice(0, 120);
    throw usageError(`${file} is not valid: ${reason}`, 'fix that file; it must hold {"version":1,"cwd":"<real path of the project>"}');
  }
}

async function folderExists(dir: string): Promise<boolean> {
  try {
    return statSync(dir).isDirectory();
  } catch {
    return false;
  }
}

/**
 * A project folder that is a symbolic link is refused, never followed: every write of a session
 * (notes, hook states, history) would land wherever it points, and sweep never goes there either.
 * A hook logs this and exits 0 (app/hook.ts); a command exits 2 naming the link.
 */
function refuseLinkedFolder(dir: string): void {
  let linked = false;
  try {
    linked = lstatSync(dir).isSymbolicLink();
  } catch {
    return; // missing, or no folder to hold it: what follows says so
  }
  if (!linked) return;
  throw usageError(`the project folder ${dir} is a symbolic link; wmem does not follow links out of its home`, 'remove the link (move what it points to into its place if that is your memory) and run the command again');
}

/**
 * Walks the candidate folders for `cwd`. Returns the one whose project.json names this path, or
 * (with create) claims the first free one. A folder without project.json (written by an older
 * tool) is adopted only at the plain encoding.
 */
export async function locateProject(home: string, cwdInput: string, options: { create: boolean; now?: Date }): Promise<ProjectRef | undefined> {
  const cwd = realCwd(cwdInput);
  const root = sessionsRoot(home);
  const encoded = encodeCwd(cwd);
  let collidedWith: string | undefined;
  for (let attempt = 0; attempt < 1000; attempt++) {
    const dir = joinName(root, projectFolderCandidate(encoded, attempt));
    refuseLinkedFolder(dir);
    const owner = await readProjectFile(dir);
    if (owner?.cwd === cwd) return { dir, cwd, collidedWith };
    if (owner) {
      collidedWith ??= owner.cwd;
      continue;
    }
    const present = await folderExists(dir);
    if (!options.create) {
      if (present && attempt === 0) return { dir, cwd };
      if (!present) return undefined;
      continue;
    }
    if (present && attempt > 0) continue;
    await ensureDir(dir, true);
    const record: ProjectFile = { version: 1, cwd, createdAt: (options.now ?? new Date()).toISOString() };
    if (await createExclusive(projectFilePath(dir), JSON.stringify(record, null, 2) + '\n')) {
      return { dir, cwd, collidedWith };
    }
    // Another process claimed this folder between our read and our create: look at it again.
    attempt--;
  }
  throw usageError(`too many projects share the encoding ${encoded} under ${root}`);
}

/** Every project folder under the home (for sweep and --all-sessions). */
export async function listProjectDirs(home: string): Promise<string[]> {
  const root = sessionsRoot(home);
  try {
    const entries = await fs.readdir(root, { withFileTypes: true });
    return entries.filter((e) => e.isDirectory() && e.name.startsWith('--')).map((e) => path.join(root, e.name)).sort();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw fsError(err, 'list', root);
  }
}

/** The entries under the home's sessions/ that look like project folders but are links (refused: refuseLinkedFolder). */
export function listProjectLinks(home: string): string[] {
  const root = sessionsRoot(home);
  try {
    return readdirSync(root, { withFileTypes: true }).filter((e) => e.isSymbolicLink() && e.name.startsWith('--')).map((e) => path.join(root, e.name)).sort();
  } catch {
    return [];
  }
}
