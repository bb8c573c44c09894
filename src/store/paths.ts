// Pure naming rules: the home, the project folder encoding and session ids (docs/layout.md).
import os from 'node:os';
import path from 'node:path';
import { usageError } from '../ui/errors.js';
import { isoTime } from '../ui/time.js';
import { findSecret } from '../memory/gate.js';
import { homeFrom, isValidSessionId, joinName, RESERVED_SESSION_IDS } from './names.js';

export { encodeCwd, isValidSessionId, joinName, RESERVED_SESSION_IDS } from './names.js';

export function resolveHome(flag: string | undefined, env: NodeJS.ProcessEnv): string {
  if (flag !== undefined && flag.trim() === '') throw usageError('--home is empty', 'give a folder, or leave --home out to use $WMEM_HOME or ~/.ai');
  return homeFrom(flag, env);
}

/** The folder names a project may live in, in order: the plain encoding, then numbered variants. */
export function projectFolderCandidate(encoded: string, attempt: number): string {
  // A numbered name ends in a digit, never in `--`, so it can never be another path's plain encoding.
  return attempt === 0 ? encoded : `${encoded}${attempt + 1}`;
}

export function assertSessionId(id: string, source: string): string {
  const secret = findSecret(id);
  // Ids are shown in paths, listings and injected text: one shaped like a secret is never echoed.
  if (secret) throw usageError(`the session id from ${source} looks like ${secret.kind}; refused (it is not shown)`, 'use an id that is not a credential');
  if (!isValidSessionId(id)) {
    throw usageError(
      `invalid session id ${JSON.stringify(id)} (from ${source})`,
      `a session id is 1-128 characters of A-Z a-z 0-9 . _ - (not ".", "..", ${[...RESERVED_SESSION_IDS].map((r) => `"${r}"`).join(', ')}, nor ending in .tmp or .lock); omit it to let wmem generate one`,
    );
  }
  return id;
}

/** Ids sort by creation time: `20261123T083012345Z-3f9a1c`. */
export function newSessionId(now: Date): string {
  const stamp = fileStamp(now);
  const random = Buffer.from(globalThis.crypto.getRandomValues(new Uint8Array(3))).toString('hex');
  return `${stamp}-${random}`;
}

/** A file-name-safe UTC stamp for archives and detail files: `20261123T083012345Z`. */
export function fileStamp(now: Date): string {
  return isoTime(now).replace(/[-:]/g, '').replace('.', '');
}

/** A compaction's journal in the session's state/ (history/compaction/journal.ts); named here so the store can see one is pending. */
export const COMPACTION_JOURNAL = 'compaction.json';

export interface SessionPaths {
  dir: string;
  messages: string;
  meta: string;
  stateDir: string;
  workingMemory: string;
  overview: string;
  scratch: string;
  detailDir: string;
  archiveDir: string;
}

export function sessionPaths(projectDir: string, id: string): SessionPaths {
  const dir = joinName(projectDir, id);
  const workingMemory = joinName(dir, 'working-memory');
  return {
    dir,
    messages: joinName(dir, 'messages.jsonl'),
    meta: joinName(dir, 'meta.json'),
    stateDir: joinName(dir, 'state'),
    workingMemory,
    overview: joinName(workingMemory, 'overview.md'),
    scratch: joinName(workingMemory, 'scratch.md'),
    detailDir: joinName(workingMemory, 'detail'),
    archiveDir: joinName(workingMemory, 'archive'),
  };
}

// Where the files besides a session's own that its memory part is rendered from live: every
// prompt signs them (app/context-inputs.ts), so they are named here, apart from the modules that
// read and write them (store/hot-state.ts, store/workspace.ts, store/team.ts), which a prompt
// whose memory is unchanged does not load.

/** A session's hot state (store/hot-state.ts). */
export function hotStatePath(stateDir: string): string {
  return joinName(stateDir, 'hot.json');
}

/** A project folder's record of the working directory it belongs to (store/project.ts). */
export function projectFilePath(projectDir: string): string {
  return joinName(projectDir, 'project.json');
}

/** The team memory's composed workspace block, cached in the project folder (store/team.ts). */
export function teamCachePath(projectDir: string): string {
  return joinName(projectDir, 'team-cache.json');
}

/** A project's workspace memory (store/workspace.ts). */
export function workspaceFilePath(projectDir: string): string {
  return joinName(projectDir, 'workspace-memory.json');
}

/** The team memory file, at a repository's root (memory/team.ts, docs/team.md). */
export const TEAM_FILE = '.wmem/memory.md';

export function teamFilePath(root: string): string {
  return path.join(root, TEAM_FILE);
}
