// `wmem compact`: moves old history out of messages.jsonl, losslessly (see src/history/compact.ts).
import { resolveSession } from '../store/session.js';
import { compactSession, type CompactResult, type CompactStrategy, type CompactTarget } from '../history/compact.js';
import type { CommandResult, RunContext } from '../ui/run.js';

export interface CompactCommandOptions {
  target?: CompactTarget;
  strategy?: CompactStrategy;
  keepRecent?: number;
  archiveTo?: string;
  summarizer?: string;
  /** Seconds. */
  timeout?: number;
  dryRun?: boolean;
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
  if (result.target !== 'tools') {
    lines.push(`${result.dryRun ? 'Dry run: ' : ''}${verb} ${c.turnsArchived} of ${c.turnsBefore} turns (${c.messagesArchived} messages${result.target === 'conversation' ? `, ${c.linesArchived} lines` : ''}) to ${result.archive}; kept the last ${c.turnsKept}.`);
  } else {
    lines.push(`${result.dryRun ? 'Dry run: ' : ''}${result.dryRun ? 'would cut' : 'cut'} ${c.toolOutputsPruned} old tool outputs; original lines ${result.dryRun ? 'would go' : 'went'} to ${result.archive}.`);
  }
  if (result.target === 'all' && c.toolOutputsPruned) lines.push(`${result.dryRun ? 'would cut' : 'cut'} ${c.toolOutputsPruned} tool outputs in the kept turns (the newest turn untouched).`);
  for (const d of result.details) lines.push(`  ${d}`);
  if (result.recentLine) lines.push(result.recentLine);
  if (!result.dryRun && result.archive) lines.push(`Undo: wmem restore ${result.archive}`);
  return lines.join('\n');
}

export async function run(options: CompactCommandOptions, ctx: RunContext): Promise<CommandResult> {
  const session = await resolveSession(ctx);
  const result = await compactSession(
    session,
    {
      target: options.target ?? 'conversation',
      strategy: options.strategy ?? 'archive',
      keepRecent: options.keepRecent ?? 5,
      archiveTo: options.archiveTo,
      summarizer: options.summarizer,
      timeoutMs: (options.timeout ?? 120) * 1000,
      dryRun: Boolean(options.dryRun),
    },
    { now: ctx.now, warn: ctx.warn, progress: ctx.stderrIsTTY && !ctx.json && !ctx.quiet },
  );
  return { data: result, text: ctx.quiet ? '' : renderCompact(result) };
}
