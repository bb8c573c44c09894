// `wmem rm SESSION`: deletes a session on purpose. Without `yes`, the host must confirm (it asks
// on a terminal; elsewhere it cannot, and the use case refuses). The folder is first renamed away
// (atomic), so an interrupted delete never leaves a half session behind: `wmem sweep` finishes
// what is left of a `.trash-*` folder.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { withLock } from '../store/fsx.js';
import { assertSessionId, fileStamp, sessionPaths } from '../store/paths.js';
import { locateProject } from '../store/project.js';
import { currentFile, readCurrent } from '../store/session.js';
import { fsError, refusedError, usageError } from '../ui/errors.js';
import type { AppEnv } from './env.js';

export interface RmOptions {
  id: string;
  yes?: boolean;
  /** Asks the user; undefined when nobody can be asked (not on a terminal). */
  confirm?: (question: string) => Promise<boolean>;
}

export interface RmResult {
  id: string;
  path: string;
  files: number;
  deleted: true;
  /** The session folder was a symbolic link: only the link went. */
  link?: true;
}

async function countFiles(dir: string): Promise<number> {
  let n = 0;
  for (const entry of await fs.readdir(dir, { withFileTypes: true, recursive: true }).catch(() => [])) if (entry.isFile()) n++;
  return n;
}

export async function removeSession(options: RmOptions, env: AppEnv): Promise<RmResult> {
  const id = assertSessionId(options.id, 'the command line');
  const project = await locateProject(env.home, env.cwd, { create: false });
  const paths = project ? sessionPaths(project.dir, id) : undefined;
  const present = paths ? await fs.stat(paths.dir).then((s) => s.isDirectory(), () => false) : false;
  if (!project || !paths || !present) {
    throw usageError(`no session ${id} for ${project?.cwd ?? env.cwd}`, "run 'wmem sessions' to list them");
  }
  // A session folder that is a link (planted, or made by hand) goes as a link: wmem never
  // lists, locks or deletes what it points to.
  if ((await fs.lstat(paths.dir)).isSymbolicLink()) return removeLink(id, paths.dir, project.dir, options);
  const files = await countFiles(paths.dir);
  if (!options.yes) {
    if (!options.confirm) throw usageError(`deleting session ${id} (${files} files in ${paths.dir}) needs --yes when not on a terminal`);
    if (!(await options.confirm(`delete session ${id} and its ${files} files in ${paths.dir}? [y/N] `))) {
      throw refusedError(`kept session ${id}: nothing was deleted`);
    }
  }
  const trash = path.join(project.dir, `.trash-${id}-${fileStamp(env.now())}`);
  // Wait for any command working on the session, then move it away in one step.
  await withLock(paths.dir, async () => {}, { waitMs: 30_000 });
  try {
    await fs.rename(paths.dir, trash);
  } catch (err) {
    throw fsError(err, 'move away', paths.dir);
  }
  if ((await readCurrent(project.dir)) === id) await fs.unlink(currentFile(project.dir)).catch(() => {});
  try {
    await fs.rm(trash, { recursive: true, force: true });
  } catch (err) {
    throw fsError(err, 'delete', trash);
  }
  return { id, path: paths.dir, files, deleted: true };
}

async function removeLink(id: string, link: string, projectDir: string, options: RmOptions): Promise<RmResult> {
  if (!options.yes) throw usageError(`session ${id} is a symbolic link (${link}); removing the link needs --yes`, 'the folder it points to is left alone');
  try {
    await fs.unlink(link);
  } catch (err) {
    throw fsError(err, 'delete', link);
  }
  if ((await readCurrent(projectDir)) === id) await fs.unlink(currentFile(projectDir)).catch(() => {});
  return { id, path: link, files: 0, deleted: true, link: true };
}
