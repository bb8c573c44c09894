// Use case `consolidate`: folds scratch notes into overview.md (src/ops/consolidate.ts does the
// work, under the session lock).
import { resolveSession, type Where } from '../store/session.js';
import type { ConsolidateOptions, ConsolidateResult } from '../ops/consolidate.js';

export interface ConsolidateUseOptions extends ConsolidateOptions {
  where: Where;
  now: () => Date;
  warn: (message: string) => void;
}

export async function consolidate(options: ConsolidateUseOptions): Promise<ConsolidateResult> {
  const session = await resolveSession(options.where);
  const { consolidateSession } = await import('../ops/consolidate.js');
  return consolidateSession(session, { llm: options.llm, timeoutMs: options.timeoutMs, dryRun: options.dryRun }, { now: options.now, warn: options.warn });
}
