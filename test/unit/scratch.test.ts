import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { formatNote, parseNoteLine, parseScratch, tagsIn } from '../../src/memory/scratch.js';

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

  it('finds the tags a letter starts, in ASCII and in any other script, as the Unicode pattern does', () => {
    expect(tagsIn('chose pnpm #decisions #api-v2 #123 a#b #x_y')).toEqual(['decisions', 'api-v2', 'x_y']);
    expect(tagsIn('#été and #日本語 #ab² #Ωmega')).toEqual(['été', '日本語', 'ab²', 'Ωmega']);
    // The ASCII pattern (nearly every note) answers as the Unicode one on any text.
    const unicode = (text: string) => [...text.matchAll(/(?:^|\s)#(\p{L}[\p{L}\p{N}_-]*)/gu)].map((m) => m[1]);
    const pieces = fc.constantFrom('#', ' ', '\t', 'a', 'Z', '0', '9', '_', '-', 'é', '²', '日', '\u00a0', '#tag', ' #x1');
    fc.assert(fc.property(fc.array(pieces, { maxLength: 12 }).map((p) => p.join('')), (text) => {
      expect(tagsIn(text)).toEqual(unicode(text));
    }));
  });
});
