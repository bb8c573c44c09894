// `wmem compact`: moves old history out of messages.jsonl, losslessly (see src/history/compact.ts).
// A quick cut of a long history (src/history/quick-cut.ts) returns once the archive is safe and
// leaves its readable transcript and overview lines to `wmem compact --finish`, started here in
// the background; that run only finishes what the journal says is left, quietly.
import { spawn } from 'node:child_process';
import { resolveSession, type Session } from '../store/session.js';
import { withLock } from '../store/fsx.js';
import { compactSession, recoverCompaction, type CompactResult, type CompactStrategy, type CompactTarget } from '../history/compact.js';
import { logHook } from '../agents/hook-log.js';
import type { CommandResult, RunContext } from '../ui/run.js';

export interface CompactCommandOptions {
  target?: CompactTarget;
  strategy?: CompactStrategy;
  keepRecent?: number;
  keepSteps?: number;
  archiveTo?: string;
  summarizer?: string;
  /** Seconds. */
  timeout?: number;
  dryRun?: boolean;
  wait?: boolean;
  /** Internal: finish a quick cut left to the background. */
  finish?: boolean;
}

export function renderCompact(result: CompactResult): string {
  const c = result.counts;
  const lines: string[] = [];
  if (result.recovered) lines.push(`(${result.recovered})`);
  if (!result.archive) {
    lines.push(result.reason ?? 'nothing to compact');
    return lines.join('\n');
  }
  const verb = result.dryRun ? 'would move' : 'moved';
  if (result.finishing) {
    const what = c.turnsArchived === null ? `everything (${megabytes(c.bytesArchived)})` : `${c.turnsArchived} turns (${c.messagesArchived} messages, ${c.linesArchived} lines, ${megabytes(c.bytesArchived)})`;
    const kept = result.cutInsideTurn ? `the last ${c.stepsKept} steps` : `the last ${c.turnsKept} turns`;
    lines.push(`moved ${what} before ${kept} to ${result.archive}; kept those ${result.cutInsideTurn ? 'steps' : 'turns'}.`);
    if (result.cutInsideTurn) lines.push("The cut fell inside a turn: its opening message is repeated after the marker (restore drops the copy).");
    for (const d of result.details) lines.push(`  ${d}`);
    if (result.finishing === 'background') lines.push('The readable transcript and the overview lines are being written in the background (--wait does it before returning).');
    else if (result.recentLine) lines.push(result.recentLine);
    lines.push(`Undo: wmem restore ${result.archive}`);
    return lines.join('\n');
  }
  if (result.target !== 'tools') {
    const keep = result.dryRun ? 'would keep' : 'kept';
    const tail = result.cutInsideTurn
      ? `${keep} the last ${c.stepsKept} steps; the cut falls inside a turn, whose opening message ${result.dryRun ? 'would be' : 'is'} repeated after the marker`
      : `${keep} the last ${c.turnsKept}`;
    lines.push(`${result.dryRun ? 'Dry run: ' : ''}${verb} ${c.turnsArchived} of ${c.turnsBefore} turns${result.cutInsideTurn ? ' (the last in part)' : ''} (${c.messagesArchived} messages${result.target === 'conversation' ? `, ${c.linesArchived} lines` : ''}) to ${result.archive}; ${tail}.`);
  } else {
    lines.push(`${result.dryRun ? 'Dry run: ' : ''}${result.dryRun ? 'would cut' : 'cut'} ${c.toolOutputsPruned} old tool outputs; original lines ${result.dryRun ? 'would go' : 'went'} to ${result.archive}.`);
  }
  if (result.target === 'all' && c.toolOutputsPruned) lines.push(`${result.dryRun ? 'would cut' : 'cut'} ${c.toolOutputsPruned} tool outputs in the kept turns (the newest turn untouched).`);
  for (const d of result.details) lines.push(`  ${d}`);
  if (result.recentLine) lines.push(result.recentLine);
  if (!result.dryRun && result.archive) lines.push(`Undo: wmem restore ${result.archive}`);
  return lines.join('\n');
}

function megabytes(bytes: number): string {
  return `${(bytes / 1e6).toFixed(1)} MB`;
}

/** Archives at least this large are indexed for search when the compaction finishes. */
const INDEX_AHEAD_BYTES = 1_000_000;

/** Starts `wmem compact --finish` for this session, detached; false when it could not be started. */
function finishInBackground(session: Session, ctx: RunContext): boolean {
  const bin = process.argv[1];
  if (!bin) return false;
  try {
    const child = spawn(process.execPath, [bin, 'compact', '--finish', '--quiet', '--home', ctx.home, '--cwd', ctx.cwd, '--session', session.id], {
      detached: true,
      stdio: 'ignore',
      env: ctx.env,
    });
    child.on('error', () => {});
    child.unref();
    return child.pid !== undefined;
  } catch {
    return false;
  }
}

/** `--finish`: what a quick cut left, under the lock; failures are logged, never shown (nobody waits on this run). */
async function finish(ctx: RunContext): Promise<CommandResult> {
  try {
    const session = await resolveSession(ctx);
    await withLock(session.paths.dir, () => recoverCompaction(session, { warn: () => {} }));
    await indexForSearch(session);
  } catch (err) {
    await logHook(ctx.home, ctx.now(), 'compact --finish', 'error', (err as Error).message).catch(() => {});
  }
  return { data: { finished: true }, text: '' };
}

/** The search index of the new archive, so the first `wmem search` after a compaction is quick. */
async function indexForSearch(session: Session): Promise<void> {
  const { indexSession } = await import('../store/search-corpus.js');
  await indexSession(session.id, session.paths);
}

export async function run(options: CompactCommandOptions, ctx: RunContext): Promise<CommandResult> {
  if (options.finish) return finish(ctx);
  const session = await resolveSession(ctx);
  const result = await compactSession(
    session,
    {
      target: options.target ?? 'conversation',
      strategy: options.strategy ?? 'archive',
      keepRecent: options.keepRecent ?? 5,
      keepSteps: options.keepSteps ?? 20,
      archiveTo: options.archiveTo,
      summarizer: options.summarizer,
      timeoutMs: (options.timeout ?? 120) * 1000,
      dryRun: Boolean(options.dryRun),
      wait: Boolean(options.wait),
    },
    { now: ctx.now, warn: ctx.warn, progress: ctx.stderrIsTTY && !ctx.json && !ctx.quiet, finishLater: options.wait ? undefined : () => finishInBackground(session, ctx) },
  );
  if (result.archive && !result.dryRun && result.finishing !== 'background' && result.counts.bytesArchived >= INDEX_AHEAD_BYTES) {
    // The full way (or --wait) is done: the search index of a large archive is the last of it,
    // in the background unless the caller asked to wait for everything. A small one is indexed
    // by the first search in a few milliseconds.
    if (options.wait) await indexForSearch(session).catch((err) => ctx.warn(`the search index was not updated: ${(err as Error).message}`));
    else finishInBackground(session, ctx);
  }
  return { data: result, text: ctx.quiet ? '' : renderCompact(result) };
}
