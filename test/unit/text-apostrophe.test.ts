// The typographic apostrophe (U+2019) in text.ts's and search-shape.ts's patterns, spelled \u2019
// there so that the search bundle stays ASCII: each pattern must still take it as the ASCII one.
import { describe, expect, it } from 'vitest';
import { stem, words } from '../../src/memory/text.js';
import { querySpeakers, speakerOf } from '../../src/memory/search-shape.js';

describe('the typographic apostrophe', () => {
  it('keeps a contraction one word, as the ASCII apostrophe does', () => {
    expect(words('I don\u2019t know')).toEqual(words("I don't know").map((w) => w.replace("'", '\u2019')));
    expect(words('I don\u2019t know')).toContain('don\u2019t');
  });

  it('is stripped with a possessive s by the stemmer', () => {
    expect(stem('Kate\u2019s')).toBe('kate');
    expect(stem('Kate\u2019s')).toBe(stem("Kate's"));
  });

  it('names a speaker in a question and in a line\u2019s label', () => {
    expect([...querySpeakers('What are Kate\u2019s hobbies?')]).toEqual(['kate']);
    expect(speakerOf('user: O\u2019Brien: we ship on Friday')).toBe(speakerOf("user: O'Brien: we ship on Friday")?.replace("'", '\u2019'));
    expect(speakerOf('user: O\u2019Brien: we ship on Friday')).toBeDefined();
  });

  it('is not some other quote mark', () => {
    expect(stem('Kate\u2018s')).not.toBe('kate');
  });
});
