// A session's decisions offered to the project's workspace memory when it ends or consolidates
// (docs/memory.md): type `decision`, source `session` with the session's id, through the gate and
// the duplicate rule, under the project folder's lock. An offer that would evict an explicit entry
// is not taken, and no session places more than DECISIONS_PER_SESSION entries.
import { atomicWrite, withLock } from './fsx.js';
import { readWorkspaceSync, workspaceFilePath } from './workspace.js';
import { addEntry } from '../memory/workspace.js';
import { DECISIONS_PER_SESSION, type DecisionOffer } from '../memory/session-decisions.js';

export interface OfferResult {
  added: number;
  merged: number;
  /** Offers the gate refused, or that would have evicted an explicit entry, or over the session's share. */
  declined: { text: string; reason: string }[];
}

export async function offerSessionDecisions(projectDir: string, sessionId: string, offers: DecisionOffer[], now: Date, settled?: () => void): Promise<OfferResult> {
  const result: OfferResult = { added: 0, merged: 0, declined: [] };
  if (!offers.length) {
    settled?.();
    return result;
  }
  await withLock(projectDir, async () => {
    let file = readWorkspaceSync(projectDir);
    const before = JSON.stringify(file);
    let placed = file.entries.filter((e) => e.source === 'session' && e.session === sessionId).length;
    for (const offer of offers) {
      const outcome = addEntry(file, { type: 'decision', text: offer.text, source: 'session', confidence: offer.confidence, session: sessionId }, now);
      if (!outcome.ok) {
        result.declined.push({ text: offer.text, reason: `${outcome.refusal.rule}: ${outcome.refusal.reason}` });
        continue;
      }
      if (outcome.status === 'added' && placed >= DECISIONS_PER_SESSION) {
        result.declined.push({ text: offer.text, reason: `the session has ${DECISIONS_PER_SESSION} entries in workspace memory already` });
        continue;
      }
      if (outcome.evicted.some((e) => e.source === 'explicit')) {
        result.declined.push({ text: offer.text, reason: 'workspace memory is full and only explicit entries could make room' });
        continue;
      }
      file = outcome.file;
      if (outcome.status === 'added') {
        result.added++;
        placed++;
      } else if (outcome.status === 'merged') result.merged++;
    }
    if (JSON.stringify(file) !== before) await atomicWrite(workspaceFilePath(projectDir), JSON.stringify(file, null, 2) + '\n');
    settled?.();
  });
  return result;
}
