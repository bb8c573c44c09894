// `wmem consolidate [--llm CMD] [--timeout S] [--dry-run]`: folds scratch notes into overview.md
// (src/ops/consolidate.ts does the work; this module reads options and words the result).
import { resolveSession } from '../store/session.js';
import type { CommandResult, RunContext } from '../ui/run.js';

export interface ConsolidateCommandOptions {
  llm?: string;
  timeout?: number;
  dryRun?: boolean;
}

export async function run(options: ConsolidateCommandOptions, ctx: RunContext): Promise<CommandResult> {
  const session = await resolveSession(ctx);
  const { consolidateSession } = await import('../ops/consolidate.js');
  const result = await consolidateSession(session, { llm: options.llm, timeoutMs: (options.timeout ?? 300) * 1000, dryRun: options.dryRun }, { now: ctx.now, warn: ctx.warn });
  if (ctx.quiet && !result.dryRun) return { data: result, text: '' };
  if (result.dryRun && result.overview !== undefined) return { data: result, text: result.overview.replace(/\n$/, '') };
  if (result.nothingToDo) return { data: result, text: 'nothing to consolidate: scratch.md holds no notes' };
  const where = Object.entries(result.placed).map(([id, n]) => `${n} → ${id}`).join(', ');
  const lines = [
    `consolidated ${result.consumed} note${result.consumed === 1 ? '' : 's'}${result.mode === 'llm' ? ' (LLM synthesis accepted)' : ''}${where ? `: ${where}` : ''}`,
    ...(result.folded ? [`${result.folded} already in the overview (folded)`] : []),
    ...result.pointers.map((p) => `pointer: ${p.replace(/^- /, '')}`),
    ...result.details.map((d) => `kept ${d}`),
    ...(result.archive ? [`notes archived to ${result.archive}`] : []),
    ...(result.previousOverview ? [`previous overview kept in ${result.previousOverview}`] : []),
    ...(result.appendedBelowSeed ? ['first consolidation after a MEMORY.md seed: appended below the existing text'] : []),
    ...(result.leftInScratch ? [`${result.leftInScratch} note${result.leftInScratch === 1 ? '' : 's'} added meanwhile stay in scratch.md`] : []),
    ...(result.unparsed.length ? [`${result.unparsed.length} line${result.unparsed.length === 1 ? '' : 's'} of scratch.md are not notes and were kept`] : []),
  ];
  return { data: result, text: lines.join('\n') };
}
