// Use case `consolidate`: folds scratch notes into overview.md (src/ops/consolidate.ts does the
// work, under the session lock).
import { resolveSession, type Where } from '../store/session.js';
import type { ConsolidateOptions, ConsolidateResult } from '../ops/consolidate.js';
import type { OfferResult } from '../store/session-decisions.js';

export interface ConsolidateUseOptions extends ConsolidateOptions {
  where: Where;
  now: () => Date;
  warn: (message: string) => void;
}

export async function consolidate(options: ConsolidateUseOptions): Promise<ConsolidateResult & { decisions?: OfferResult }> {
  const session = await resolveSession(options.where);
  const { consolidateSession } = await import('../ops/consolidate.js');
  const result = await consolidateSession(session, { llm: options.llm, timeoutMs: options.timeoutMs, dryRun: options.dryRun }, { now: options.now, warn: options.warn });
  if (options.dryRun) return result;
  // The session's decisions, offered to workspace memory once the consolidation succeeded. A
  // workspace file that does not parse costs the offer, not the consolidation (`wmem memories` names the fault).
  const { offerAfterConsolidation } = await import('./session-decisions.js');
  const decisions = await offerAfterConsolidation(session, result.archive, options.now()).catch((err: Error) => void options.warn(`decisions not offered to workspace memory: ${err.message}`));
  return decisions ? { ...result, decisions } : result;
}
