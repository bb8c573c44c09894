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
    for (let index = turns - keepRecent; index >= 1; index--) {
      const cut = this.turnStarts[index]!;
      if (!this.straddles(cut)) return { cut, turnsRemoved: index };
    }
    return undefined;
  }
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
