// `wmem compact`: moves old history out of messages.jsonl, losslessly (src/app/compact.ts).
// A quick cut of a long history (src/history/compaction/quick-cut.ts) returns once the archive is safe and
// leaves its readable transcript and overview lines to `wmem compact --finish`, started here in
// the background; that run only finishes what the journal says is left, quietly.
import type { CompactStrategy, CompactTarget } from '../history/compaction/compact.js';
import { compactMemory, finishCommand, finishCompaction, finishInBackground, finishInChild } from '../app/compact.js';
import { renderCompact } from '../views/memory.js';
import type { CommandResult, RunContext } from './run.js';

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

export async function run(options: CompactCommandOptions, ctx: RunContext): Promise<CommandResult> {
  if (options.finish) {
    const finished = await finishCompaction(ctx);
    return { data: { finished }, text: '', exitCode: finished ? 0 : 1 };
  }
  const result = await compactMemory({
    progress: ctx.stderrIsTTY && !ctx.json && !ctx.quiet,
    compact: {
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
    startFinish: (session) => finishInBackground(process.argv[1], ctx, session.id),
    finishCommand: (session) => finishCommand(process.argv[1], ctx, session.id),
    finishNow: (session) => finishInChild(process.argv[1], ctx, session.id),
  }, ctx);
  return { data: result, text: ctx.quiet ? '' : renderCompact(result) };
}
