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
  // The session's decisions are read before the notes they come from are consumed, and offered to
  // workspace memory once the consolidation succeeded.
  const { collectDecisions, placeDecisions } = await import('./session-decisions.js');
  const offers = options.dryRun ? [] : await collectDecisions(session).catch(() => []);
  const result = await consolidateSession(session, { llm: options.llm, timeoutMs: options.timeoutMs, dryRun: options.dryRun }, { now: options.now, warn: options.warn });
  if (options.dryRun) return result;
  // A workspace file that does not parse costs the offer, not the consolidation (`wmem memories` names the fault).
  const decisions = await placeDecisions(session, offers, options.now()).catch((err: Error) => void options.warn(`decisions not offered to workspace memory: ${err.message}`));
  return decisions ? { ...result, decisions } : result;
}
