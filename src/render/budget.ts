// Pure: how the memory part's budget is shared between its parts (docs/context.md). When all of
// it fits, nothing is cut. When it does not, every non-empty part keeps a bounded share: first its
// head (the one entry it must not lose), then entries up to its share, then what is left goes to
// the parts in rank order. A part is cut at entry boundaries, never inside one, and a marker line
// where its entries were left out says how many and where the rest is. Arithmetic only: the
// caller renders what this keeps.

/** A unit that is cut whole: a list item with its continuation lines, a paragraph, a note. */
export interface Entry {
  text: string;
  /** Blank lines before it in the source (kept between kept entries, so an uncut part is byte-exact). */
  gap: number;
  /** Kept before any other entry of its part (the entries the user explicitly asked to remember). */
  pinned?: boolean;
}

export interface PartPlan {
  /** For the closing notice and the marker. */
  label: string;
  /** Always shown while the part is shown (a section's heading); '' when there is none. */
  header: string;
  entries: Entry[];
  /** Which end of the list survives a cut (the newest entries are last in most sections). */
  keep: 'first' | 'last';
  /** Characters at the reference budget (scaled to the budget in use). */
  share: number;
  /** Heads first and leftovers in this order (lower first). */
  rank: number;
  /** The marker line where `omitted` entries were left out, or undefined for a part that is dropped silently. */
  marker?: (omitted: number) => string;
  /** Shown only with what is left at the end, and dropped silently (an empty section's guidance). */
  optional?: boolean;
  /** Never shown in full while every pinned entry of another part is left out. */
  yieldsToPinned?: boolean;
}

export interface PartCut {
  /** Indexes of the kept entries, in source order. */
  kept: number[];
  /** Whether the part is shown at all (its header and marker). */
  shown: boolean;
}

/** The budget the shares in the table add up to (the budget of a 200K-token window). */
export const REFERENCE_BUDGET = 8000;

/** An entry's characters in its part: its text, the blank lines before it and the line break (at most). */
export const entrySize = (e: Entry) => e.text.length + e.gap + 1;

/** The marker's characters with its line break, when `omitted` entries are left out. */
function markerSize(part: PartPlan, omitted: number): number {
  return omitted > 0 && part.marker ? part.marker(omitted).length + 1 : 0;
}

/** The order a part's entries are taken in: pinned first, then from the end that survives. */
export function takeOrder(part: PartPlan): number[] {
  const idx = part.entries.map((_, i) => i);
  if (part.keep === 'last') idx.reverse();
  return [...idx.filter((i) => part.entries[i].pinned), ...idx.filter((i) => !part.entries[i].pinned)];
}

interface State {
  part: PartPlan;
  order: number[];
  taken: number;
  shown: boolean;
  /** The header and the kept entries (an upper bound of renderPart's length without the marker). */
  body: number;
  cost: number;
}

function keptOf(s: State): number[] {
  return s.order.slice(0, s.taken).sort((a, b) => a - b);
}

/**
 * Cuts `parts` to fit `room` characters, where each shown part also costs `overhead(part)` (its
 * block's tags, the separators). Returns the cut of each part, by index, and the characters it
 * takes at most.
 */
export function allocate(parts: PartPlan[], room: number, overhead: (shown: PartPlan[], part: PartPlan) => number, budget: number): { cuts: PartCut[]; used: number } {
  const states: State[] = parts.map((part) => ({ part, order: takeOrder(part), taken: 0, shown: false, body: part.header.length, cost: 0 }));
  const ranked = [...states].sort((a, b) => a.part.rank - b.part.rank);
  let used = 0;
  const shownParts = () => states.filter((s) => s.shown).map((s) => s.part);
  // Takes one more entry (or shows the part with none) if the result still fits `limit` of the part and the room.
  const grow = (s: State, limit: number): boolean => {
    if (s.shown && s.taken >= s.order.length) return false;
    const taken = s.shown ? s.taken + 1 : s.taken;
    const extra = s.shown ? 0 : overhead(shownParts(), s.part);
    // Counted as it grows (no re-render per entry): a bound that errs by a character or two, on the safe side.
    const body = s.body + (taken > s.taken ? entrySize(s.part.entries[s.order[s.taken]]) : 0);
    const cost = body + markerSize(s.part, s.order.length - taken);
    if (cost > limit || used - s.cost + cost + extra > room) return false;
    used += cost - s.cost + extra;
    s.body = body;
    s.cost = cost;
    s.taken = taken;
    s.shown = true;
    return true;
  };
  // Heads: every part that must appear shown (with its marker), then its first entry.
  for (const s of ranked) if (!s.part.optional) grow(s, Infinity);
  for (const s of ranked) if (s.shown) grow(s, Infinity);
  // Shares, then what is left, in rank order.
  for (const s of ranked) while (s.shown && grow(s, Math.floor((s.part.share * budget) / REFERENCE_BUDGET))) {}
  for (const s of ranked) while ((s.shown || s.part.optional) && grow(s, Infinity)) {}
  keepPinned(states, (s, taken) => {
    s.body = s.order.slice(0, taken).reduce((n, i) => n + entrySize(s.part.entries[i]), s.part.header.length);
    const cost = s.body + markerSize(s.part, s.order.length - taken);
    used += cost - s.cost;
    s.cost = cost;
    s.taken = taken;
    return used <= room;
  });
  return { cuts: states.map((s) => ({ kept: s.shown ? keptOf(s) : [], shown: s.shown })), used };
}

/**
 * What the user asked to remember is never all left out while a part that yields to it (the
 * decisions) is shown in full: such a part gives up entries until it is cut, or is hidden.
 */
function keepPinned(states: State[], retake: (s: State, taken: number) => boolean): void {
  const lost = states.some((s) => s.part.entries.some((e) => e.pinned) && !s.order.slice(0, s.taken).some((i) => s.part.entries[i].pinned));
  if (!lost) return;
  for (const s of states) {
    if (!s.part.yieldsToPinned || !s.shown || s.taken < s.order.length || s.taken === 0) continue;
    let taken = s.taken - 1;
    while (!retake(s, taken) && taken > 0) taken--;
    if (taken === 0 && !retake(s, 0)) {
      retake(s, 0);
      s.shown = false;
    }
  }
}

const ITEM = /^(?:[-*+]|\d+[.)])\s/;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;

/**
 * A section's text as entries: a new entry starts at an unindented line that opens a list item or
 * a heading, or that follows a blank line; indented and following lines belong to it, and so does
 * everything inside a code fence.
 */
export function splitEntries(body: string): Entry[] {
  const entries: Entry[] = [];
  let fence: string | undefined;
  let blanks = 0;
  for (const line of body.split('\n')) {
    const last = entries[entries.length - 1];
    if (fence !== undefined) {
      last.text += '\n' + line;
      if (line.trim().startsWith(fence)) fence = undefined;
      continue;
    }
    if (line.trim() === '') {
      blanks++;
      continue;
    }
    const opens = !last || (!/^\s/.test(line) && (blanks > 0 || ITEM.test(line) || /^#{1,6}\s/.test(line) || FENCE.test(line)));
    if (opens) entries.push({ text: line, gap: blanks });
    else last.text += '\n'.repeat(blanks + 1) + line;
    blanks = 0;
    const open = FENCE.exec(line);
    if (open) fence = open[1];
  }
  return entries;
}

/** The part's text with the kept entries and, where entries were left out, the marker. */
export function renderPart(part: PartPlan, kept: number[]): string {
  const lines: string[] = part.header ? [part.header] : [];
  const omitted = part.entries.length - kept.length;
  const marker = omitted > 0 && part.marker ? part.marker(omitted) : undefined;
  if (marker && part.keep === 'last') lines.push(marker);
  kept.forEach((i, k) => {
    const e = part.entries[i];
    lines.push('\n'.repeat(k > 0 ? e.gap : 0) + e.text);
  });
  if (marker && part.keep === 'first') lines.push(marker);
  return lines.join('\n');
}
