// The team memory file, pure: parse and format round trip, sorted by id, malformed lines kept
// and reported, duplicates resolved to the newest `updated` on every machine, --check's report.
// Merged with real git: team-merge.test.ts (the slow tier).
import { describe, expect, it } from 'vitest';
import { checkTeam, formatEntry, formatTeam, parseTeam, removeFromTeam, resolveTeam, upsertTeam, type TeamEntry } from '../../src/memory/team.js';

const NOW = Date.parse('2026-11-26T00:00:00.000Z');
const entry = (id: string, text: string, updated = '2026-11-01T00:00:00.000Z', type: TeamEntry['type'] = 'project'): Omit<TeamEntry, 'line'> => ({ id, type, text, created: '2026-10-01T00:00:00.000Z', updated });

describe('the team file', () => {
  it('formats entries sorted by id and parses them back', () => {
    const text = formatTeam(upsertTeam(parseTeam(''), [entry('m-2', 'Second fact about the build'), entry('m-1', 'First fact <!-- not a comment --> here')]));
    const parsed = parseTeam(text);
    expect(parsed.entries.map((e) => e.id)).toEqual(['m-1', 'm-2']);
    expect(parsed.entries[0].text).toBe('First fact < !-- not a comment -- > here');
    expect(parsed.malformed).toEqual([]);
    expect(formatTeam(parsed)).toBe(text);
  });

  it('keeps a malformed line and reports it with its line number', () => {
    const text = formatTeam(upsertTeam(parseTeam(''), [entry('m-1', 'A fact')])) + 'this line was typed by hand\n';
    const parsed = parseTeam(text);
    expect(parsed.malformed).toEqual([{ line: text.split('\n').length - 1, raw: 'this line was typed by hand' }]);
    expect(formatTeam(parsed)).toContain('this line was typed by hand');
    expect(checkTeam(parsed, NOW).problems.map((p) => p.kind)).toEqual(['malformed']);
  });

  it('resolves an id written twice to the newest, the same whichever comes first', () => {
    const a = { ...entry('m-1', 'Old text', '2026-11-01T00:00:00.000Z'), line: 1 };
    const b = { ...entry('m-1', 'New text', '2026-11-02T00:00:00.000Z'), line: 2 };
    expect(resolveTeam([a, b]).entries[0].text).toBe('New text');
    expect(resolveTeam([b, a]).entries[0].text).toBe('New text');
    const tie = { ...entry('m-1', 'Other text', '2026-11-02T00:00:00.000Z'), line: 3 };
    expect(resolveTeam([b, tie]).entries[0].text).toBe(resolveTeam([tie, b]).entries[0].text);
    expect(resolveTeam([a, b]).duplicates).toEqual([{ id: 'm-1', lines: [1, 2] }]);
  });

  it('--check reports a planted key, a duplicate and a broken line with their lines', () => {
    const lines = [formatEntry(entry('m-1', 'Deploy key is ghp_R4nD0mT0k3nV4lu3F0rT3st1ngPurp0s3sXY')), formatEntry(entry('m-2', 'A')), formatEntry(entry('m-2', 'B', '2026-11-05T00:00:00.000Z')), '- [project] broken'];
    const problems = checkTeam(parseTeam(lines.join('\n') + '\n'), NOW).problems;
    expect(problems.map((p) => [p.kind, p.line])).toEqual([
      ['secret', 1],
      ['duplicate', 3],
      ['malformed', 4],
    ]);
  });

  it('removes every line of an id', () => {
    const file = parseTeam([formatEntry(entry('m-1', 'A')), formatEntry(entry('m-1', 'B')), formatEntry(entry('m-2', 'C'))].join('\n'));
    const { file: next, removed } = removeFromTeam(file, 'm-1');
    expect(removed).toBe(2);
    expect(next.entries.map((e) => e.id)).toEqual(['m-2']);
  });
});
