// Compaction of messages.jsonl (docs/compaction.md), streaming, lossless and crash-safe. (The lossless
// archiving of an agent's own transcript, for Claude Code's PreCompact hook, is re-exported from
// archive-transcript.ts.)
//
// Protocol (all under the session lock). A compaction replaces the prefix [0, A) of
// messages.jsonl by one marker line plus R bytes (R = 0 for a plain cut; the rewritten lines for
// --target tools/all). Steps:
//   1. recover (journal.ts): a journal left in state/ by a killed run is resolved first, and temp
//      files of dead wmem processes are removed.
//   2. plan (plan.ts): read backwards from the end, parsing only the kept part, to find the cut
//      (at a turn, or inside one at a step: that turn's opening line is then repeated after the
//      marker, as replacement bytes that restore drops).
// Steps 3-8 are the full way (full-cut.ts); a plain cut of a long history may go the quick way
// instead (quick-cut.ts), with its own protocol.
//   3. the journal (state/compaction.json) is written, naming every temp file this run may create.
//   4. pass 2 streams [0, cut) once: the readable transcript, the summary's facts, the pruned
//      replacement lines (tools/all), and a check that no line before the cut is linked to one
//      after it (if one is, an exact forward plan replaces the quick one and pass 2 restarts).
//   5. the archive temp: a kernel copy of the file cut at A, fsynced, hashed. The summarizer runs
//      on the transcript. Any failure up to here deletes the temps: nothing changed.
//   6. the new messages.jsonl is built in a temp (marker + R + [A, end)) and fsynced; the journal
//      is rewritten to name the final files; the archive and detail files are linked to their
//      final names (folder fsynced). From here the archive holds [0, A) durably.
//   7. COMMIT: rename(temp, messages.jsonl). Before it the old file is whole; after it the
//      archive (durable since step 6) holds [0, A) byte for byte. At no instant is a line only in
//      a file that may vanish.
//   8. overview.md gets its index and recent lines; the journal is removed.
// Recovery: if messages.jsonl starts with the journal's marker, the rename happened, so step 8 is
// finished; otherwise the run never committed and its files are deleted (messages.jsonl still
// holds every line). Either way a rerun then compacts normally.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { exists, resolveInside, withLock } from '../../store/fsx.js';
import type { Session } from '../../store/session.js';
import { usageError, fsError } from '../../ui/errors.js';
import { planFromTail, type CutPlan, type NoCut } from './plan.js';
import { fileIdentity, finishCommitted, journalPath, recoverCompaction, type FileIdentity } from './journal.js';
import { QUICK_CUT_BYTES, quickCut } from './quick-cut.js';
import { Progress } from './pass.js';
import { removeSessionLeftovers } from '../stream/leftovers.js';
import { fullCut } from './full-cut.js';

export type { CompactTarget, CompactStrategy, CompactOptions, CompactEnv, CompactCounts, CompactResult } from './types.js';
import type { CompactOptions, CompactEnv, CompactResult, CompactCounts } from './types.js';

/** Resolves --archive-to inside working-memory/ (relative, or absolute but inside); never an existing file. */
export async function resolveArchiveTo(session: Session, archiveTo: string): Promise<string> {
  const root = session.paths.workingMemory;
  let relative = archiveTo;
  if (path.isAbsolute(archiveTo)) {
    const rel = path.relative(root, path.resolve(archiveTo));
    if (!rel || rel.startsWith('..') || path.isAbsolute(rel)) {
      throw usageError(`--archive-to ${archiveTo} is outside ${root}`, 'give a path inside working-memory/, e.g. archive/before-refactor.jsonl');
    }
    relative = rel;
  }
  let target: string;
  try {
    target = await resolveInside(root, relative, '--archive-to');
  } catch (err) {
    throw usageError(`${(err as Error).message}`, 'give a path inside working-memory/, e.g. archive/before-refactor.jsonl');
  }
  if (target === root || path.basename(target) === 'overview.md' || path.basename(target) === 'scratch.md') {
    throw usageError(`--archive-to ${archiveTo} names a memory file, not an archive`, 'give a new file name, e.g. archive/before-refactor.jsonl');
  }
  if (await exists(target)) throw usageError(`--archive-to ${archiveTo} already exists (${target})`, 'give a new file name; wmem never overwrites an archive');
  return target;
}

/** Why nothing is cut: what the history holds against what is kept. */
function nothingToCut(found: NoCut, keepRecent: number, keepSteps: number): string {
  const turns = `${found.turns} turn${found.turns === 1 ? '' : 's'}`;
  if (!Number.isFinite(keepSteps)) return `${turns}, keeping the last ${keepRecent}`;
  return `${turns}, ${found.steps} step${found.steps === 1 ? '' : 's'}; keeping the last ${keepRecent} turn${keepRecent === 1 ? '' : 's'} and at most ${keepSteps} step${keepSteps === 1 ? '' : 's'}`;
}

function emptyCounts(): CompactCounts {
  return { linesBefore: 0, linesArchived: 0, messagesArchived: 0, turnsBefore: 0, turnsArchived: 0, turnsKept: 0, stepsKept: 0, bytesBefore: 0, bytesArchived: 0, toolOutputsPruned: 0, linesAfter: 0 };
}

/**
 * Compacts the session's messages.jsonl (see the protocol above). Takes the session lock itself
 * (waits up to 60 s for another wmem process, then fails clearly); do not call it while holding it.
 */
export async function compactSession(session: Session, options: CompactOptions, env: CompactEnv): Promise<CompactResult> {
  const { target, strategy, keepRecent, keepSteps } = options;
  if (!Number.isInteger(keepRecent) || keepRecent < 0) throw usageError(`--keep-recent must be a whole number ≥ 0, not ${keepRecent}`);
  if (keepSteps !== undefined && (!Number.isInteger(keepSteps) || keepSteps < 1)) throw usageError(`--keep-steps must be a whole number ≥ 1, not ${keepSteps}`);
  if (!['conversation', 'tools', 'all'].includes(target)) throw usageError(`--target must be conversation, tools or all, not ${JSON.stringify(target)}`);
  if (!['archive', 'summarize'].includes(strategy)) throw usageError(`--strategy must be archive or summarize, not ${JSON.stringify(strategy)}`);
  if (options.summarizer !== undefined && !options.summarizer.trim()) throw usageError('--summarizer is empty', 'give a shell command that reads the transcript on stdin and prints a summary');
  const archiveTo = options.archiveTo !== undefined ? await resolveArchiveTo(session, options.archiveTo) : undefined;
  if (target === 'tools' && strategy === 'summarize') env.warn('wmem: --strategy summarize has no effect with --target tools (no turns are removed)');
  if (options.summarizer !== undefined && strategy !== 'summarize') env.warn('wmem: --summarizer is used only with --strategy summarize; no summary is written');

  // A run held up past the lock's stale threshold (a loaded machine, a long synchronous pass) can
  // lose the lock to a waiting wmem (the background finishing of a run killed before); it committed
  // nothing since (assertLocksHeld), so it starts again afresh, recovery first, as a rerun would.
  const retry = { retryOnLostLock: 2, warn: env.warn };
  return withLock(session.paths.dir, async () => {
    // A dry run changes nothing, not even an interrupted run's leftovers (the next real run resolves them).
    const pending = options.dryRun && (await exists(journalPath(session)));
    if (pending) env.warn('wmem: an interrupted compaction is pending; the next real run resolves it first');
    const recovered = options.dryRun ? undefined : await recoverCompaction(session, env);
    if (!options.dryRun) await removeSessionLeftovers(session);
    const result = await compactLocked(session, options, env, archiveTo);
    return recovered ? { ...result, recovered } : result;
  }, retry);
}

async function compactLocked(session: Session, options: CompactOptions, env: CompactEnv, archiveTo: string | undefined): Promise<CompactResult> {
  const { target, strategy, keepRecent } = options;
  const keepSteps = options.keepSteps ?? Infinity;
  const file = session.paths.messages;
  const base: CompactResult = { session: session.id, dryRun: Boolean(options.dryRun), compacted: false, target, strategy, keepRecent, ...(options.keepSteps !== undefined ? { keepSteps: options.keepSteps } : {}), details: [], counts: emptyCounts() };
  let size: number;
  let identity: FileIdentity;
  try {
    const st = await fs.stat(file);
    size = st.isFile() ? st.size : -1;
    identity = fileIdentity(st);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { ...base, reason: `${file} does not exist: nothing to compact` };
    throw fsError(err, 'read', file);
  }
  if (size < 0) throw usageError(`${file} is not a file`, 'messages.jsonl must be a file of JSON lines; move whatever is there aside');
  if (size === 0) return { ...base, reason: 'messages.jsonl is empty: nothing to compact' };
  const progress = new Progress(Boolean(env.progress), size);
  const nothing = (found: NoCut, why?: string): CompactResult => {
    progress.end();
    return { ...base, counts: { ...emptyCounts(), linesBefore: found.lines, linesAfter: found.lines, bytesBefore: size, turnsBefore: found.turns, turnsKept: found.turns, stepsKept: found.steps }, reason: `nothing to compact (${why ?? nothingToCut(found, keepRecent, keepSteps)})` };
  };

  const plan = await planFromTail(file, size, keepRecent, keepSteps);
  if (!('cut' in plan)) return nothing(plan);
  const quickAllowed = target === 'conversation' && strategy === 'archive' && !options.dryRun && plan.turnBefore && plan.cut >= (options.quickFrom ?? QUICK_CUT_BYTES);
  const quick = quickAllowed ? await quickWay(session, plan, { options, env, archiveTo, size, base, progress }) : undefined;
  return quick ?? fullCut(session, plan, { options, env, archiveTo, size, identity, base, progress, nothing });
}

/**
 * A plain cut of a long history the quick way (quick-cut.ts), its finishing done now or left to
 * the background; undefined (nothing changed) when it steps aside for the full way.
 */
async function quickWay(session: Session, plan: CutPlan, ctx: { options: CompactOptions; env: CompactEnv; archiveTo?: string; size: number; base: CompactResult; progress: Progress }): Promise<CompactResult | undefined> {
  const { options, env, progress } = ctx;
  const quick = await quickCut(session, plan, { now: env.now(), archiveTo: ctx.archiveTo, progress, finish: options.wait ? undefined : env.finishCommand, finishStarted: env.finishStarted });
  if (!quick) return undefined;
  const counts: CompactCounts = { ...emptyCounts(), linesBefore: null, linesArchived: null, messagesArchived: null, turnsBefore: null, turnsArchived: null, turnsKept: plan.tailTurns, stepsKept: plan.tailSteps, bytesBefore: ctx.size, bytesArchived: plan.cut, linesAfter: plan.tailLines + 1 + (plan.opening ? 1 : 0) };
  let finishing: CompactResult['finishing'] = 'background';
  if (options.wait || !env.finishLater?.()) {
    progress.stage('writing the readable transcript');
    const archived = await finishCommitted(session, quick.journal, env);
    if (archived) Object.assign(counts, { linesArchived: archived.lines, linesBefore: archived.lines + plan.tailLines, messagesArchived: archived.messages, turnsArchived: archived.turns, turnsBefore: archived.turns + plan.tailTurns });
    finishing = 'done';
  }
  progress.end();
  return { ...ctx.base, compacted: true, ...(plan.opening ? { cutInsideTurn: true } : {}), archive: quick.archiveRel, archivePath: quick.archive, details: [quick.transcriptRel], counts, finishing, recentLine: quick.journal.recentLine || undefined };
}

export { archiveTranscript } from './archive-transcript.js';
export { recoverCompaction } from './journal.js';
