// Where a compaction cuts. Quick plan: read backwards from the end, parsing only the kept part;
// the lines before the cut are checked for links into the kept part while they are archived
// (pass 2). Exact plan: a full forward scan, used only when the quick cut would separate linked
// lines (or in the rare shapes the backward reading leaves to it).
import { isObject } from '../model/lines.js';
import { lineFacts } from '../model/messages.js';
import { BackwardStepTracker, CutPlanner, plannerLine } from '../model/turns.js';
import type { HistoryFormat } from '../model/marker.js';
import { countLines, readLines, readLinesBackward } from '../stream/read.js';

export function detectFormat(value: unknown, current: HistoryFormat | undefined): HistoryFormat | undefined {
  if (current) return current;
  if (isObject(value) && (value.type === 'user' || value.type === 'assistant') && isObject(value.message)) return 'claude';
  return undefined;
}

/** Where to cut, found from the end: only the kept part is parsed (the prefix is checked in pass 2). */
export interface CutPlan {
  cut: number;
  /** Link ids at or after the cut: a line before it carrying one means the cut separates linked lines. */
  tailIds: Set<string>;
  tailTurns: number;
  tailLines: number;
  /** Steps at or after the cut. */
  tailSteps: number;
  /** Start of the newest turn and whether cutting there keeps linked lines together (--target all). */
  lastTurn: number;
  lastTurnClean: boolean;
  format?: HistoryFormat;
  /** From a full forward scan: no straddle check needed. */
  exact: boolean;
  /**
   * The ids that would link a line before the cut to the kept part if any line before it holds
   * one: results in the kept part that answer no call kept before them, and Claude Code message
   * ids (every line of a response shares one). Raw, without the namespace prefix of `tailIds`.
   */
  needles: string[];
  /** Whether a turn starts before the cut (known from a plan read from the end). */
  turnBefore?: boolean;
  /** The cut falls inside a turn: that turn's opening line (with its terminator), repeated after the marker. */
  opening?: Buffer;
}

/** Nothing to cut: what the history holds. */
export interface NoCut {
  turns: number;
  lines: number;
  steps: number;
}

/** Link ids and counts of the kept part, gathered line by line from the end. */
class Tail {
  ids = new Set<string>();
  lines = 0;
  turns = 0;
  steps = 0;
  lastTurn: number;
  lastTurnClean = true;
  format?: HistoryFormat;
  private lastIds?: Set<string>;
  // Read backwards, a call answers every result of its id seen so far (they come after it).
  private unanswered = new Set<string>();
  private messageIds = new Set<string>();

  constructor(size: number) {
    this.lastTurn = size;
  }

  add(offset: number, facts: ReturnType<typeof lineFacts>): void {
    this.lines++;
    if (facts.info.kind === 'message') this.format = detectFormat(facts.info.value, this.format);
    for (let i = facts.links.length - 1; i >= 0; i--) {
      const link = facts.links[i]!;
      if (this.lastIds && this.lastIds.has(link.id)) this.lastTurnClean = false;
      this.ids.add(link.id);
      if (link.role === 'result') this.unanswered.add(link.id);
      else if (link.role === 'use') this.unanswered.delete(link.id);
      else this.messageIds.add(link.id);
    }
    if (!facts.turnStart) return;
    if (++this.turns === 1) {
      this.lastTurn = offset;
      this.lastIds = new Set(this.ids);
    }
  }

  plan(cut: number): CutPlan {
    const needles = [...this.unanswered, ...this.messageIds].map((id) => id.slice(2));
    return { cut, tailIds: this.ids, tailTurns: this.turns, tailLines: this.lines, tailSteps: this.steps, lastTurn: this.lastTurn, lastTurnClean: this.lastTurnClean, format: this.format, exact: false, needles, turnBefore: false };
  }
}

/** Could these bytes be a user message? (Lines past the cut are parsed only then.) */
function mayStartTurn(bytes: Buffer): boolean {
  return bytes.includes('user') || bytes.includes('\\u');
}

/**
 * The quick plan: the start of the `keepRecent`-th turn from the end or, when the last
 * keepRecent turns hold more than `keepSteps` steps, of the `keepSteps`-th step (the turn's start
 * when the step opens it). Shapes the backward reading cannot settle alone (a step before any
 * turn, a turn whose opening line carries links, exactly keepSteps steps in the last turns) get
 * the exact plan.
 */
export async function planFromTail(file: string, size: number, keepRecent: number, keepSteps = Infinity): Promise<CutPlan | NoCut> {
  if (keepRecent === 0) return { cut: size, tailIds: new Set(), tailTurns: 0, tailLines: 0, tailSteps: 0, lastTurn: size, lastTurnClean: false, exact: true, needles: [] };
  const tail = new Tail(size);
  const steps = new BackwardStepTracker();
  let plan: CutPlan | undefined;
  // A plan at a step: inside a turn (its opening line still to find), and whether a step before
  // it, within the last keepRecent turns, confirmed that they hold more than keepSteps.
  let byStep = false;
  let inside = false;
  let confirmed = false;
  const past = { lines: 0, turns: 0 };
  let opening: { bytes: Buffer; offset: number } | undefined;
  let turnBefore = false;
  for await (const line of readLinesBackward(file, size)) {
    if (plan) {
      // Past the cut: whether a turn starts before it (else nothing would be archived but lines
      // that are not turns), the opening line of a turn the cut falls inside, and whether one
      // more step makes the cut at a step worth it. Other lines are not even parsed.
      past.lines++;
      const unsure = byStep && !confirmed;
      if (!unsure && !mayStartTurn(line.bytes)) continue;
      const facts = lineFacts(line.bytes.toString('utf8'));
      if (unsure && steps.add(line.offset, plannerLine(facts))) confirmed = true;
      if (facts.turnStart) {
        past.turns++;
        if (inside && !opening) {
          if (facts.links.length) return planFromStart(file, size, keepRecent, keepSteps);
          opening = { bytes: Buffer.from(line.bytes), offset: line.offset };
        }
        turnBefore = true;
        // The last keepRecent turns hold exactly keepSteps steps: the cut is a turn's, if any.
        if (byStep && !confirmed && tail.turns + past.turns >= keepRecent) return planFromStart(file, size, keepRecent, keepSteps);
      }
      if (!turnBefore || (byStep && !confirmed)) continue;
      if (!opening) return { ...plan, turnBefore: true };
      return { ...plan, turnBefore: true, opening: opening.bytes, lastTurn: tail.turns ? tail.lastTurn : opening.offset };
    }
    const facts = lineFacts(line.bytes.toString('utf8'));
    const step = steps.add(line.offset, plannerLine(facts));
    const lastStep = step !== undefined && ++tail.steps === keepSteps;
    if (lastStep && !step.opensTurn) {
      // The cut falls inside a turn, just after this line (which is past it).
      plan = tail.plan(step.start);
      byStep = inside = true;
      past.lines++;
      continue;
    }
    tail.add(line.offset, facts);
    if (facts.turnStart && (tail.turns === keepRecent || lastStep)) {
      plan = tail.plan(line.offset);
      byStep = tail.turns < keepRecent;
    }
  }
  if (byStep && !confirmed && !steps.end()) return { turns: tail.turns + past.turns, lines: tail.lines + past.lines, steps: tail.steps };
  if (!plan) return { turns: tail.turns, lines: tail.lines, steps: tail.steps };
  // A cut at a step with no turn before it: the exact plan may find a later step to cut at.
  if (byStep) return planFromStart(file, size, keepRecent, keepSteps);
  return plan;
}

/** The exact plan from a full forward scan (when the quick plan's cut would separate linked lines). */
export async function planFromStart(file: string, size: number, keepRecent: number, keepSteps = Infinity): Promise<CutPlan | NoCut> {
  const planner = new CutPlanner();
  let format: HistoryFormat | undefined;
  let lines = 0;
  for await (const line of readLines(file, { end: size })) {
    const facts = lineFacts(line.bytes.toString('utf8'));
    if (facts.info.kind === 'message') format = detectFormat(facts.info.value, format);
    planner.add(line.offset, plannerLine(facts));
    lines++;
  }
  const turns = planner.turnStarts.length;
  const plan = planner.plan(keepRecent, size, keepSteps);
  if (!plan) return { turns, lines, steps: planner.stepStarts.length };
  const lastTurn = turns ? planner.turnStarts[turns - 1]! : size;
  const opening = plan.opening !== undefined ? await lineAt(file, plan.opening) : undefined;
  return {
    cut: plan.cut,
    tailIds: new Set(),
    tailTurns: turns - plan.turnsRemoved,
    tailLines: await countLines(file, plan.cut, size),
    tailSteps: planner.stepsFrom(plan.cut),
    lastTurn,
    lastTurnClean: !planner.straddles(lastTurn),
    format,
    exact: true,
    needles: [],
    opening,
  };
}

async function lineAt(file: string, offset: number): Promise<Buffer> {
  for await (const line of readLines(file, { start: offset })) return Buffer.from(line.bytes);
  return Buffer.alloc(0);
}
