// `wmem consolidate [--llm CMD] [--timeout S] [--dry-run]`: folds scratch notes into overview.md
// (src/app/consolidate.ts); this reads options and words the result.
import { consolidate } from '../app/consolidate.js';
import { renderConsolidate } from '../views/memory.js';
import type { CommandResult, RunContext } from './run.js';

export interface ConsolidateCommandOptions {
  llm?: string;
  timeout?: number;
  dryRun?: boolean;
}

export async function run(options: ConsolidateCommandOptions, ctx: RunContext): Promise<CommandResult> {
  const result = await consolidate({ llm: options.llm, timeoutMs: (options.timeout ?? 300) * 1000, dryRun: options.dryRun }, ctx);
  if (ctx.quiet && !result.dryRun) return { data: result, text: '' };
  const { describeOffer } = await import('../app/session-decisions.js');
  const offered = result.decisions ? describeOffer(result.decisions) : '';
  return { data: result, text: [renderConsolidate(result), offered].filter(Boolean).join('\n') };
}
