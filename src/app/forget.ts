// Use case `forget`: removes a workspace memory entry; a shared one's line goes from the team file
// too (the teammates see that after they pull).
import type { AppEnv } from './env.js';
import { usageError } from '../ui/errors.js';
import { projectDirOf } from './remember.js';

export interface ForgetOptions {
  id: string;
}

export interface ForgetResult {
  file: string;
  removed: { id: string; text?: string };
  unshared: number;
  /** Only the team file held it (commit that file). */
  teamOnly: boolean;
  teamFile: string | null;
}

export async function forget(options: ForgetOptions, env: AppEnv): Promise<ForgetResult> {
  const id = options.id.trim();
  if (!id) throw usageError('forget needs an id', "run 'wmem memories' to list them");
  const dir = await projectDirOf(env, false);
  const { readWorkspaceSync, removeWorkspaceEntry, workspaceFilePath } = await import('../store/workspace.js');
  const { findRepoRootSync, removeShared, teamFilePath } = await import('../store/team.js');
  const root = findRepoRootSync(env.cwd);
  const teamFile = root ? teamFilePath(root) : null;
  const isPrivate = dir ? readWorkspaceSync(dir).entries.some((e) => e.id === id) : false;
  const unshared = root ? await removeShared(root, id) : 0;
  if (!isPrivate && unshared) return { file: teamFile!, removed: { id }, unshared, teamOnly: true, teamFile };
  if (!dir) throw usageError(`no workspace memory entry ${JSON.stringify(id)}: the project ${env.cwd} has no memory yet`);
  const removed = await removeWorkspaceEntry(dir, id);
  return { file: workspaceFilePath(dir), removed, unshared, teamOnly: false, teamFile };
}
