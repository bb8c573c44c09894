// Pure: turns, steps and where a compaction may cut. A turn is a user message and everything up
// to the next one; lines before the first user message (metadata, summaries) go with the first
// turn. A step is one assistant response (its lines, in Claude Code one per content block) with
// the tool results that answer it. A cut is at the start of a turn, or inside one at the start of
// a step, and never between lines that share a link (a tool call and its result, or the lines of
// one Claude Code response split by `message.id`).
import type { Link, LineFacts } from './messages.js';
import { lineFacts } from './messages.js';

/** What the planner needs of a line: a model response, another message, or anything else. */
export type StepRole = 'assistant' | 'message' | 'other';

export interface PlannerLine {
  turnStart: boolean;
  links: Link[];
  role: StepRole;
}

export function plannerLine(facts: Pick<LineFacts, 'info' | 'turnStart' | 'links'>): PlannerLine {
  const role: StepRole = facts.info.kind !== 'message' ? 'other' : facts.info.role === 'assistant' ? 'assistant' : 'message';
  return { turnStart: facts.turnStart, links: facts.links, role };
}

/** The Claude Code response a line belongs to (its `message.id`), if it says. */
export function responseOf(links: Link[]): string | undefined {
  for (const link of links) if (link.role === 'msg') return link.id;
  return undefined;
}

/**
 * Consecutive assistant lines are one response unless their Claude Code message ids differ (a
 * Codex response is a message and its function calls on separate lines, with no id to join them).
 */
function sameResponse(before: string | undefined, after: string | undefined): boolean {
  return before === undefined || after === undefined || before === after;
}

/**
 * Finds step starts reading forwards. A step starts at an assistant line whose previous message
 * is not part of the same response; the non-message lines just before it (Codex reasoning, usage
 * and checkpoint lines) go with it, since they lead up to the response.
 */
export class StepTracker {
  private last?: { assistant: boolean; response?: string; turnStart: boolean };
  private othersFrom?: number;

  /** Feeds one line; returns where a step starts, and whether the message before it opens the turn. */
  add(position: number, line: PlannerLine): { start: number; opensTurn: boolean } | undefined {
    if (line.role === 'other') {
      this.othersFrom ??= position;
      return undefined;
    }
    const from = this.othersFrom ?? position;
    this.othersFrom = undefined;
    const previous = this.last;
    const response = responseOf(line.links);
    this.last = { assistant: line.role === 'assistant', response, turnStart: line.turnStart };
    if (line.role !== 'assistant' || (previous?.assistant && sameResponse(previous.response, response))) return undefined;
    return { start: from, opensTurn: previous?.turnStart === true };
  }
}

/**
 * The same step starts found reading backwards (for planning from the end of a long history): a
 * step is known once the message line before it is read, so `add` reports it then (with whether
 * that line opens the turn), and `end` reports one left at the start of the file.
 */
export class BackwardStepTracker {
  private block?: { start: number; response?: string };
  private othersFrom?: number;

  add(position: number, line: PlannerLine): { start: number; opensTurn: boolean } | undefined {
    if (line.role === 'other') {
      this.othersFrom = position;
      return undefined;
    }
    let found: { start: number; opensTurn: boolean } | undefined;
    const response = responseOf(line.links);
    const block = this.block;
    if (block && line.role === 'assistant' && sameResponse(response, block.response)) {
      block.start = position;
      block.response = response;
    } else {
      if (block) found = { start: this.othersFrom ?? block.start, opensTurn: line.turnStart };
      this.block = line.role === 'assistant' ? { start: position, response } : undefined;
    }
    this.othersFrom = undefined;
    return found;
  }

  end(): { start: number; opensTurn: boolean } | undefined {
    const block = this.block;
    this.block = undefined;
    return block ? { start: this.othersFrom ?? block.start, opensTurn: false } : undefined;
  }
}

/** A cut: where, how many turns it removes (a turn it falls inside counts), and that turn's opening line when it falls inside one. */
export interface PlannedCut {
  cut: number;
  turnsRemoved: number;
  /** Position of the opening user message of the turn the cut falls inside (repeated after the marker). */
  opening?: number;
}

interface Span {
  first: number;
  last: number;
  closed: boolean;
}

/**
 * Fed line by line (positions are any increasing numbers: byte offsets or line indices), it
 * remembers turn starts, step starts and the spans of links, and then says where to cut.
 */
export class CutPlanner {
  readonly turnStarts: number[] = [];
  readonly stepStarts: number[] = [];
  /** Per step: the index of the turn it is in (-1 before the first), and whether it is that turn's first. */
  private stepTurn: number[] = [];
  private stepOpensTurn: boolean[] = [];
  /** Per turn: whether its opening line carries links (a copy of it could not stand alone). */
  private turnLinked: boolean[] = [];
  private steps = new StepTracker();
  private open = new Map<string, Span>();
  /** Closed spans that cover more than one line (a one-line span can never straddle a cut). */
  private spans: Span[] = [];

  add(position: number, line: PlannerLine): void {
    if (line.turnStart) {
      this.turnStarts.push(position);
      this.turnLinked.push(line.links.length > 0);
    }
    const step = this.steps.add(position, line);
    if (step) {
      this.stepStarts.push(step.start);
      this.stepTurn.push(this.turnStarts.length - 1);
      this.stepOpensTurn.push(step.opensTurn);
    }
    for (const link of line.links) {
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

  /** How many steps start at or after `position`. */
  stepsFrom(position: number): number {
    return this.stepStarts.length - firstAtOrAbove(this.stepStarts, position);
  }

  /**
   * Where to cut so that the last `keepRecent` turns stay, but at most `keepSteps` steps
   * (docs/compaction.md); `end` (the end of the history) when keepRecent is 0. Returns undefined
   * when there is nothing to cut.
   */
  plan(keepRecent: number, end: number, keepSteps = Infinity): PlannedCut | undefined {
    const byTurns = this.planByTurns(keepRecent, end);
    if (keepRecent === 0 || this.stepsFrom(byTurns?.cut ?? -Infinity) <= keepSteps) return byTurns;
    return this.planBySteps(keepSteps, byTurns) ?? byTurns;
  }

  /** The start of the `keepRecent`-th turn from the end, moved earlier while it would separate linked lines. */
  private planByTurns(keepRecent: number, end: number): PlannedCut | undefined {
    const turns = this.turnStarts.length;
    if (keepRecent === 0) return turns > 0 || end > 0 ? { cut: end, turnsRemoved: turns } : undefined;
    if (turns <= keepRecent) return undefined;
    const held = heldAt(this.turnStarts, this.allSpans());
    for (let index = turns - keepRecent; index >= 1; index--) {
      if (!held[index]) return { cut: this.turnStarts[index]!, turnsRemoved: index };
    }
    return undefined;
  }

  /**
   * The start of the `keepSteps`-th step from the end, moved later while it would separate
   * linked lines (so that at most keepSteps stay), else earlier, but never before `byTurns`. A
   * step that opens its turn is cut before the turn's user message; one inside a turn is cut
   * before itself, and that turn's opening line is repeated after the marker (so a turn whose
   * opening line carries links, whose copy would hold half a pair, is never cut inside).
   */
  private planBySteps(keepSteps: number, byTurns: PlannedCut | undefined): PlannedCut | undefined {
    const total = this.stepStarts.length;
    const candidates = this.stepStarts.map((start, i): PlannedCut | undefined => {
      const turn = this.stepTurn[i]!;
      if (turn < 0) return undefined;
      // Cut before the first turn, nothing but lines that are not turns would go.
      if (this.stepOpensTurn[i]) return turn > 0 ? { cut: this.turnStarts[turn]!, turnsRemoved: turn } : undefined;
      return this.turnLinked[turn] ? undefined : { cut: start, turnsRemoved: turn + 1, opening: this.turnStarts[turn]! };
    });
    const positions = candidates.map((c, i) => c?.cut ?? this.stepStarts[i]!);
    const held = heldAt(positions, this.allSpans());
    const usable = (i: number) => (candidates[i] && !held[i] ? candidates[i] : undefined);
    const floor = byTurns?.cut ?? -Infinity;
    for (let i = total - keepSteps; i < total; i++) {
      const found = positions[i]! > floor ? usable(i) : undefined;
      if (found) return found;
    }
    for (let i = total - keepSteps - 1; i >= 0 && positions[i]! > floor; i--) {
      const found = usable(i);
      if (found) return found;
    }
    return undefined;
  }

  private allSpans(): Span[] {
    return [...this.spans, ...this.open.values()];
  }
}

/**
 * For each of `positions` (increasing), whether cutting there would separate linked lines: every
 * span marks the positions inside it (one pass over the spans, binary searches, a running sum),
 * rather than every candidate cut asking every span (quadratic on a long history).
 */
function heldAt(positions: number[], spans: Span[]): Uint8Array {
  const depth = new Int32Array(positions.length + 1);
  for (const span of spans) {
    if (span.last <= span.first) continue;
    const from = firstAbove(positions, span.first);
    const to = firstAbove(positions, span.last);
    if (from < to) {
      depth[from]!++;
      depth[to]!--;
    }
  }
  const held = new Uint8Array(positions.length);
  for (let i = 0, running = 0; i < positions.length; i++) {
    running += depth[i]!;
    held[i] = running > 0 ? 1 : 0;
  }
  return held;
}

/** The index of the first value at or above `position` in an increasing array (its length if none). */
function firstAtOrAbove(values: number[], position: number): number {
  let low = 0;
  let high = values.length;
  while (low < high) {
    const mid = (low + high) >> 1;
    if (values[mid]! >= position) high = mid;
    else low = mid + 1;
  }
  return low;
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

/** Where a compaction keeping `keepRecent` turns and at most `keepSteps` steps would cut, as a line index (for tests and small inputs). */
export function planLineCut(lines: string[], keepRecent: number, keepSteps = Infinity): PlannedCut | undefined {
  const planner = new CutPlanner();
  lines.forEach((line, i) => planner.add(i, plannerLine(lineFacts(line))));
  return planner.plan(keepRecent, lines.length, keepSteps);
}
