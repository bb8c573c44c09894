// Properties of the cut with --keep-steps (docs/compaction.md), for random histories of every line kind the
// planner tells apart (user messages, tool results, assistant lines with and without Claude Code
// message ids, bookkeeping), with calls answered at once, late, never, or by a reused id:
// - the backward step tracker (planning from the end) finds the steps the forward one finds;
// - the planner's cut is the one a brute-force look at every step start gives, never separates
//   linked lines, keeps at most M steps unless no clean cut does, and changes nothing from the
//   turn cut when the last N turns hold no more than M steps;
// - the quick plan read from the end of a file agrees with the exact plan whenever pass 2 would
//   accept it (no link id on both sides of its cut).
import { afterAll, expect, it } from 'vitest';
import fc from 'fast-check';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { lineFacts, type Link } from '../../src/history/model/messages.js';
import { BackwardStepTracker, CutPlanner, StepTracker, plannerLine, type PlannedCut, type PlannerLine } from '../../src/history/model/turns.js';
import { planFromStart, planFromTail } from '../../src/history/compaction/plan.js';

const lineArb = (ids: string[], responses: string[]): fc.Arbitrary<PlannerLine> =>
  fc.oneof(
  { weight: 2, arbitrary: fc.record({ turnStart: fc.constant(true), links: fc.constant([] as Link[]), role: fc.constant('message' as const) }) },
  { weight: 1, arbitrary: fc.record({ turnStart: fc.constant(true), links: fc.constantFrom<Link[]>([{ id: 't:1', role: 'result' }]), role: fc.constant('message' as const) }) },
  { weight: 4, arbitrary: fc.record({ turnStart: fc.constant(false), links: fc.constantFrom(...ids).map((id): Link[] => [{ id: `t:${id}`, role: 'result' }]), role: fc.constant('message' as const) }) },
  {
    weight: 6,
    arbitrary: fc.record({
      turnStart: fc.constant(false),
      links: fc.tuple(fc.option(fc.constantFrom(...ids)), fc.option(fc.constantFrom(...responses))).map(([call, msg]): Link[] => [...(call ? [{ id: `t:${call}`, role: 'use' as const }] : []), ...(msg ? [{ id: `m:${msg}`, role: 'msg' as const }] : [])]),
      role: fc.constant('assistant' as const),
    }),
  },
  { weight: 2, arbitrary: fc.record({ turnStart: fc.constant(false), links: fc.constant([] as Link[]), role: fc.constant('other' as const) }) },
  );
// Few ids: reused ids and calls answered late or never, often.
const plannerLineArb = lineArb(['1', '2', '3'], ['a', 'b']);
const many = Array.from({ length: 40 }, (_, i) => String(i));

function feed(lines: PlannerLine[]): CutPlanner {
  const planner = new CutPlanner();
  lines.forEach((line, i) => planner.add(i * 10, line));
  return planner;
}

/** The reference: every step start tried as a cut, by asking every span. */
function bruteForce(lines: PlannerLine[], planner: CutPlanner, keepRecent: number, keepSteps: number): PlannedCut | undefined {
  const byTurns = planner.plan(keepRecent, lines.length * 10);
  if (keepRecent === 0 || planner.stepsFrom(byTurns?.cut ?? -Infinity) <= keepSteps) return byTurns;
  const turnAt = (position: number) => planner.turnStarts.filter((t) => t < position).length - 1;
  const candidates: PlannedCut[] = [];
  for (const start of planner.stepStarts) {
    let before = start / 10 - 1;
    while (before >= 0 && lines[before]!.role === 'other') before--;
    const turn = turnAt(start);
    if (turn < 0) continue;
    const opening = planner.turnStarts[turn]!;
    const candidate = before >= 0 && lines[before]!.turnStart ? { cut: opening, turnsRemoved: turn } : { cut: start, turnsRemoved: turn + 1, opening };
    if (candidate.opening === undefined && turn === 0) continue;
    if (candidate.opening !== undefined && lines[opening / 10]!.links.length) continue;
    if (planner.straddles(candidate.cut) || candidate.cut <= (byTurns?.cut ?? -Infinity)) continue;
    candidates.push(candidate);
  }
  const within = candidates.filter((c) => planner.stepsFrom(c.cut) <= keepSteps);
  return within[0] ?? candidates[candidates.length - 1] ?? byTurns;
}

it('finds the same steps reading backwards as forwards', () => {
  fc.assert(
    fc.property(fc.array(plannerLineArb, { maxLength: 40 }), (lines) => {
      const forward = new StepTracker();
      const expected = lines.flatMap((line, i) => forward.add(i, line) ?? []);
      const backward = new BackwardStepTracker();
      const found = [];
      for (let i = lines.length - 1; i >= 0; i--) {
        const step = backward.add(i, lines[i]!);
        if (step) found.push(step);
      }
      const last = backward.end();
      if (last) found.push(last);
      // A step at the very start has no message before it, so it cannot open a turn.
      expect(found.reverse()).toEqual(expected);
    }),
    { numRuns: 3000 },
  );
});

it('cuts where a brute-force look at every step start does: never between linked lines, at most M steps unless no clean cut keeps that few', () => {
  fc.assert(
    fc.property(fc.array(plannerLineArb, { maxLength: 40 }), fc.nat(4), fc.integer({ min: 1, max: 6 }), (lines, keepRecent, keepSteps) => {
      const planner = feed(lines);
      const plan = planner.plan(keepRecent, lines.length * 10, keepSteps);
      expect(plan).toEqual(bruteForce(lines, planner, keepRecent, keepSteps));
      const byTurns = planner.plan(keepRecent, lines.length * 10);
      if (planner.stepsFrom(byTurns?.cut ?? -Infinity) <= keepSteps) expect(plan).toEqual(byTurns);
      if (!plan || keepRecent === 0) return;
      expect(planner.straddles(plan.cut)).toBe(false);
      if (plan.opening !== undefined) {
        expect(planner.stepStarts).toContain(plan.cut);
        expect(lines[plan.opening / 10]!.links).toEqual([]);
        expect(planner.turnStarts.filter((t) => t > plan.opening! && t < plan.cut)).toEqual([]);
      } else {
        expect(planner.turnStarts).toContain(plan.cut);
      }
      if (planner.stepsFrom(plan.cut) > keepSteps) {
        // Kept more than M: then no later step start is a clean cut inside a turn.
        for (const start of planner.stepStarts.filter((s) => s > plan.cut)) {
          const opening = planner.turnStarts.filter((t) => t < start).pop();
          const opensTurn = opening !== undefined && lines.slice(opening / 10 + 1, start / 10).every((l) => l.role === 'other');
          const usable = opening !== undefined && !opensTurn && lines[opening / 10]!.links.length === 0 && !planner.straddles(start);
          expect(usable).toBe(false);
        }
      }
    }),
    { numRuns: 3000 },
  );
});

// The same shapes as real JSON lines, to plan from a file both ways.
const J = (v: unknown) => JSON.stringify(v);
function render(line: PlannerLine, n: number): string {
  const call = line.links.find((l) => l.role === 'use')?.id.slice(2);
  const msg = line.links.find((l) => l.role === 'msg')?.id.slice(2);
  const result = line.links.find((l) => l.role === 'result')?.id.slice(2);
  if (line.role === 'other') return n % 2 ? '{"role": "_usage", "token_count": 3}' : J({ type: 'response_item', payload: { type: 'reasoning', summary: [] } });
  if (line.role === 'message' && line.turnStart) {
    if (result) return J({ role: 'user', content: [{ type: 'tool_result', tool_use_id: `call_${result}`, content: 'ok' }, { type: 'text', text: `and go on ${n}` }] });
    return n % 2 ? J({ role: 'user', content: `request ${n}` }) : J({ type: 'user', message: { role: 'user', content: `request ${n}` } });
  }
  if (line.role === 'message') return J({ role: 'tool', tool_call_id: `call_${result}`, content: 'ok' });
  const blocks = [{ type: 'text', text: `step ${n}` }, ...(call ? [{ type: 'tool_use', id: `call_${call}`, name: 'Bash', input: {} }] : [])];
  return msg ? J({ type: 'assistant', message: { id: `msg_${msg}`, role: 'assistant', content: blocks } }) : J({ role: 'assistant', content: blocks });
}

const dir = mkdtemp(path.join(os.tmpdir(), 'wmem-steps-'));
afterAll(async () => rm(await dir, { recursive: true, force: true }));

it('plans from the end of a file as from its start, whenever pass 2 would accept the quick plan', async () => {
  const file = path.join(await dir, 'messages.jsonl');
  let compared = 0;
  await fc.assert(
    fc.asyncProperty(fc.array(lineArb(many, many), { minLength: 10, maxLength: 60 }), fc.integer({ min: 1, max: 4 }), fc.integer({ min: 1, max: 6 }), async (shapes, keepRecent, keepSteps) => {
      const lines = shapes.map(render);
      const text = lines.map((l) => l + '\n').join('');
      await writeFile(file, text);
      const size = Buffer.byteLength(text);
      const quick = await planFromTail(file, size, keepRecent, keepSteps);
      const exact = await planFromStart(file, size, keepRecent, keepSteps);
      if (!('cut' in quick)) {
        expect('cut' in exact).toBe(false);
        return;
      }
      if (quick.exact) {
        expect(quick).toEqual(exact);
        return;
      }
      // Pass 2's check: no line before the cut carries an id of the kept part.
      let offset = 0;
      for (const line of lines) {
        if (offset >= quick.cut) break;
        if (lineFacts(line).links.some((l) => quick.tailIds.has(l.id))) return;
        offset += Buffer.byteLength(line) + 1;
      }
      // A turn plan with no turn before it archives nothing: the compaction says so and stops.
      if (!quick.turnBefore) return;
      compared++;
      expect('cut' in exact).toBe(true);
      if (!('cut' in exact)) return;
      expect({ cut: quick.cut, tailTurns: quick.tailTurns, tailLines: quick.tailLines, tailSteps: quick.tailSteps, opening: quick.opening?.toString() }).toEqual({
        cut: exact.cut,
        tailTurns: exact.tailTurns,
        tailLines: exact.tailLines,
        tailSteps: exact.tailSteps,
        opening: exact.opening?.toString(),
      });
      expect(quick.lastTurn < quick.cut).toBe(exact.lastTurn < exact.cut);
    }),
    { numRuns: 800 },
  );
  expect(compared).toBeGreaterThan(100);
});
