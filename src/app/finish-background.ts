// `wmem compact --finish` started detached: what a quick compaction left (its transcript, the
// search indexes), and the indexes a search left for later. Apart from compact.ts so that a
// search, which only starts it, does not load the compaction.
import type { Where } from '../store/session.js';
import { spawnDetached } from '../store/spawn.js';

/**
 * V8's young generation for the finishing run, in MiB per semi-space (Node 20's default grows to
 * 16). The finishing makes short-lived strings for every archived line; with the default, the
 * young generation alone held ~30 MB of pages, and the run's peak RSS on a 58 MB history was
 * 161–179 MB for ~20–40 MB of live data (bench/compact-rss.mjs). 2 MiB keeps it near 140 MB at the
 * same CPU time (bench/README.md).
 */
const FINISH_NODE_FLAGS = ['--max-semi-space-size=2'];

function finishArgs(bin: string, where: Where, sessionId: string): string[] {
  return [...FINISH_NODE_FLAGS, bin, 'compact', '--finish', '--quiet', '--home', where.home, '--cwd', where.cwd, '--session', sessionId];
}

/**
 * Set in the environment of the finishing a quick cut hands to its link check's child: started
 * once the command exits (or a few seconds on, before the commit of one that lives on), it may find a full way holding the lock (minutes on a history of gigabytes)
 * and waits for it; every other `compact --finish` gives up after the lock's usual wait.
 */
export const HANDED_OVER_FINISH = 'WMEM_FINISH_HANDED_OVER';

/** The command line of `wmem compact --finish` for a session (for a quick cut to start itself). */
export function finishCommand(bin: string | undefined, where: Where, sessionId: string): { file: string; args: string[]; env?: NodeJS.ProcessEnv } | undefined {
  return bin ? { file: process.execPath, args: finishArgs(bin, where, sessionId), env: { ...where.env, [HANDED_OVER_FINISH]: '1' } } : undefined;
}

/** Starts `wmem compact --finish` for a session, detached; false when it could not be started. */
export function finishInBackground(bin: string | undefined, where: Where, sessionId: string): boolean {
  if (!bin) return false;
  // Started after the commit (or by a search): the lock's usual wait, not the handed-over one.
  // Without node:child_process where Node allows it (store/spawn.ts): a search's startup would pay for it.
  return spawnDetached(process.execPath, finishArgs(bin, where, sessionId), { env: where.env }) !== undefined;
}

/**
 * Runs `wmem compact --finish` for a session and waits for it (`compact --wait`): the indexing in
 * a process of its own, with the finishing's small young generation, instead of on top of the
 * compaction's heap. False when it could not be run (the caller then indexes in this process).
 */
export function finishInChild(bin: string | undefined, where: Where, sessionId: string): Promise<boolean> {
  if (!bin) return Promise.resolve(false);
  return new Promise((resolve) => {
    try {
      const { spawn } = process.getBuiltinModule('node:child_process');
      const child = spawn(process.execPath, finishArgs(bin, where, sessionId), { stdio: 'ignore', env: where.env });
      child.on('error', () => resolve(false));
      child.on('exit', (code) => resolve(code === 0));
    } catch {
      resolve(false);
    }
  });
}
