import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { formatNote, isDecision, parseNoteLine, parseScratch, recentDecisions, tagsIn } from '../../src/memory/scratch.js';

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

  it('gives the last three decisions of the tail, newest last, as the whole tail parsed would', () => {
    const note = (i: number, importance: number, text: string) => formatNote({ time: at, importance, text: `${text} ${i}` });
    const tail = ['<!-- wmem scratch v1 -->', note(1, 0.9, 'first'), note(2, 0.2, 'minor'), note(3, 0.5, 'chose it #decisions'), 'by hand', note(4, 0.8, 'third'), '', note(5, 0.95, 'last'), note(6, 0.1, 'after')].join('\r\n');
    expect(recentDecisions(tail)).toEqual(['chose it  3', 'third 4', 'last 5']);
    // Any tail: what every note parsed, then the last three decisions taken, gives.
    const whole = (text: string) => recentDecisionsOfAll(text);
    const lines = fc.oneof(fc.constantFrom('', 'by hand', '<!-- wmem scratch v1 -->', '- [2026-03-12T14:30:00Z] (importance: 7) out of range'), fc.tuple(fc.nat(20), fc.constantFrom(0.1, 0.5, 0.8, 0.9), fc.constantFrom('x', 'y #decisions', 'z\nw', '#decisionsx')).map(([i, imp, text]) => note(i, imp, text)));
    fc.assert(fc.property(fc.array(lines, { maxLength: 15 }), fc.constantFrom('\n', '\r\n'), (tailLines, eol) => {
      expect(recentDecisions(tailLines.join(eol))).toEqual(whole(tailLines.join(eol)));
    }));
  });
});

/** recentDecisions as it was: every note of the tail parsed, the last three decisions kept. */
function recentDecisionsOfAll(tail: string): string[] {
  return parseScratch(tail).notes.filter(isDecision).slice(-3).map((d) => d.text.replace(/\s+/g, ' ').replace(/(^|\s)#decisions(?=\s|$)/, '$1').trim()).map((t) => (t.length > 200 ? t.slice(0, 199) + '…' : t));
}
