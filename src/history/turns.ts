// Pure: turns and where a compaction may cut. A turn is a user message and everything up to the
// next one; lines before the first user message (metadata, summaries) go with the first turn.
// A cut is always at the start of a turn, and never between lines that share a link (a tool call
// and its result, or the lines of one Claude Code response split by `message.id`).
import type { Link } from './messages.js';
import { lineFacts } from './messages.js';

interface Span {
  first: number;
  last: number;
  closed: boolean;
}

/**
 * Fed line by line (positions are any increasing numbers: byte offsets or line indices), it
 * remembers turn starts and the spans of links, and then says where to cut.
 */
export class CutPlanner {
  readonly turnStarts: number[] = [];
  private open = new Map<string, Span>();
  /** Closed spans that cover more than one line (a one-line span can never straddle a cut). */
  private spans: Span[] = [];

  add(position: number, turnStart: boolean, links: Link[]): void {
    if (turnStart) this.turnStarts.push(position);
    for (const link of links) {
      const span = this.open.get(link.id);
      // A result answers the latest call with its id, so every call opens a new span (a call
      // left unanswered, then its id reused, is not linked to the later pair).
      if (link.role === 'use' && span) {
        this.retire(span);
        this.open.set(link.id, { first: position, last: position, closed: false });
      } else if (span) {
        span.last = position;
        if (link.role === 'result') span.closed = true;
      } else {
        this.open.set(link.id, { first: position, last: position, closed: link.role === 'result' });
      }
    }
  }

  private retire(span: Span): void {
    if (span.last > span.first) this.spans.push(span);
  }

  /** True when cutting just before `position` would separate linked lines. */
  straddles(position: number): boolean {
    for (const span of this.spans) if (span.first < position && position <= span.last) return true;
    for (const span of this.open.values()) if (span.first < position && position <= span.last) return true;
    return false;
  }

  /**
   * The position to cut at so that the last `keepRecent` turns stay, moved earlier while it
   * would separate linked lines; `end` (the end of the history) when keepRecent is 0. Returns
   * undefined when there is nothing to cut, with the number of turns that would go.
   */
  plan(keepRecent: number, end: number): { cut: number; turnsRemoved: number } | undefined {
    const turns = this.turnStarts.length;
    if (keepRecent === 0) return turns > 0 || end > 0 ? { cut: end, turnsRemoved: turns } : undefined;
    if (turns <= keepRecent) return undefined;
    const held = this.heldTurnStarts();
    for (let index = turns - keepRecent; index >= 1; index--) {
      if (!held[index]) return { cut: this.turnStarts[index]!, turnsRemoved: index };
    }
    return undefined;
  }

  /**
   * For each turn start, whether cutting there would separate linked lines: every span marks the
   * turn starts inside it (one pass over the spans, binary searches, a running sum), rather than
   * every candidate cut asking every span (quadratic on a long history).
   */
  private heldTurnStarts(): Uint8Array {
    const starts = this.turnStarts;
    const depth = new Int32Array(starts.length + 1);
    for (const span of [...this.spans, ...this.open.values()]) {
      if (span.last <= span.first) continue;
      const from = firstAbove(starts, span.first);
      const to = firstAbove(starts, span.last);
      if (from < to) {
        depth[from]!++;
        depth[to]!--;
      }
    }
    const held = new Uint8Array(starts.length);
    for (let i = 0, running = 0; i < starts.length; i++) {
      running += depth[i]!;
      held[i] = running > 0 ? 1 : 0;
    }
    return held;
  }
}

/** The index of the first value above `position` in an increasing array (its length if none). */
function firstAbove(values: number[], position: number): number {
  let low = 0;
  let high = values.length;
  while (low < high) {
    const mid = (low + high) >> 1;
    if (values[mid]! > position) high = mid;
    else low = mid + 1;
  }
  return low;
}

/** Splits lines into turns (arrays of line indices); for tests and small inputs. */
export function splitTurns(lines: string[]): number[][] {
  const turns: number[][] = [];
  let current: number[] = [];
  let hasStart = false;
  lines.forEach((line, i) => {
    const start = lineFacts(line).turnStart;
    if (start && hasStart) {
      turns.push(current);
      current = [];
    }
    hasStart ||= start;
    current.push(i);
  });
  if (current.length) turns.push(current);
  return turns;
}

/** Where a compaction keeping `keepRecent` turns would cut, as a line index (for tests and small inputs). */
export function planLineCut(lines: string[], keepRecent: number): { cut: number; turnsRemoved: number } | undefined {
  const planner = new CutPlanner();
  lines.forEach((line, i) => {
    const facts = lineFacts(line);
    planner.add(i, facts.turnStart, facts.links);
  });
  return planner.plan(keepRecent, lines.length);
}
