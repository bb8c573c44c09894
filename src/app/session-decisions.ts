// Use case: a session's key decisions offered to workspace memory (docs/memory.md), at its end
// moment and at every consolidation, once it succeeded (a refused consolidation changes nothing):
// the Key Decisions of the overview it wrote, and the notes it consumed, read back from their
// archive (nothing is read ahead of the consolidation, which must see scratch.md as it is).
import { statSync } from 'node:fs';
import type { Session } from '../store/session.js';
import { atomicWrite, readTextIfExists } from '../store/fsx.js';
import { joinName, workspaceFilePath } from '../store/paths.js';
import { readStateSync } from '../store/regular-file.js';
import type { OfferResult } from '../store/session-decisions.js';
import type { DecisionOffer } from '../memory/session-decisions.js';
import { VERSION } from '../options.js';

/**
 * What an offer's outcome hangs on besides the files: the rules that pick a session's decisions
 * and place them (memory/session-decisions.ts, the gate of memory/gate.ts, memory/workspace.ts's
 * duplicate rule and room, store/session-decisions.ts's share per session). Raise the number with
 * any change there that could place an offer declined before, or place one otherwise: a record
 * made under other rules does not stand for an offer (wmem's version rides along, for a release).
 * Constants of the bundle: nothing is read to know them.
 */
export const OFFER_RULES = `${VERSION}/1`;

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

/**
 * At a session's end with nothing consolidated: offerAfterConsolidation, unless overview.md,
 * scratch.md and workspace memory are the files they were after the last such offer. OpenCode
 * ends a session at every turn (its idle): the offer parsed the decisions and put each through the
 * gate's Unicode expressions under the project's lock every turn (bench/README.md, cmp15). So an
 * unchanged session no longer refreshes its entries' dates at every end (docs/memory.md). The
 * sources' stamps are taken before the offer reads them, workspace memory's under the lock, after
 * the offer wrote it (wmem replaces it by rename: a new inode each time): a change made meanwhile
 * is offered next time. The record names the rules that made it (OFFER_RULES): an upgrade that
 * changed them offers once more. The record is bookkeeping (docs/guarantees.md): lost, the next
 * end offers once more.
 */
export async function offerUnlessOffered(session: Session, now: Date): Promise<OfferResult> {
  const record = joinName(session.paths.stateDir, 'decisions-offered.json');
  const workspace = workspaceFilePath(session.project.dir);
  const sources = [session.paths.overview, session.paths.scratch].map(stampOf);
  const recordOf = (settled: Stamp | null) => JSON.stringify({ version: 1, rules: OFFER_RULES, sources, workspace: settled }) + '\n';
  if (recorded(record) === recordOf(stampOf(workspace))) return { added: 0, merged: 0, declined: [] };
  let settled: Stamp | null | undefined;
  const result = await placeDecisions(session, await collectDecisions(session), now, () => (settled = stampOf(workspace)));
  // Unwritten (a full disk), the offer stands: the next end offers once more.
  if (settled !== undefined) await atomicWrite(record, recordOf(settled), { durable: false }).catch(() => {});
  return result;
}

/** The record's text; undefined for none, or one that cannot be read (then the offer is made). */
function recorded(record: string): string | undefined {
  try {
    return readStateSync(record);
  } catch {
    return undefined;
  }
}

type Stamp = { ino: number; size: number; mtimeMs: number; ctimeMs: number };

/** A file's identity and last change (ctime too: `touch -d` and `cp -p` set the mtime back, not the ctime), null when it is not there. */
function stampOf(file: string): Stamp | null {
  const st = statSync(file, { throwIfNoEntry: false });
  return st ? { ino: st.ino, size: st.size, mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs } : null;
}

/** Offers them to the project's workspace memory; `settled` runs once the file is as the offer leaves it (under its lock). */
export async function placeDecisions(session: Session, offers: DecisionOffer[], now: Date, settled?: () => void): Promise<OfferResult> {
  const { offerSessionDecisions } = await import('../store/session-decisions.js');
  return offerSessionDecisions(session.project.dir, session.id, offers, now, settled);
}

/** One line for a note or a log: what workspace memory took. */
export function describeOffer(result: OfferResult): string {
  if (!result.added && !result.merged) return '';
  return `${result.added + result.merged} decision${result.added + result.merged === 1 ? '' : 's'} offered to workspace memory (${result.added} added, ${result.merged} merged)`;
}
