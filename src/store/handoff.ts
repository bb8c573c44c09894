// The handoff on disk: finding the project's most recently active other session with real content,
// and reading its memory safely (no links followed, size-capped). The block a new session gets is
// frozen in its meta.json (`handoff`), written once at its creation and read by every prompt with
// the rest of meta.json: the same bytes each time, and no file of its own to write or read.
import { lstatSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { readCapped, withLock } from './fsx.js';
import { isValidSessionId, sessionPaths, type SessionPaths } from './paths.js';
import { readMeta, writeMeta, type SessionMeta } from './session.js';
import type { ProjectRef } from './project.js';

/** An overview larger than this is not a handoff source (a broken or runaway file). */
export const MAX_SOURCE_OVERVIEW_BYTES = 256 * 1024;
/** How much of scratch.md's end is read for the notes not yet consolidated. */
const SCRATCH_TAIL_BYTES = 32 * 1024;

function isLink(file: string): boolean {
  try {
    return lstatSync(file).isSymbolicLink();
  } catch {
    return false;
  }
}

function mtimeOf(file: string): number {
  try {
    return lstatSync(file).mtimeMs;
  } catch {
    return -1;
  }
}

/** When a session last wrote its memory or hook state; -1 when it cannot be a source (links). */
function lastActive(projectDir: string, id: string): number {
  const paths = sessionPaths(projectDir, id);
  if ([paths.dir, paths.workingMemory, paths.overview, paths.scratch, paths.stateDir].some(isLink)) return -1;
  let newest = Math.max(mtimeOf(paths.overview), mtimeOf(paths.scratch));
  let names: string[] = [];
  try {
    names = readdirSync(paths.stateDir).filter((n) => n.endsWith('-hooks.json'));
  } catch {
    /* no state yet */
  }
  for (const name of names) newest = Math.max(newest, mtimeOf(path.join(paths.stateDir, name)));
  return newest;
}

/** The project's other sessions, most recently active first. */
export function sessionsByActivity(project: ProjectRef, selfId: string): { id: string; lastActiveMs: number }[] {
  let names: string[];
  try {
    names = readdirSync(project.dir, { withFileTypes: true })
      .filter((d) => d.isDirectory() && d.name !== selfId && isValidSessionId(d.name))
      .map((d) => d.name);
  } catch {
    return [];
  }
  return names
    .map((id) => ({ id, lastActiveMs: lastActive(project.dir, id) }))
    .filter((s) => s.lastActiveMs >= 0)
    .sort((a, b) => b.lastActiveMs - a.lastActiveMs || b.id.localeCompare(a.id));
}

/** The raw memory of one candidate: its overview text and the end of its scratch.md. */
export interface CandidateFiles {
  id: string;
  lastActiveMs: number;
  overviewPath: string;
  overview: string;
  scratchTail: string;
}

/** Reads a candidate's files; undefined when its overview is missing, a link or too large. */
export function readCandidate(project: ProjectRef, candidate: { id: string; lastActiveMs: number }): CandidateFiles | undefined {
  const paths = sessionPaths(project.dir, candidate.id);
  const overview = readCapped(paths.overview, MAX_SOURCE_OVERVIEW_BYTES);
  if (overview === undefined) return undefined;
  return { ...candidate, overviewPath: paths.overview, overview, scratchTail: readCapped(paths.scratch, SCRATCH_TAIL_BYTES, true) ?? '' };
}

/** The frozen block of a session's meta.json, or undefined. */
export function frozenHandoff(meta: SessionMeta | undefined): string | undefined {
  return typeof meta?.handoff === 'string' && meta.handoff.trim() ? meta.handoff : undefined;
}

/** The session no longer shows the block (it has its own memory now): meta.json without it. */
export async function dropHandoff(paths: SessionPaths): Promise<void> {
  // Read first without the lock: most sessions hold no block (a compaction's hook, waited on,
  // then takes no lock for nothing); one that does is read again under it.
  if ((await readMeta(paths).catch(() => undefined))?.handoff === undefined) return;
  await withLock(paths.dir, async () => {
    const meta = await readMeta(paths).catch(() => undefined);
    if (!meta || meta.handoff === undefined) return;
    const { handoff: _dropped, ...rest } = meta;
    await writeMeta(paths, rest as SessionMeta);
  });
}
