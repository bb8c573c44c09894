// Every file `wmem context` reads for a session, for the answer cache (store/answers.ts): each
// signed before it is read, so that a write after the signature is a miss next time, never a
// stale answer. Missing files are listed too: their appearing changes the answer. The render cache
// (state/context-cache.json) is not: it is derived from these files and checked against them.
import path from 'node:path';
import type { Session } from '../store/session.js';
import { presence, signInputs, signPresence, type Signature } from '../store/answers.js';
import { hookStateFile } from '../store/hook-state.js';
import { offFile } from '../store/switch.js';
import { hotStatePath, projectFilePath, teamCachePath, teamFilePath, workspaceFilePath } from '../store/paths.js';
import { AGENT_NAMES } from '../agents/lookup.js';
import { readStateSync } from '../store/regular-file.js';

/**
 * The `.git` looked for in each folder up to the repository's root (only whether each is there
 * counts, as for store/team.ts findRepoRootSync), each with the presence found, and the root's team
 * file and its folder: the walk's own answers are the signatures (one lstat each, not two).
 */
function teamInputs(projectCwd: string): { present: [string, Signature][]; files: string[] } {
  const present: [string, Signature][] = [];
  for (let dir = path.resolve(projectCwd); ; dir = path.dirname(dir)) {
    const git = path.join(dir, '.git');
    const there = presence(git);
    present.push([git, there]);
    if (there !== '-') return { present, files: [path.dirname(teamFilePath(dir)), teamFilePath(dir)] };
    if (path.dirname(dir) === dir) return { present, files: [] };
  }
}

/** The transcript a hook state names (read on by `wmem context` from the hooks' cursor). */
function transcriptOf(stateFile: string): string | undefined {
  try {
    const file = (JSON.parse(readStateSync(stateFile) ?? '{}') as { transcript?: { path?: unknown } }).transcript?.path;
    return typeof file === 'string' && file ? file : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The files the memory part is rendered from (app/context-memory.ts: overview.md, scratch.md, the
 * hot state, workspace and team memory), and the `.git` folders whose presence decides the team file.
 */
function memoryInputs(session: Session): { files: string[]; present: [string, Signature][] } {
  const { paths, project } = session;
  const team = teamInputs(project.cwd);
  return { files: [workspaceFilePath(project.dir), teamCachePath(project.dir), paths.overview, paths.scratch, hotStatePath(paths.stateDir), ...team.files], present: team.present };
}

/** The memory part's own files signed (app/context.ts recalls the part while they are unchanged). */
export function signMemoryInputs(session: Session): [string, Signature][] {
  const { files, present } = memoryInputs(session);
  return [...signInputs(files), ...present];
}

export function signContextInputs(session: Session): [string, Signature][] {
  const { paths, project } = session;
  const hookStates = signInputs(AGENT_NAMES.map((a) => hookStateFile(paths.stateDir, a.id)));
  const transcripts = hookStates.map(([file]) => transcriptOf(file)).filter((f): f is string => f !== undefined);
  const memory = memoryInputs(session);
  const files = [projectFilePath(project.dir), paths.dir, paths.workingMemory, paths.meta, paths.messages, ...memory.files];
  return [...hookStates, ...signInputs([...files, ...transcripts]), ...signPresence([offFile(project.dir)]), ...memory.present];
}
