import { describe, expect, it } from 'vitest';
import { formatNote, parseNoteLine, parseScratch } from '../../src/memory/scratch.js';

const at = new Date('2026-03-12T14:30:00.123Z');

describe('scratch notes', () => {
  it('formats the documented line', () => {
    expect(formatNote({ time: at, importance: 0.8, text: 'User prefers tabs' })).toBe('- [2026-03-12T14:30:00Z] (importance: 0.8) User prefers tabs');
    expect(formatNote({ time: at, importance: 0.5, text: 'x', tags: ['#decisions', 'api'] })).toBe('- [2026-03-12T14:30:00Z] (importance: 0.5) x #decisions #api');
  });

  it('keeps a note on one line and round-trips newlines and backslashes', () => {
    const text = 'line one\nline two with a \\n literal and C:\\path';
    const line = formatNote({ time: at, importance: 0.3, text });
    expect(line.includes('\n')).toBe(false);
    expect(parseNoteLine(line, 1)?.text).toBe(text);
  });

  it('reads tags and keeps unparseable lines', () => {
    const file = [
      '<!-- wmem scratch v1: header -->',
      '- [2026-03-12T14:30:00Z] (importance: 0.9) chose pnpm #decisions',
      'a line the agent wrote by hand',
      '',
      '- [2026-03-12T14:31:00Z] (importance: 7) out of range',
    ].join('\n');
    const parsed = parseScratch(file);
    expect(parsed.notes).toHaveLength(1);
    expect(parsed.notes[0]).toMatchObject({ importance: 0.9, tags: ['decisions'], line: 2 });
    expect(parsed.unparsed.map((u) => u.line)).toEqual([3, 5]);
  });
});
