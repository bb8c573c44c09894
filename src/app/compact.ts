// Use case `compact`: moves old history out of messages.jsonl, losslessly (src/history/compaction/compact.ts
// does the work). A quick cut of a long history returns once the archive is safe and leaves its
// readable transcript and overview lines to `wmem compact --finish`, which the caller's
// `startFinish` starts in the background; that run only finishes what the journal says is left.
import { resolveSession, type Session, type Where } from '../store/session.js';
import type { AppEnv } from './env.js';
import { withLock } from '../store/fsx.js';
import { compactSession, recoverCompaction, type CompactOptions, type CompactResult } from '../history/compaction/compact.js';
import { logHook } from '../agents/hook-log.js';
import { HANDED_OVER_FINISH } from './finish-background.js';

export interface CompactUseOptions {
  /** What to cut and how; every option of src/history/compaction/compact.ts passes through. */
  compact: CompactOptions;
  /** Show progress on stderr. */
  progress?: boolean;
  /** Starts `wmem compact --finish` for the session, detached; false when it could not. */
  startFinish: (session: Session) => boolean;
  /**
   * The command line of `wmem compact --finish` for the session: a quick cut starts it itself, in
   * its link check's child, once the command has exited (src/history/stream/grep-check.ts).
   */
  finishCommand?: (session: Session) => { file: string; args: string[]; env?: NodeJS.ProcessEnv } | undefined;
  /**
   * `--wait`: runs `wmem compact --finish` for the session in a process of its own and waits for
   * it (the search indexes, with a smaller heap than this process has by then); false when it
   * could not, and the indexes are built here.
   */
  finishNow?: (session: Session) => Promise<boolean>;
}

/** How long `--finish` waits for the lock: a full way of a history of gigabytes may hold it minutes. */
const FINISH_WAIT_MS = 30 * 60_000;

/** Archives at least this large are indexed for search when the compaction finishes. */
const INDEX_AHEAD_BYTES = 1_000_000;

export async function compactMemory(options: CompactUseOptions, env: AppEnv): Promise<CompactResult> {
  const session = await resolveSession(env);
  const { wait } = options.compact;
  const warn = env.warn ?? (() => {});
  // One finishing per run: a quick cut may have started it already, even one that then stepped
  // aside for the full way (it then finds nothing to finish but the search index).
  let started = false;
  const result = await compactSession(session, options.compact, {
    now: env.now,
    warn,
    progress: options.progress,
    finishLater: wait ? undefined : () => started || options.startFinish(session),
    finishCommand: wait ? undefined : options.finishCommand?.(session),
    finishStarted: () => {
      started = true;
    },
  });
  if (result.archive && !result.dryRun && result.finishing !== 'background' && result.counts.bytesArchived >= INDEX_AHEAD_BYTES) {
    // The full way (or --wait) is done: the search index of a large archive is the last of it,
    // in the background unless the caller asked to wait for everything. A small one is indexed
    // by the first search in a few milliseconds.
    if (wait) {
      if (!(await options.finishNow?.(session))) await indexForSearch(session).catch((err) => warn(`the search index was not updated: ${(err as Error).message}`));
    }
    else if (!started) options.startFinish(session);
  }
  return result;
}

/**
 * `--finish`: what a quick cut left, under the lock. Failures are logged, never shown (a detached
 * run has nobody to show them to); false tells `compact --wait`, which waits on this run as a
 * child, to index in its own process instead.
 */
export async function finishCompaction(env: AppEnv): Promise<boolean> {
  try {
    const session = await resolveSession(env);
    // Started by a quick cut's check (a few seconds on at the latest), it may wait out a full way that took over.
    const handedOver = env.env[HANDED_OVER_FINISH] === '1';
    await withLock(session.paths.dir, () => recoverCompaction(session, { warn: () => {} }), handedOver ? { waitMs: FINISH_WAIT_MS } : {});
    await indexForSearch(session);
    return true;
  } catch (err) {
    await logHook(env.home, env.now(), 'compact --finish', 'error', (err as Error).message).catch(() => {});
    return false;
  }
}

/** The search index of the new archive, so the first `wmem search` after a compaction is quick. */
async function indexForSearch(session: Session): Promise<void> {
  const { indexSession } = await import('../store/search-corpus.js');
  await indexSession(session.id, session.paths);
}

export { finishCommand, finishInBackground, finishInChild } from './finish-background.js';
