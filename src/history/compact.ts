// Compaction of messages.jsonl (SPEC §5), streaming, lossless and crash-safe. (The lossless
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
import { createHash, type Hash } from 'node:crypto';
import { promises as fs, constants as fsConstants } from 'node:fs';
import path from 'node:path';
import { FILE_MODE, atomicWrite, ensureDir, exists, resolveInside, withLock } from '../store/fsx.js';
import { fileStamp } from '../store/paths.js';
import type { Session } from '../store/session.js';
import { detailFrontMatter, detailIndexLine } from '../store/detail.js';
import { ioError, usageError, fsError } from '../ui/errors.js';
import { SummaryCollector } from './summary.js';
import { markerLine, openingNote, type CompactionMarker } from './marker.js';
import { planFromStart, planFromTail, type NoCut } from './plan.js';
import { fileIdentity, finishCommitted, journalPath, recoverCompaction, updateOverview, type FileIdentity, type Journal } from './journal.js';
import { QUICK_CUT_BYTES, quickCut } from './quick-cut.js';
import { Progress, archivedRecentLine, fillSlots, firstLineOf, rel, scanRegion, startTranscript, transcriptTitle, type ScanState, type Sinks } from './pass.js';
import { DurableFile, freeName, linkInto, tempFor } from './durable.js';
import { SETTLE_MS, replaceKeepingAppends } from './swap.js';
import { removeSessionLeftovers } from './leftovers.js';
import { redactSecrets } from '../memory/gate.js';

const MAX_HEADER_SUMMARY = 6000;

export type CompactTarget = 'conversation' | 'tools' | 'all';
export type CompactStrategy = 'archive' | 'summarize';

export interface CompactOptions {
  target: CompactTarget;
  strategy: CompactStrategy;
  keepRecent: number;
  /** At most this many steps kept (SPEC §5); no limit when absent. */
  keepSteps?: number;
  /** Archive file, relative to working-memory/ (or absolute inside it). */
  archiveTo?: string;
  /** Shell command: the transcript on stdin, the summary on stdout. */
  summarizer?: string;
  timeoutMs?: number;
  dryRun?: boolean;
  /** Finish a quick cut (its transcript and overview lines) before returning, never in the background. */
  wait?: boolean;
  /** Archived bytes from which a plain cut goes the quick way (default QUICK_CUT_BYTES; tests lower it). */
  quickFrom?: number;
}

export interface CompactEnv {
  now(): Date;
  warn(msg: string): void;
  /** Show progress on stderr (only when it is a terminal and not --json). */
  progress?: boolean;
  /**
   * Called, under the lock, after a quick cut commits: true when it has started something that
   * finishes it (the transcript, the overview lines) in the background. Otherwise, or when
   * absent, the finishing is done before compactSession returns.
   */
  finishLater?: () => boolean;
}

/** Counts of a compaction; null where a quick cut leaves the counting to its finishing. */
export interface CompactCounts {
  linesBefore: number | null;
  linesArchived: number | null;
  messagesArchived: number | null;
  turnsBefore: number | null;
  turnsArchived: number | null;
  turnsKept: number;
  /** Steps in the kept part (null where a quick cut's count is not known). */
  stepsKept: number | null;
  bytesBefore: number;
  bytesArchived: number;
  toolOutputsPruned: number;
  linesAfter: number;
}

export interface CompactResult {
  session: string;
  dryRun: boolean;
  compacted: boolean;
  /** Why nothing was done, when compacted is false. */
  reason?: string;
  target: CompactTarget;
  strategy: CompactStrategy;
  keepRecent: number;
  keepSteps?: number;
  /** The cut fell inside a turn: its opening message is repeated after the marker. */
  cutInsideTurn?: boolean;
  /** Archive path relative to working-memory/, and absolute. */
  archive?: string;
  archivePath?: string;
  /** Detail files written, relative to working-memory/. */
  details: string[];
  counts: CompactCounts;
  /** The summary (strategy summarize), and the line added to Recent Actions. */
  summary?: string;
  recentLine?: string;
  /** What recovery did with an interrupted earlier run, if anything. */
  recovered?: string;
  /** A quick cut: its transcript and overview lines are being written in the background, or were written before returning. */
  finishing?: 'background' | 'done';
}

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

  return withLock(session.paths.dir, async () => {
    // A dry run changes nothing, not even an interrupted run's leftovers (the next real run resolves them).
    const pending = options.dryRun && (await exists(journalPath(session)));
    if (pending) env.warn('wmem: an interrupted compaction is pending; the next real run resolves it first');
    const recovered = options.dryRun ? undefined : await recoverCompaction(session, env);
    if (!options.dryRun) await removeSessionLeftovers(session);
    const result = await compactLocked(session, options, env, archiveTo);
    return recovered ? { ...result, recovered } : result;
  });
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

  let plan = await planFromTail(file, size, keepRecent, keepSteps);
  if (!('cut' in plan)) return nothing(plan);
  if (target === 'conversation' && strategy === 'archive' && !options.dryRun && plan.turnBefore && plan.cut >= (options.quickFrom ?? QUICK_CUT_BYTES)) {
    const quick = await quickCut(session, plan, { now: env.now(), archiveTo, progress });
    if (quick) {
      const counts: CompactCounts = { ...emptyCounts(), linesBefore: null, linesArchived: null, messagesArchived: null, turnsBefore: null, turnsArchived: null, turnsKept: plan.tailTurns, stepsKept: plan.tailSteps, bytesBefore: size, bytesArchived: plan.cut, linesAfter: plan.tailLines + 1 + (plan.opening ? 1 : 0) };
      let finishing: CompactResult['finishing'] = 'background';
      if (options.wait || !env.finishLater?.()) {
        progress.stage('writing the readable transcript');
        const archived = await finishCommitted(session, quick.journal, env);
        if (archived) Object.assign(counts, { linesArchived: archived.lines, linesBefore: archived.lines + plan.tailLines, messagesArchived: archived.messages, turnsArchived: archived.turns, turnsBefore: archived.turns + plan.tailTurns });
        finishing = 'done';
      }
      progress.end();
      return { ...base, compacted: true, ...(plan.opening ? { cutInsideTurn: true } : {}), archive: quick.archiveRel, archivePath: quick.archive, details: [quick.transcriptRel], counts, finishing, recentLine: quick.journal.recentLine || undefined };
    }
  }
  const removesTurns = target !== 'tools';
  const now = env.now();
  const stamp = fileStamp(now);
  const archiveFinal = archiveTo ?? (await freeName(session.paths.archiveDir, `messages-${stamp}`, '.jsonl'));
  const archiveRel = rel(session, archiveFinal);
  const id = `${stamp}-${path.basename(archiveFinal)}`;
  const transcriptFinal = removesTurns ? await freeName(session.paths.detailDir, `${stamp}-conversation`, '.md') : undefined;
  const summaryFinal = removesTurns && strategy === 'summarize' ? await freeName(session.paths.detailDir, `${stamp}-summary`, '.md') : undefined;
  const toolsFinal = target !== 'conversation' ? await freeName(session.paths.detailDir, `${stamp}-tool-outputs`, '.md') : undefined;
  const archiveTemp = tempFor(archiveFinal, stamp);
  const replacedTemp = path.join(session.paths.stateDir, `.compact-${stamp}.${process.pid}.replaced.tmp`);
  const messagesTemp = tempFor(file, stamp);
  const summaryTemp = summaryFinal ? tempFor(summaryFinal, stamp) : undefined;
  const dry = Boolean(options.dryRun);

  const journal: Journal = {
    version: 1,
    id,
    pid: process.pid,
    startedAt: now.toISOString(),
    temps: [archiveTemp, replacedTemp, messagesTemp, ...[transcriptFinal, summaryFinal, toolsFinal].filter((f): f is string => Boolean(f)).map((f) => tempFor(f, stamp))],
    finals: [],
    indexLines: [],
    recentLine: '',
    messagesFile: identity,
  };
  if (!dry) await atomicWrite(journalPath(session), JSON.stringify(journal, null, 2) + '\n');
  const opened: DurableFile[] = [];
  // The archive copy of a plain cut runs in the background (kernel copy, fsync) while pass 2
  // parses; it settles to its error, if any, so a failure elsewhere never leaves it unawaited.
  let archiveCopy: Promise<unknown> | undefined;
  const settleArchiveCopy = async () => {
    const pending = archiveCopy;
    archiveCopy = undefined;
    const err = await pending;
    if (err) throw err;
  };
  const cleanup = async () => {
    await settleArchiveCopy().catch(() => {});
    for (const f of opened) await f.discard();
    for (const t of journal.temps) await fs.unlink(t).catch(() => {});
    for (const f of journal.finals) await fs.unlink(f).catch(() => {});
    if (!dry) await fs.unlink(journalPath(session)).catch(() => {});
  };
  const openSink = async (temp: string, hash = false) => {
    const f = new DurableFile(temp, hash);
    opened.push(f);
    return f.open();
  };

  let committed = false;
  try {
    // Pass 2, restarted once from an exact plan if the quick plan's cut separates linked lines.
    let sinks: Sinks;
    let state: ScanState;
    let slots: Record<string, number> = {};
    for (;;) {
      const X = plan.cut;
      const rewriteAll = target === 'all' && plan.lastTurn > X && plan.lastTurnClean;
      sinks = { toolsRel: toolsFinal ? rel(session, toolsFinal) : '' };
      state = { lineNo: 0, ordinal: 0, messages: 0, turns: 0, pruned: 0, anchors: new Map(), format: plan.format, hash: createHash('sha256') };
      // A plain cut archives exactly [0, X): start copying it now.
      if (!dry && target === 'conversation') archiveCopy = copyArchive(file, archiveTemp, X).then(() => undefined, (err: unknown) => err);
      if (!dry) {
        if (transcriptFinal) {
          sinks.transcript = await openSink(tempFor(transcriptFinal, stamp));
          slots = await startTranscript(sinks.transcript, { session: session.id, created: now, archiveRel });
        }
        if (toolsFinal && (target === 'tools' || rewriteAll)) {
          sinks.tools = await openSink(tempFor(toolsFinal, stamp));
          await sinks.tools.write(
            detailFrontMatter({ wmem: 'detail', version: 1, kind: 'tool-outputs', title: `full tool outputs cut by compaction ${now.toISOString()}`, created: now.toISOString(), session: session.id, source: 'messages.jsonl', archive: archiveRel }) +
              `\n# Full tool outputs\n\nEach section is one output as it was before compaction cut it.\n\n`,
          );
        }
        if (target === 'tools' || rewriteAll) sinks.replaced = await openSink(replacedTemp, true);
      }
      if (strategy === 'summarize' && removesTurns) sinks.collector = new SummaryCollector();
      const clean = await scanRegion(file, { start: 0, end: X }, { transcript: removesTurns, rewrite: target === 'tools', straddleIds: plan.exact ? undefined : plan.tailIds }, sinks, state, progress);
      if (clean) break;
      await settleArchiveCopy().catch(() => {});
      await fs.unlink(archiveTemp).catch(() => {});
      for (const f of opened.splice(0)) await f.discard();
      const exact = await planFromStart(file, size, keepRecent, keepSteps);
      if (!('cut' in exact)) {
        await cleanup();
        return nothing(exact, 'no cut point keeps tool calls with their results');
      }
      plan = exact;
    }
    const X = plan.cut;
    const before = { lines: state.lineNo, messages: state.messages, turns: state.turns };
    if (before.turns === 0) {
      await cleanup();
      return nothing({ turns: plan.tailTurns, lines: before.lines + plan.tailLines, steps: plan.tailSteps });
    }
    // A cut inside a turn repeats its opening message after the marker (not for --target tools,
    // which keeps every line).
    const opening = removesTurns ? plan.opening : undefined;
    // --target all: the kept turns but the newest have their tool outputs cut too.
    const rewriteAll = target === 'all' && plan.lastTurn > X && plan.lastTurnClean;
    let A = X;
    let hashAtCut: Hash | undefined;
    if (rewriteAll) {
      hashAtCut = state.hash.copy();
      if (opening) await sinks.replaced!.write(opening);
      await scanRegion(file, { start: X, end: plan.lastTurn }, { transcript: false, rewrite: true }, sinks, state, progress);
      if (state.pruned > 0) A = plan.lastTurn;
    }
    const pruned = state.pruned;
    const linesBefore = before.lines + plan.tailLines;
    const counts: CompactCounts = {
      linesBefore,
      linesArchived: 0,
      messagesArchived: removesTurns ? before.messages : 0,
      turnsBefore: before.turns + plan.tailTurns,
      turnsArchived: removesTurns ? before.turns : 0,
      turnsKept: removesTurns ? plan.tailTurns : before.turns + plan.tailTurns,
      stepsKept: removesTurns ? plan.tailSteps : null,
      bytesBefore: size,
      bytesArchived: 0,
      toolOutputsPruned: pruned,
      linesAfter: 0,
    };
    if (target === 'tools' && pruned === 0) {
      await cleanup();
      progress.end();
      return { ...base, counts: { ...counts, linesAfter: linesBefore }, reason: 'nothing to compact (no old tool output over the pruning threshold)' };
    }
    const useReplaced = target === 'tools' || (rewriteAll && pruned > 0);
    const archivedLines = A === X ? before.lines : state.lineNo;
    counts.linesArchived = archivedLines;
    counts.bytesArchived = A;
    counts.linesAfter = linesBefore - archivedLines + 1 + (useReplaced ? archivedLines - (target === 'tools' ? 0 : before.lines) : 0) + (opening ? 1 : 0);
    const details = [transcriptFinal, summaryFinal, useReplaced ? toolsFinal : undefined].filter((f): f is string => Boolean(f)).map((f) => rel(session, f));

    if (dry) {
      await cleanup();
      progress.end();
      return { ...base, reason: 'dry run: nothing was changed', ...(opening ? { cutInsideTurn: true } : {}), archive: archiveRel, archivePath: archiveFinal, details, counts };
    }

    // Loaded while the disk syncs, rather than after: the overview edit at the end needs it.
    import('../memory/overview.js').catch(() => {});
    progress.stage('writing the archive');
    if (archiveCopy) await settleArchiveCopy();
    else await copyArchive(file, archiveTemp, A);
    const archiveSha = (A === X && hashAtCut ? hashAtCut : state.hash).digest('hex');
    if (sinks.transcript) {
      await fillSlots(sinks.transcript, slots, { lines: `1-${before.lines}`, messages: before.messages, turns: before.turns });
      await sinks.transcript.close();
    }
    const replacedSha = sinks.replaced ? (await sinks.replaced.close())! : '';
    // What stands after the marker for archived lines: the rewritten ones, or the repeated opening alone.
    const replacedBytes = useReplaced ? sinks.replaced!.bytes : (opening?.length ?? 0);
    if (sinks.tools) await sinks.tools.close();

    // The summary: from the summarizer (a failure changes nothing), or the built-in one.
    let summary: string | undefined;
    if (summaryFinal) {
      if (options.summarizer) progress.stage('waiting for the summarizer');
      if (options.summarizer) summary = await runSummarizer(options.summarizer, sinks.transcript!.temp, options.timeoutMs ?? 120_000);
      else summary = sinks.collector!.build(X, { turns: before.turns, messages: before.messages, lines: before.lines, firstTime: state.firstTime, lastTime: state.lastTime });
      // The archive is the verbatim record; the summary reaches overview.md, so it holds no secret.
      summary = redactSecrets(summary);
      const f = await openSink(summaryTemp!);
      await f.write(
        detailFrontMatter({ wmem: 'detail', version: 1, kind: 'summary', title: firstLineOf(summary), created: now.toISOString(), session: session.id, source: options.summarizer ? `summarizer: ${options.summarizer}` : 'wmem (extractive)', lines: `1-${before.lines}`, messages: before.messages, turns: before.turns, archive: archiveRel }) +
          '\n' +
          summary.replace(/\n*$/, '\n'),
      );
      await f.close();
    }

    const finals: Array<{ temp: string; final: string; title?: string }> = [{ temp: archiveTemp, final: archiveFinal }];
    if (transcriptFinal) finals.push({ temp: tempFor(transcriptFinal, stamp), final: transcriptFinal, title: transcriptTitle(before, now) });
    if (summaryFinal && summary !== undefined) finals.push({ temp: summaryTemp!, final: summaryFinal, title: `summary of turns 1-${before.turns}: ${firstLineOf(summary)}` });
    if (toolsFinal && useReplaced) finals.push({ temp: tempFor(toolsFinal, stamp), final: toolsFinal, title: `${pruned} full tool output${pruned === 1 ? '' : 's'} cut by compaction ${now.toISOString()}` });

    const marker: CompactionMarker = {
      version: 1,
      id,
      archive: archiveRel,
      archivedBytes: A,
      archivedLines,
      archiveSha256: archiveSha,
      replacedBytes,
      replacedSha256: useReplaced ? replacedSha : opening ? createHash('sha256').update(opening).digest('hex') : '',
      ...(opening ? { openingBytes: opening.length } : {}),
      turns: removesTurns ? before.turns : 0,
      messages: removesTurns ? before.messages : 0,
      details,
    };
    const recentLine =
      summary !== undefined
        ? firstLineOf(summary)
        : removesTurns
          ? archivedRecentLine(before, archiveRel, transcriptFinal && rel(session, transcriptFinal))
          : `Cut ${pruned} old tool output${pruned === 1 ? '' : 's'} → ${details[0] ?? archiveRel}; original lines in ${archiveRel}`;
    const indexLines = finals.filter((f) => f.title).map((f) => detailIndexLine(rel(session, f.final), f.title!));
    const header = markerLine(state.format ?? plan.format ?? 'chat', marker, headerText(marker, { removesTurns, pruned, summary, transcript: transcriptFinal && rel(session, transcriptFinal), tools: useReplaced ? sinks.toolsRel : undefined, stepsKept: opening ? plan.tailSteps : undefined }));

    journal.finals = finals.map((f) => f.final);
    journal.indexLines = indexLines;
    journal.recentLine = recentLine;
    await commitMessages(file, {
      temp: await openSink(messagesTemp),
      head: [header, useReplaced ? { file: replacedTemp, bytes: replacedBytes } : opening],
      from: A,
      beforeCommit: async () => {
        await atomicWrite(journalPath(session), JSON.stringify(journal, null, 2) + '\n');
        for (const f of finals) await linkInto(f.temp, f.final);
      },
      onCommit: () => {
        committed = true;
      },
    });
    await fs.unlink(replacedTemp).catch(() => {});
    await updateOverview(session, indexLines, recentLine, env);
    await fs.unlink(journalPath(session)).catch(() => {});
    progress.end();
    return { ...base, compacted: true, ...(opening ? { cutInsideTurn: true } : {}), archive: archiveRel, archivePath: archiveFinal, details, counts, summary, recentLine };
  } catch (err) {
    progress.end();
    if (!committed) await cleanup();
    throw err;
  }
}

/**
 * The archive: a kernel copy of the file cut at `end`, fsynced. Its sha256 comes from pass 2,
 * which read the same bytes [0, end) under the same lock.
 */
async function copyArchive(file: string, temp: string, end: number): Promise<void> {
  try {
    await ensureDir(path.dirname(temp));
    await fs.copyFile(file, temp, fsConstants.COPYFILE_FICLONE);
    await fs.truncate(temp, end);
    await fs.chmod(temp, FILE_MODE);
    const handle = await fs.open(temp, 'r+');
    await handle.sync().finally(() => handle.close());
  } catch (err) {
    throw fsError(err, 'write', temp);
  }
}

/**
 * Builds the new messages.jsonl in `temp` (the head pieces, then the file from `from` to its
 * current end), runs `beforeCommit` (journal, final names), then renames it into place: the
 * commit. Lines appended to the old file through a descriptor opened before the rename are
 * carried over afterwards.
 */
async function commitMessages(
  file: string,
  plan: { temp: DurableFile; head: Array<string | Buffer | { file: string; bytes: number } | undefined>; from: number; beforeCommit: () => Promise<void>; onCommit: () => void },
): Promise<void> {
  const next = plan.temp;
  for (const piece of plan.head) {
    if (typeof piece === 'string' || Buffer.isBuffer(piece)) await next.write(piece);
    else if (piece) await next.copyRange(piece.file, 0, piece.bytes);
  }
  const old = await fs.open(file, 'r');
  try {
    const copiedTo = (await old.stat()).size;
    await next.copyRange(file, plan.from, copiedTo);
    await next.close();
    await plan.beforeCommit();
    await replaceKeepingAppends(next.temp, file, old, copiedTo, plan.onCommit, { settleMs: SETTLE_MS });
  } finally {
    await old.close().catch(() => {});
  }
}


function headerText(marker: CompactionMarker, info: { removesTurns: boolean; pruned: number; summary?: string; transcript?: string; tools?: string; stepsKept?: number }): string {
  const parts: string[] = [];
  if (info.removesTurns) {
    const turns = info.stepsKept !== undefined ? `${marker.turns} turn${marker.turns === 1 ? '' : 's'} (the last in part` : `${marker.turns} turns (`;
    parts.push(
      `[wmem] Earlier history was compacted: ${turns}${info.stepsKept !== undefined ? ', ' : ''}${marker.messages} messages, ${marker.archivedLines} lines) were moved byte for byte to working-memory/${marker.archive}` +
        (info.transcript ? `; a readable transcript is in working-memory/${info.transcript}` : '') +
        '.' +
        (info.stepsKept !== undefined ? openingNote(info.stepsKept) : ''),
    );
  }
  if (info.tools) parts.push(`[wmem] ${info.pruned} old tool output${info.pruned === 1 ? ' was' : 's were'} cut; each full text is in working-memory/${info.tools} and the original lines in working-memory/${marker.archive}.`);
  parts.push(`Undo with: wmem restore ${marker.archive}`);
  let text = parts.join(' ');
  if (info.summary) {
    const summary = info.summary.length > MAX_HEADER_SUMMARY ? info.summary.slice(0, MAX_HEADER_SUMMARY) + '\n… (the full summary is in detail/)' : info.summary;
    text += `\n\nSummary of the compacted turns:\n${summary.trim()}`;
  }
  return text;
}

/** Runs the summarizer with the transcript on stdin; any failure throws and changes nothing. */
async function runSummarizer(command: string, transcriptFile: string, timeoutMs: number): Promise<string> {
  const { execa } = await import('execa');
  // Its own process group, so a timeout stops the whole command line (a shell's children too).
  const child = execa(command, { shell: true, inputFile: transcriptFile, reject: false, detached: true, maxBuffer: 16 * 1024 * 1024, stripFinalNewline: false });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      child.kill('SIGKILL');
    }
  }, timeoutMs);
  const result = await child.finally(() => clearTimeout(timer));
  const hint = 'nothing was changed; fix the command or run without --summarizer for the built-in summary';
  if (timedOut) throw ioError(`summarizer timed out after ${Math.round(timeoutMs / 1000)} s: ${command}`, undefined, hint);
  if (result.exitCode !== 0 || result.failed) {
    const why = result.exitCode !== undefined ? `exited with ${result.exitCode}` : result.signal ? `was killed by ${result.signal}` : 'failed';
    const stderr = String(result.stderr ?? '').trim().split('\n').pop();
    throw ioError(`summarizer ${why}: ${command}${stderr ? ` (${stderr.slice(0, 200)})` : ''}`, undefined, hint);
  }
  const summary = String(result.stdout ?? '').trim();
  if (!summary) throw ioError(`summarizer printed nothing: ${command}`, undefined, hint);
  return summary + '\n';
}

export { archiveTranscript } from './archive-transcript.js';
export { recoverCompaction } from './journal.js';
