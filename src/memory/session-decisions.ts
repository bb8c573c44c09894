// Pure: the decisions a session offers to workspace memory when it ends or consolidates (docs/memory.md,
// "Decisions outlive the session"): its notes of importance ≥ 0.8 tagged #decisions (newest first,
// their importance as confidence), then its Key Decisions lines. A handful at most.
import { DECISION_IMPORTANCE, type Note } from './scratch.js';
import { canonical } from './workspace.js';

/** At most this many entries of workspace memory come from one session. */
export const DECISIONS_PER_SESSION = 5;
/** What a Key Decisions line is worth: below an explicit entry (1.0), above a compaction summary's (0.75). */
export const SECTION_DECISION_CONFIDENCE = 0.8;

export interface DecisionOffer {
  text: string;
  confidence: number;
}

function withoutTag(text: string): string {
  return text.replace(/(^|\s)#decisions(?=\s|$)/g, '$1').replace(/\s+/g, ' ').trim();
}

/** The lines of a Key Decisions section as entries: list markers, comments and sub-headings left out. */
export function sectionDecisions(content: string): string[] {
  return content
    .replace(/<!--[\s\S]*?-->/g, '')
    .split('\n')
    .map((l) => l.replace(/^\s*(?:[-*+]|\d+[.)])\s+(?:\[[ xX]\]\s+)?/, '').trim())
    .filter((l) => l !== '' && !l.startsWith('#') && !/^Past:\s/.test(l));
}

/** The offers, best first, without canonical duplicates, at most `limit`. */
export function decisionOffers(sectionContent: string, notes: Pick<Note, 'text' | 'importance' | 'tags'>[], limit = DECISIONS_PER_SESSION): DecisionOffer[] {
  const fromNotes = notes
    .filter((n) => n.importance >= DECISION_IMPORTANCE && n.tags.includes('decisions'))
    .reverse()
    .map((n) => ({ text: withoutTag(n.text), confidence: n.importance }));
  const fromSection = sectionDecisions(sectionContent).map((text) => ({ text, confidence: SECTION_DECISION_CONFIDENCE }));
  const seen = new Set<string>();
  const offers: DecisionOffer[] = [];
  for (const offer of [...fromNotes, ...fromSection]) {
    const key = canonical(offer.text);
    if (!key || seen.has(key)) continue;
    seen.add(key);
    offers.push(offer);
  }
  return offers.slice(0, Math.max(0, limit));
}
