// The workspace block at any team size, pure: one rule for one id (the newest `updated`, then the
// greater text, type and created; a broken or future time the oldest) whatever the order of the
// copies; an own entry never masks a newer team copy; the block is filled by priority within its
// budget and counts the rest; the team file's check and diff.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { WORKSPACE_LIMITS, composeWorkspace, mergeTeam, moreLine, newerCopy, renderComposed } from '../../src/memory/workspace-block.js';
import { asWorkspaceEntry, checkTeam, diffTeam, formatEntry, formatTeam, notAfter, parseTeam, resolveTeam, upsertTeam, type TeamEntry } from '../../src/memory/team.js';
import { WORKSPACE_TYPES, type WorkspaceEntry } from '../../src/memory/workspace.js';

const NOW = Date.parse('2026-11-26T12:00:00.000Z');
const LATEST = notAfter(NOW);
const own = (id: string, text: string, updated: string, type: WorkspaceEntry['type'] = 'project'): WorkspaceEntry => ({ id, type, text, source: 'explicit', confidence: 1, created: '2026-10-01T00:00:00.000Z', updated });
const line = (id: string, text: string, updated: string, n: number, type: TeamEntry['type'] = 'project'): TeamEntry => ({ id, type, text, created: '2026-10-01T00:00:00.000Z', updated, line: n });

describe('one rule for one id', () => {
  it('two lines with one id and equal updated resolve the same whatever their order (text, then type, then created)', () => {
    const copy = fc.record({
      text: fc.constantFrom('Builds need pnpm 9', 'Builds need pnpm 10', 'builds need pnpm 9'),
      type: fc.constantFrom(...WORKSPACE_TYPES),
      created: fc.constantFrom('2026-10-01T00:00:00.000Z', '2026-10-02T00:00:00.000Z'),
      updated: fc.constantFrom('2026-11-01T00:00:00.000Z', '2026-11-01T00:00:00Z', 'garbage-not-a-time', '2031-01-01T00:00:00.000Z'),
    });
    fc.assert(
      fc.property(fc.array(copy, { minLength: 1, maxLength: 5 }), (copies) => {
        const lines = copies.map((c, i) => ({ ...c, id: 'm-1', line: i + 1 }));
        const forward = resolveTeam(lines, LATEST).entries[0];
        const backward = resolveTeam([...lines].reverse(), LATEST).entries[0];
        expect(formatEntry(forward)).toBe(formatEntry(backward));
      }),
      { numRuns: 300 },
    );
  });

  it('a broken or future updated counts as the oldest, and --check reports it', () => {
    const good = line('m-1', 'Deploys go through the staging cluster first', '2026-11-01T00:00:00.000Z', 1);
    const future = line('m-1', 'Deploys go straight to production on Fridays', '2031-01-01T00:00:00.000Z', 2);
    const broken = line('m-1', 'Deploys are done by hand from a laptop', '2026-13-45T99:00:00.000Z', 3);
    expect(resolveTeam([future, broken, good], LATEST).entries[0].text).toBe(good.text);
    expect(asWorkspaceEntry(future, LATEST).updated).toBe('1970-01-01T00:00:00.000Z');
    const text = [good, future, broken].map(formatEntry).join('\n') + '\n';
    const { problems } = checkTeam(parseTeam(text), NOW);
    expect(problems.filter((p) => p.kind === 'updated').map((p) => [p.line, /future|not a real time/.exec(p.message)?.[0]])).toEqual([
      [2, 'future'],
      [3, 'not a real time'],
    ]);
    expect(problems.every((p) => p.severity === 'error')).toBe(true);
  });

  it('an own copy never masks a newer team copy; a newer own copy wins; a tie keeps one', () => {
    const mine = own('m-1', 'Builds need pnpm 9 and Node 22', '2026-11-01T00:00:00.000Z');
    const theirs = asWorkspaceEntry(line('m-1', 'Builds need pnpm 10 and Node 24', '2026-11-02T00:00:00.000Z', 1));
    expect(mergeTeam([mine], [theirs])).toEqual([theirs]);
    const later = { ...mine, updated: '2026-11-03T00:00:00.000Z' };
    expect(mergeTeam([later], [theirs])).toEqual([later]);
    // The same text under another id is the same entry too.
    const sameText = asWorkspaceEntry(line('m-9', 'Builds need pnpm 9 and Node 22.', '2026-10-01T00:00:00.000Z', 2));
    expect(mergeTeam([mine], [sameText])).toEqual([mine]);
    expect(newerCopy(mine, { ...mine })).toBe(mine);
  });

  it('the team file guards secrets with the gate\'s patterns, a token glued to a word included', () => {
    const planted = line('m-2', 'Deploy id S1ghp_R4nD0mT0k3nV4lu3F0rT3st1ngPurp0s3sXY for CI', '2026-11-01T00:00:00.000Z', 1);
    const check = checkTeam(parseTeam(formatEntry(planted) + '\n'), NOW);
    expect(check.problems.map((p) => p.kind)).toEqual(['secret']);
    expect(check.entries).toBe(0);
  });
});

describe('the block at team size', () => {
  const team = (count: number, size: (n: number) => number): WorkspaceEntry[] =>
    Array.from({ length: count }, (_, n) => ({
      ...own(`m-${String(n).padStart(6, '0')}`, `Fact ${n} ${'x'.repeat(size(n))}`, new Date(Date.UTC(2026, 9, 1) + n * 60_000).toISOString(), WORKSPACE_TYPES[n % 4]),
      source: 'team' as const,
    }));

  it('stays within its budget, fills it (nothing left out would fit), and counts the rest', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 400 }), fc.integer({ min: 1, max: 900 }), fc.integer({ min: 0, max: 1000 }), (count, max, seed) => {
        const entries = team(count, (n) => ((n * 7919 + seed) % max) + 1);
        const composed = composeWorkspace(entries);
        const body = renderComposed(composed);
        expect(body.length).toBeLessThanOrEqual(WORKSPACE_LIMITS.chars);
        expect(composed.shown.length).toBeLessThanOrEqual(WORKSPACE_LIMITS.entries);
        const rest = count - composed.shown.length;
        if (rest) expect(body.endsWith(moreLine(rest))).toBe(true);
        else expect(body).not.toMatch(/more not shown/);
        // Full: with room for the count line, no entry left out would have fitted.
        if (rest && composed.shown.length < WORKSPACE_LIMITS.entries) {
          const used = composed.shown.reduce((n, e) => n + renderComposed({ shown: [e], total: 1, reference: composed.reference }).length + 1, 0);
          for (const e of entries.filter((x) => !composed.shown.includes(x))) {
            expect(used + renderComposed({ shown: [e], total: 1, reference: composed.reference }).length + 1 + moreLine(count).length + 1).toBeGreaterThan(WORKSPACE_LIMITS.chars);
          }
        }
        expect(renderComposed(composeWorkspace([...entries].reverse()))).toBe(body);
      }),
      { numRuns: 60 },
    );
  });

  it('puts feedback and explicit entries first, then decisions, newest first', () => {
    const entries = team(400, () => 20);
    // An own explicit entry ranks with feedback (said on purpose), by recency.
    const mine = own('m-own', 'Our own explicit project fact about the release train', '2026-11-01T00:00:00.000Z');
    const { shown } = composeWorkspace([...entries, mine]);
    expect(shown[0]).toBe(mine);
    expect(composeWorkspace([...entries, { ...mine, source: 'compaction' }]).shown).not.toContainEqual({ ...mine, source: 'compaction' });
    expect(shown.filter((e) => e !== mine).every((e) => e.type === 'feedback')).toBe(true);
    const newestFeedback = entries.filter((e) => e.type === 'feedback').at(-1)!;
    expect(shown).toContain(newestFeedback);
  });
});

describe('share --diff', () => {
  it('lists what a rewrite adds, changes and removes', () => {
    const a = line('m-1', 'First fact about the build', '2026-11-01T00:00:00.000Z', 0);
    const b1 = line('m-2', 'Second fact, old copy', '2026-11-01T00:00:00.000Z', 0);
    const b2 = line('m-2', 'Second fact, new copy', '2026-11-02T00:00:00.000Z', 0);
    const before = parseTeam(formatTeam(upsertTeam(parseTeam(''), [a])) + formatEntry(b1) + '\n' + formatEntry(b2) + '\n');
    const after = upsertTeam(before, [{ ...a, text: 'First fact about the build, edited', updated: '2026-11-03T00:00:00.000Z' }, line('m-3', 'A third fact', '2026-11-03T00:00:00.000Z', 0)]);
    expect(diffTeam(before, after, LATEST).map((c) => [c.kind, c.id])).toEqual([
      ['change', 'm-1'],
      ['remove', 'm-2'],
      ['add', 'm-3'],
    ]);
    expect(diffTeam(after, parseTeam(formatTeam(after, LATEST)), LATEST).map((c) => c.kind)).toEqual(['remove']);
  });
});
