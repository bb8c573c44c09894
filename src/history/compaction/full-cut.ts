// The full way of a compaction (steps 3-8 of the protocol in compact.ts): the journal, pass 2
// over the part that leaves messages.jsonl (restarted from an exact plan if the quick plan's cut
// separates linked lines), the archive copy, the summary, then the new messages.jsonl renamed
// into place (the commit) and the overview lines. Any failure before the commit deletes what the
// run made: nothing changed.
import type { Hash } from 'node:crypto';
import { promises as fs, constants as fsConstants } from 'node:fs';
import path from 'node:path';
import { FILE_MODE, atomicWrite, ensureDir } from '../../store/fsx.js';
import { fileStamp } from '../../store/paths.js';
import type { Session } from '../../store/session.js';
import { detailFrontMatter, detailIndexLine, preloadOverviewModule } from '../../store/detail.js';
import { fsError } from '../../ui/errors.js';
import { redactSecrets } from '../../memory/gate.js';
import { SummaryCollector } from '../model/summary.js';
import { markerLine, openingNote, type CompactionMarker } from '../model/marker.js';
import { planFromStart, type CutPlan, type NoCut } from './plan.js';
import { journalPath, updateOverview, type FileIdentity, type Journal } from './journal.js';
import { archivedRecentLine, fillSlots, firstLineOf, rel, scanRegion, startTranscript, transcriptTitle, type Progress, type ScanState, type Sinks } from './pass.js';
import { DurableFile, freeName, linkInto, tempFor } from '../stream/durable.js';
import { SETTLE_MS, replaceKeepingAppends } from '../stream/swap.js';
import { runSummarizer } from './summarizer.js';
import type { CompactCounts, CompactEnv, CompactOptions, CompactResult } from './types.js';
import { nodeHash } from '../../memory/hash.js';

const MAX_HEADER_SUMMARY = 6000;

/** What compact.ts found before choosing the full way. */
export interface FullCutContext {
  options: CompactOptions;
  env: CompactEnv;
  archiveTo?: string;
  size: number;
  identity: FileIdentity;
  base: CompactResult;
  progress: Progress;
  /** The result when there is nothing to cut (it ends the progress line). */
  nothing(found: NoCut, why?: string): CompactResult;
}

/** Compacts the full way (call with the session lock held). */
export async function fullCut(session: Session, plan: CutPlan, ctx: FullCutContext): Promise<CompactResult> {
  const run = await FullRun.start(session, ctx);
  try {
    const scanned = await run.scanPrefix(plan);
    if ('result' in scanned) return scanned.result;
    return await run.complete(scanned);
  } catch (err) {
    ctx.progress.end();
    if (!run.committed) await run.cleanup();
    throw err;
  }
}

/** The final names of what a run writes, and their temps. */
interface RunFiles {
  now: Date;
  stamp: string;
  id: string;
  archiveFinal: string;
  archiveRel: string;
  archiveTemp: string;
  transcriptFinal?: string;
  summaryFinal?: string;
  summaryTemp?: string;
  toolsFinal?: string;
  replacedTemp: string;
  messagesTemp: string;
}

async function nameFiles(session: Session, options: CompactOptions, archiveTo: string | undefined, now: Date): Promise<RunFiles> {
  const { target, strategy } = options;
  const removesTurns = target !== 'tools';
  const stamp = fileStamp(now);
  const archiveFinal = archiveTo ?? (await freeName(session.paths.archiveDir, `messages-${stamp}`, '.jsonl'));
  const summaryFinal = removesTurns && strategy === 'summarize' ? await freeName(session.paths.detailDir, `${stamp}-summary`, '.md') : undefined;
  return {
    now,
    stamp,
    id: `${stamp}-${path.basename(archiveFinal)}`,
    archiveFinal,
    archiveRel: rel(session, archiveFinal),
    archiveTemp: tempFor(archiveFinal, stamp),
    transcriptFinal: removesTurns ? await freeName(session.paths.detailDir, `${stamp}-conversation`, '.md') : undefined,
    summaryFinal,
    summaryTemp: summaryFinal ? tempFor(summaryFinal, stamp) : undefined,
    toolsFinal: target !== 'conversation' ? await freeName(session.paths.detailDir, `${stamp}-tool-outputs`, '.md') : undefined,
    replacedTemp: path.join(session.paths.stateDir, `.compact-${stamp}.${process.pid}.replaced.tmp`),
    messagesTemp: tempFor(session.paths.messages, stamp),
  };
}

/** What pass 2 found over [0, plan.cut). */
interface Scanned {
  plan: CutPlan;
  sinks: Sinks;
  state: ScanState;
  slots: Record<string, number>;
}

/** What leaves messages.jsonl, and what stands after the marker for it. */
interface Measured {
  before: { lines: number; messages: number; turns: number };
  /** The end of the archived part: the cut, or the newest turn's start when --target all rewrote the turns between. */
  end: number;
  /** Digest of [0, cut) when --target all went on scanning past it. */
  hashAtCut?: Hash;
  opening?: Buffer;
  pruned: number;
  useReplaced: boolean;
  archivedLines: number;
  counts: CompactCounts;
  details: string[];
}

class FullRun {
  committed = false;
  private opened: DurableFile[] = [];
  // The archive copy of a plain cut runs in the background (kernel copy, fsync) while pass 2
  // parses; it settles to its error, if any, so a failure elsewhere never leaves it unawaited.
  private archiveCopy?: Promise<unknown>;
  private readonly dry: boolean;
  private readonly removesTurns: boolean;
  private readonly file: string;
  readonly journal: Journal;

  private constructor(
    private readonly session: Session,
    private readonly ctx: FullCutContext,
    private readonly files: RunFiles,
  ) {
    const { options } = ctx;
    this.dry = Boolean(options.dryRun);
    this.removesTurns = options.target !== 'tools';
    this.file = session.paths.messages;
    const { stamp } = files;
    this.journal = {
      version: 1,
      id: files.id,
      pid: process.pid,
      startedAt: files.now.toISOString(),
      temps: [files.archiveTemp, files.replacedTemp, files.messagesTemp, ...[files.transcriptFinal, files.summaryFinal, files.toolsFinal].filter((f): f is string => Boolean(f)).map((f) => tempFor(f, stamp))],
      finals: [],
      indexLines: [],
      recentLine: '',
      messagesFile: ctx.identity,
    };
  }

  /** Names the files and writes the journal (step 3). */
  static async start(session: Session, ctx: FullCutContext): Promise<FullRun> {
    const run = new FullRun(session, ctx, await nameFiles(session, ctx.options, ctx.archiveTo, ctx.env.now()));
    if (!run.dry) await atomicWrite(journalPath(session), JSON.stringify(run.journal, null, 2) + '\n');
    return run;
  }

  private async openSink(temp: string, hash = false): Promise<DurableFile> {
    const f = new DurableFile(temp, hash);
    this.opened.push(f);
    return f.open();
  }

  private async settleArchiveCopy(): Promise<void> {
    const pending = this.archiveCopy;
    this.archiveCopy = undefined;
    const err = await pending;
    if (err) throw err;
  }

  /** Deletes whatever this run made (before its commit). */
  async cleanup(): Promise<void> {
    await this.settleArchiveCopy().catch(() => {});
    for (const f of this.opened) await f.discard();
    for (const t of this.journal.temps) await fs.unlink(t).catch(() => {});
    for (const f of this.journal.finals) await fs.unlink(f).catch(() => {});
    if (!this.dry) await fs.unlink(journalPath(this.session)).catch(() => {});
  }

  private async nothing(found: NoCut, why?: string): Promise<{ result: CompactResult }> {
    await this.cleanup();
    return { result: this.ctx.nothing(found, why) };
  }

  /** Pass 2 (step 4), restarted once from an exact plan if the quick plan's cut separates linked lines. */
  async scanPrefix(plan: CutPlan): Promise<Scanned | { result: CompactResult }> {
    const { options, progress } = this.ctx;
    const { target, strategy } = options;
    for (;;) {
      const { sinks, slots } = await this.openSinks(plan);
      const state: ScanState = { lineNo: 0, ordinal: 0, messages: 0, turns: 0, pruned: 0, anchors: new Map(), format: plan.format, hash: nodeHash('sha256') };
      if (strategy === 'summarize' && this.removesTurns) sinks.collector = new SummaryCollector();
      const clean = await scanRegion(this.file, { start: 0, end: plan.cut }, { transcript: this.removesTurns, rewrite: target === 'tools', straddleIds: plan.exact ? undefined : plan.tailIds }, sinks, state, progress);
      if (clean) {
        if (state.turns === 0) return this.nothing({ turns: plan.tailTurns, lines: state.lineNo + plan.tailLines, steps: plan.tailSteps });
        return { plan, sinks, state, slots };
      }
      await this.settleArchiveCopy().catch(() => {});
      await fs.unlink(this.files.archiveTemp).catch(() => {});
      for (const f of this.opened.splice(0)) await f.discard();
      const exact = await planFromStart(this.file, this.ctx.size, options.keepRecent, options.keepSteps ?? Infinity);
      if (!('cut' in exact)) return this.nothing(exact, 'no cut point keeps tool calls with their results');
      plan = exact;
    }
  }

  /** Opens what pass 2 writes to for one attempt, and starts the archive copy of a plain cut. */
  private async openSinks(plan: CutPlan): Promise<{ sinks: Sinks; slots: Record<string, number> }> {
    const { session, files } = this;
    const { target } = this.ctx.options;
    const rewriteAll = target === 'all' && plan.lastTurn > plan.cut && plan.lastTurnClean;
    const sinks: Sinks = { toolsRel: files.toolsFinal ? rel(session, files.toolsFinal) : '' };
    let slots: Record<string, number> = {};
    // A plain cut archives exactly [0, cut): start copying it now.
    if (!this.dry && target === 'conversation') this.archiveCopy = copyArchive(this.file, files.archiveTemp, plan.cut).then(() => undefined, (err: unknown) => err);
    if (this.dry) return { sinks, slots };
    const created = files.now.toISOString();
    if (files.transcriptFinal) {
      sinks.transcript = await this.openSink(tempFor(files.transcriptFinal, files.stamp));
      slots = await startTranscript(sinks.transcript, { session: session.id, created: files.now, archiveRel: files.archiveRel });
    }
    if (files.toolsFinal && (target === 'tools' || rewriteAll)) {
      sinks.tools = await this.openSink(tempFor(files.toolsFinal, files.stamp));
      await sinks.tools.write(
        detailFrontMatter({ wmem: 'detail', version: 1, kind: 'tool-outputs', title: `full tool outputs cut by compaction ${created}`, created, session: session.id, source: 'messages.jsonl', archive: files.archiveRel }) +
          `\n# Full tool outputs\n\nEach section is one output as it was before compaction cut it.\n\n`,
      );
    }
    if (target === 'tools' || rewriteAll) sinks.replaced = await this.openSink(files.replacedTemp, true);
    return { sinks, slots };
  }

  /** Steps 5-8 once pass 2 is clean: the dry run's plan, or the archive, the summary and the commit. */
  async complete(scanned: Scanned): Promise<CompactResult> {
    const { base, progress } = this.ctx;
    const measured = await this.measure(scanned);
    if ('result' in measured) return measured.result;
    const { files } = this;
    if (this.dry) {
      await this.cleanup();
      progress.end();
      return { ...base, reason: 'dry run: nothing was changed', ...(measured.opening ? { cutInsideTurn: true } : {}), archive: files.archiveRel, archivePath: files.archiveFinal, details: measured.details, counts: measured.counts };
    }
    // Loaded while the disk syncs, rather than after: the overview edit at the end needs it.
    preloadOverviewModule();
    const written = await this.writeArchive(scanned, measured);
    const summary = await this.writeSummary(scanned, measured);
    const { recentLine } = await this.commit(scanned, measured, written, summary);
    progress.end();
    return { ...base, compacted: true, ...(measured.opening ? { cutInsideTurn: true } : {}), archive: files.archiveRel, archivePath: files.archiveFinal, details: measured.details, counts: measured.counts, summary, recentLine };
  }

  /** What leaves messages.jsonl and what stands for it; --target all rewrites the kept turns but the newest here. */
  private async measure({ plan, sinks, state }: Scanned): Promise<Measured | { result: CompactResult }> {
    const { options, size, base, progress } = this.ctx;
    const { target } = options;
    const cut = plan.cut;
    const before = { lines: state.lineNo, messages: state.messages, turns: state.turns };
    // A cut inside a turn repeats its opening message after the marker (not for --target tools,
    // which keeps every line).
    const opening = this.removesTurns ? plan.opening : undefined;
    // --target all: the kept turns but the newest have their tool outputs cut too.
    const rewriteAll = target === 'all' && plan.lastTurn > cut && plan.lastTurnClean;
    let end = cut;
    let hashAtCut: Hash | undefined;
    if (rewriteAll) {
      hashAtCut = state.hash.copy();
      if (opening) await sinks.replaced!.write(opening);
      await scanRegion(this.file, { start: cut, end: plan.lastTurn }, { transcript: false, rewrite: true }, sinks, state, progress);
      if (state.pruned > 0) end = plan.lastTurn;
    }
    const pruned = state.pruned;
    const removesTurns = this.removesTurns;
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
      await this.cleanup();
      progress.end();
      return { result: { ...base, counts: { ...counts, linesAfter: linesBefore }, reason: 'nothing to compact (no old tool output over the pruning threshold)' } };
    }
    const useReplaced = target === 'tools' || (rewriteAll && pruned > 0);
    const archivedLines = end === cut ? before.lines : state.lineNo;
    counts.linesArchived = archivedLines;
    counts.bytesArchived = end;
    counts.linesAfter = linesBefore - archivedLines + 1 + (useReplaced ? archivedLines - (target === 'tools' ? 0 : before.lines) : 0) + (opening ? 1 : 0);
    const { files } = this;
    const details = [files.transcriptFinal, files.summaryFinal, useReplaced ? files.toolsFinal : undefined].filter((f): f is string => Boolean(f)).map((f) => rel(this.session, f));
    return { before, end, hashAtCut, opening, pruned, useReplaced, archivedLines, counts, details };
  }

  /** Step 5: the archive on disk (and its digest), the transcript and the rewritten lines closed. */
  private async writeArchive({ plan, sinks, state, slots }: Scanned, m: Measured): Promise<{ archiveSha: string; replacedSha: string; replacedBytes: number }> {
    this.ctx.progress.stage('writing the archive');
    if (this.archiveCopy) await this.settleArchiveCopy();
    else await copyArchive(this.file, this.files.archiveTemp, m.end);
    // The digest of exactly the archived bytes: [0, cut), unless --target all archived more.
    const archiveSha = (m.end === plan.cut && m.hashAtCut ? m.hashAtCut : state.hash).digest('hex');
    if (sinks.transcript) {
      await fillSlots(sinks.transcript, slots, { lines: `1-${m.before.lines}`, messages: m.before.messages, turns: m.before.turns });
      await sinks.transcript.close();
    }
    const replacedSha = sinks.replaced ? (await sinks.replaced.close())! : '';
    // What stands after the marker for archived lines: the rewritten ones, or the repeated opening alone.
    const replacedBytes = m.useReplaced ? sinks.replaced!.bytes : (m.opening?.length ?? 0);
    if (sinks.tools) await sinks.tools.close();
    return { archiveSha, replacedSha, replacedBytes };
  }
  /** The summary (strategy summarize): from the summarizer (a failure changes nothing), or the built-in one. */
  private async writeSummary({ plan, sinks, state }: Scanned, m: Measured): Promise<string | undefined> {
    const { options, progress } = this.ctx;
    const { files, session } = this;
    if (!files.summaryFinal) return undefined;
    let summary: string;
    if (options.summarizer) {
      progress.stage('waiting for the summarizer');
      summary = await runSummarizer(options.summarizer, sinks.transcript!.temp, options.timeoutMs ?? 120_000);
    } else {
      summary = sinks.collector!.build(plan.cut, { turns: m.before.turns, messages: m.before.messages, lines: m.before.lines, firstTime: state.firstTime, lastTime: state.lastTime });
    }
    // The archive is the verbatim record; the summary reaches overview.md, so it holds no secret.
    summary = redactSecrets(summary);
    const f = await this.openSink(files.summaryTemp!);
    await f.write(
      detailFrontMatter({ wmem: 'detail', version: 1, kind: 'summary', title: firstLineOf(summary), created: files.now.toISOString(), session: session.id, source: options.summarizer ? `summarizer: ${options.summarizer}` : 'wmem (extractive)', lines: `1-${m.before.lines}`, messages: m.before.messages, turns: m.before.turns, archive: files.archiveRel }) +
        '\n' +
        summary.replace(/\n*$/, '\n'),
    );
    await f.close();
    return summary;
  }

  /** Steps 6-8: the marker, the new messages.jsonl renamed into place (the commit), the overview lines. */
  private async commit({ plan, sinks, state }: Scanned, m: Measured, written: { archiveSha: string; replacedSha: string; replacedBytes: number }, summary: string | undefined): Promise<{ recentLine: string }> {
    const { session, files, removesTurns } = this;
    const { now, stamp, archiveRel } = files;
    const { before, opening, pruned, useReplaced, details } = m;
    const finals: Array<{ temp: string; final: string; title?: string }> = [{ temp: files.archiveTemp, final: files.archiveFinal }];
    if (files.transcriptFinal) finals.push({ temp: tempFor(files.transcriptFinal, stamp), final: files.transcriptFinal, title: transcriptTitle(before, now) });
    if (files.summaryFinal && summary !== undefined) finals.push({ temp: files.summaryTemp!, final: files.summaryFinal, title: `summary of turns 1-${before.turns}: ${firstLineOf(summary)}` });
    if (files.toolsFinal && useReplaced) finals.push({ temp: tempFor(files.toolsFinal, stamp), final: files.toolsFinal, title: `${pruned} full tool output${pruned === 1 ? '' : 's'} cut by compaction ${now.toISOString()}` });

    const marker: CompactionMarker = {
      version: 1,
      id: files.id,
      archive: archiveRel,
      archivedBytes: m.end,
      archivedLines: m.archivedLines,
      archiveSha256: written.archiveSha,
      replacedBytes: written.replacedBytes,
      replacedSha256: useReplaced ? written.replacedSha : opening ? nodeHash('sha256').update(opening).digest('hex') : '',
      ...(opening ? { openingBytes: opening.length } : {}),
      turns: removesTurns ? before.turns : 0,
      messages: removesTurns ? before.messages : 0,
      details,
    };
    const transcriptRel = files.transcriptFinal && rel(session, files.transcriptFinal);
    const recentLine =
      summary !== undefined
        ? firstLineOf(summary)
        : removesTurns
          ? archivedRecentLine(before, archiveRel, transcriptRel)
          : `Cut ${pruned} old tool output${pruned === 1 ? '' : 's'} → ${details[0] ?? archiveRel}; original lines in ${archiveRel}`;
    const indexLines = finals.filter((f) => f.title).map((f) => detailIndexLine(rel(session, f.final), f.title!));
    const header = markerLine(state.format ?? plan.format ?? 'chat', marker, headerText(marker, { removesTurns, pruned, summary, transcript: transcriptRel, tools: useReplaced ? sinks.toolsRel : undefined, stepsKept: opening ? plan.tailSteps : undefined }));

    const journal = this.journal;
    journal.finals = finals.map((f) => f.final);
    journal.indexLines = indexLines;
    journal.recentLine = recentLine;
    await commitMessages(this.file, {
      temp: await this.openSink(files.messagesTemp),
      head: [header, useReplaced ? { file: files.replacedTemp, bytes: written.replacedBytes } : opening],
      from: m.end,
      beforeCommit: async () => {
        await atomicWrite(journalPath(session), JSON.stringify(journal, null, 2) + '\n');
        for (const f of finals) await linkInto(f.temp, f.final);
      },
      onCommit: () => {
        this.committed = true;
      },
    });
    await fs.unlink(files.replacedTemp).catch(() => {});
    await updateOverview(session, indexLines, recentLine, this.ctx.env);
    await fs.unlink(journalPath(session)).catch(() => {});
    return { recentLine };
  }
}

/**
 * The archive: a kernel copy of the file cut at `end`, fsynced. Its sha256 comes from pass 2,
 * which read the same bytes [0, end) under the same lock.
 */
async function copyArchive(file: string, temp: string, end: number): Promise<void> {
  try {
    await ensureDir(path.dirname(temp), true);
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
