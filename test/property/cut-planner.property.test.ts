// Property: the cut planner's one-pass answer (each span marks the turn starts it covers) is the
// cut that asking every candidate "does any span straddle you?" gives, for random streams of
// turn starts, calls, results (answered, late, reused ids) and split Claude Code responses.
import { expect, it } from 'vitest';
import fc from 'fast-check';
import { CutPlanner } from '../../src/history/model/turns.js';
import type { Link } from '../../src/history/model/messages.js';

const line = fc.record({
  turnStart: fc.boolean(),
  links: fc.array(
    fc.record({ id: fc.constantFrom('t:1', 't:2', 't:3', 'm:a', 'm:b'), role: fc.constantFrom('use', 'result', 'msg') }).map((l): Link => ({ id: l.id, role: l.id.startsWith('m:') ? 'msg' : l.role === 'msg' ? 'use' : l.role }) as Link),
    { maxLength: 2 },
  ),
});

it('plans the same cut as checking every candidate against every span', () => {
  fc.assert(
    fc.property(fc.array(line, { maxLength: 40 }), fc.nat(6), (lines, keepRecent) => {
      const planner = new CutPlanner();
      lines.forEach((l, i) => planner.add(i * 10, { turnStart: l.turnStart, links: l.links, role: 'other' }));
      const turns = planner.turnStarts;
      let expected: { cut: number; turnsRemoved: number } | undefined;
      if (keepRecent === 0) expected = turns.length > 0 || lines.length * 10 > 0 ? { cut: lines.length * 10, turnsRemoved: turns.length } : undefined;
      else if (turns.length > keepRecent) {
        for (let index = turns.length - keepRecent; index >= 1 && !expected; index--) if (!planner.straddles(turns[index]!)) expected = { cut: turns[index]!, turnsRemoved: index };
      }
      expect(planner.plan(keepRecent, lines.length * 10)).toEqual(expected);
    }),
    { numRuns: 2000 },
  );
});
