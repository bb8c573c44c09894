// Use case: a session's key decisions offered to workspace memory (docs/memory.md), at its end
// moment and at every consolidation, once it succeeded (a refused consolidation changes nothing):
// the Key Decisions of the overview it wrote, and the notes it consumed, read back from their
// archive (nothing is read ahead of the consolidation, which must see scratch.md as it is).
import type { Session } from '../store/session.js';
import { readTextIfExists } from '../store/fsx.js';
import type { OfferResult } from '../store/session-decisions.js';
import type { DecisionOffer } from '../memory/session-decisions.js';

/** The decisions the session offers (nothing is written): `notesFile`, the consolidation's archive of the notes it consumed, else scratch.md. */
export async function collectDecisions(session: Session, notesFile = session.paths.scratch): Promise<DecisionOffer[]> {
  const [{ parseOverview }, { parseScratch }, { decisionOffers }] = await Promise.all([import('../memory/overview.js'), import('../memory/scratch.js'), import('../memory/session-decisions.js')]);
  const overview = (await readTextIfExists(session.paths.overview)) ?? '';
  const decisions = overview ? (parseOverview(overview, session.paths.overview, { lenient: true }).sections.find((s) => s.id === 'decisions')?.content ?? '') : '';
  const notes = parseScratch((await readTextIfExists(notesFile)) ?? '').notes;
  return decisionOffers(decisions, notes);
}

/** After a consolidation: the decisions of what it consumed and wrote, offered to workspace memory. */
export async function offerAfterConsolidation(session: Session, archive: string | undefined, now: Date): Promise<OfferResult> {
  return placeDecisions(session, await collectDecisions(session, archive), now);
}

/** Offers them to the project's workspace memory. */
export async function placeDecisions(session: Session, offers: DecisionOffer[], now: Date): Promise<OfferResult> {
  const { offerSessionDecisions } = await import('../store/session-decisions.js');
  return offerSessionDecisions(session.project.dir, session.id, offers, now);
}

/** One line for a note or a log: what workspace memory took. */
export function describeOffer(result: OfferResult): string {
  if (!result.added && !result.merged) return '';
  return `${result.added + result.merged} decision${result.added + result.merged === 1 ? '' : 's'} offered to workspace memory (${result.added} added, ${result.merged} merged)`;
}
