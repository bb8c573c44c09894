// Use case: a session's key decisions offered to workspace memory (docs/memory.md), at its end
// moment and at every consolidation, read before the consolidation consumes the notes.
import type { Session } from '../store/session.js';
import { readTextIfExists } from '../store/fsx.js';
import type { OfferResult } from '../store/session-decisions.js';

export async function offerDecisions(session: Session, now: Date): Promise<OfferResult> {
  const [{ parseOverview }, { parseScratch }, { decisionOffers }, { offerSessionDecisions }] = await Promise.all([
    import('../memory/overview.js'),
    import('../memory/scratch.js'),
    import('../memory/session-decisions.js'),
    import('../store/session-decisions.js'),
  ]);
  const overview = (await readTextIfExists(session.paths.overview)) ?? '';
  const decisions = overview ? (parseOverview(overview, session.paths.overview, { lenient: true }).sections.find((s) => s.id === 'decisions')?.content ?? '') : '';
  const notes = parseScratch((await readTextIfExists(session.paths.scratch)) ?? '').notes;
  return offerSessionDecisions(session.project.dir, session.id, decisionOffers(decisions, notes), now);
}

/** One line for a note or a log: what workspace memory took. */
export function describeOffer(result: OfferResult): string {
  if (!result.added && !result.merged) return '';
  return `${result.added + result.merged} decision${result.added + result.merged === 1 ? '' : 's'} offered to workspace memory (${result.added} added, ${result.merged} merged)`;
}
