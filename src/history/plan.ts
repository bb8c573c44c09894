// Where a compaction cuts. Quick plan: read backwards from the end, parsing only the kept turns;
// the lines before the cut are checked for links into the kept part while they are archived
// (pass 2). Exact plan: a full forward scan, used only when the quick cut would separate linked
// lines.
import { isObject } from './lines.js';
import { lineFacts } from './messages.js';
import { CutPlanner } from './turns.js';
import type { HistoryFormat } from './marker.js';
import { readLines, readLinesBackward } from './scan.js';

export function detectFormat(value: unknown, current: HistoryFormat | undefined): HistoryFormat | undefined {
  if (current) return current;
  if (isObject(value) && (value.type === 'user' || value.type === 'assistant') && isObject(value.message)) return 'claude';
  return undefined;
}

/** Where to cut, found from the end: only the kept turns are parsed (the prefix is checked in pass 2). */
export interface CutPlan {
  cut: number;
  /** Link ids at or after the cut: a line before it carrying one means the cut separates linked lines. */
  tailIds: Set<string>;
  tailTurns: number;
  tailLines: number;
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
}

export async function planFromTail(file: string, size: number, keepRecent: number): Promise<CutPlan | { turns: number; lines: number }> {
  if (keepRecent === 0) return { cut: size, tailIds: new Set(), tailTurns: 0, tailLines: 0, lastTurn: size, lastTurnClean: false, exact: true, needles: [] };
  const tailIds = new Set<string>();
  let lastIds: Set<string> | undefined;
  let lastTurn = size;
  let lastTurnClean = true;
  let turns = 0;
  let lines = 0;
  let format: HistoryFormat | undefined;
  // Read backwards, a call answers every result of its id seen so far (they come after it).
  const unanswered = new Set<string>();
  const messageIds = new Set<string>();
  let plan: CutPlan | undefined;
  for await (const line of readLinesBackward(file, size)) {
    const facts = lineFacts(line.bytes.toString('utf8'));
    if (plan) {
      // Past the cut, only whether a turn starts before it (else nothing would be archived but
      // lines that are not turns, which the full way refuses too).
      if (facts.turnStart) return { ...plan, turnBefore: true };
      continue;
    }
    lines++;
    if (facts.info.kind === 'message') format = detectFormat(facts.info.value, format);
    for (let i = facts.links.length - 1; i >= 0; i--) {
      const link = facts.links[i]!;
      if (lastIds && lastIds.has(link.id)) lastTurnClean = false;
      tailIds.add(link.id);
      if (link.role === 'result') unanswered.add(link.id);
      else if (link.role === 'use') unanswered.delete(link.id);
      else messageIds.add(link.id);
    }
    if (!facts.turnStart) continue;
    turns++;
    if (turns === 1) {
      lastTurn = line.offset;
      lastIds = new Set(tailIds);
    }
    if (turns === keepRecent) {
      const needles = [...unanswered, ...messageIds].map((id) => id.slice(2));
      plan = { cut: line.offset, tailIds, tailTurns: turns, tailLines: lines, lastTurn, lastTurnClean, format, exact: false, needles, turnBefore: false };
    }
  }
  return plan ?? { turns, lines };
}

/** The exact plan from a full forward scan (when the quick plan's cut would separate linked lines). */
export async function planFromStart(file: string, size: number, keepRecent: number): Promise<CutPlan | { turns: number; lines: number }> {
  const planner = new CutPlanner();
  let format: HistoryFormat | undefined;
  const linesAt: number[] = [];
  let lines = 0;
  for await (const line of readLines(file, { end: size })) {
    const facts = lineFacts(line.bytes.toString('utf8'));
    if (facts.info.kind === 'message') format = detectFormat(facts.info.value, format);
    if (facts.turnStart) linesAt.push(lines);
    planner.add(line.offset, facts.turnStart, facts.links);
    lines++;
  }
  const turns = planner.turnStarts.length;
  const plan = planner.plan(keepRecent, size);
  if (!plan) return { turns, lines };
  const lastTurn = turns ? planner.turnStarts[turns - 1]! : size;
  const tailTurns = turns - plan.turnsRemoved;
  const tailLines = plan.turnsRemoved < turns ? lines - linesAt[plan.turnsRemoved]! : 0;
  return { cut: plan.cut, tailIds: new Set(), tailTurns, tailLines, lastTurn, lastTurnClean: !planner.straddles(lastTurn), format, exact: true, needles: [] };
}
