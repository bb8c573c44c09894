// Use case `consolidate`: folds scratch notes into overview.md (src/ops/consolidate/consolidate.ts does the
// work, under the session lock).
import { resolveSession } from '../store/session.js';
import type { AppEnv } from './env.js';
import type { ConsolidateOptions, ConsolidateResult } from '../ops/consolidate/consolidate.js';
import type { OfferResult } from '../store/session-decisions.js';

export async function consolidate(options: ConsolidateOptions, env: AppEnv): Promise<ConsolidateResult & { decisions?: OfferResult }> {
  const session = await resolveSession(env);
  const warn = env.warn ?? (() => {});
  const { consolidateSession } = await import('../ops/consolidate/consolidate.js');
  const result = await consolidateSession(session, { llm: options.llm, timeoutMs: options.timeoutMs, dryRun: options.dryRun }, { now: env.now, warn });
  if (options.dryRun) return result;
  // The session's decisions, offered to workspace memory once the consolidation succeeded. A
  // workspace file that does not parse costs the offer, not the consolidation (`wmem memories` names the fault).
  const { offerAfterConsolidation } = await import('./session-decisions.js');
  const decisions = await offerAfterConsolidation(session, result.archive, env.now()).catch((err: Error) => void warn(`decisions not offered to workspace memory: ${err.message}`));
  return decisions ? { ...result, decisions } : result;
}
