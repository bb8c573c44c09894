// Property: the shortlist's staged boosts (src/memory/search.ts boosted: the phrase decided for a
// batch read, proximity in the order of what a line could still reach, both stopping early) rank
// exactly as boosting every shortlisted line does: over random lines with the query's words, its
// phrase inside other words ("return 42421" holds "turn 4242"), repeated lines (ties), non-ASCII.
// And what lets proximity skip a word unread: a word's stem starts with the word's first letter,
// or with one stemInitials gives for it (an irregular word).
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { forEachWord, parseQuery, proximity, rank, scanText, type Candidate } from '../../src/memory/search.js';
import { stem, stemInitials } from '../../src/memory/text.js';

const WORDS = ['turn', 'Turn', '4242', '42421', 'return', 'deploy', 'config', 'deploy config', 'turn 4242', 'return 42421', 'the', 'a', 'x_turn', 'café', 'Übersetzung', '日本語', 'tests', 'failing', 'loop', 'bound', 'off-by-one'];
const line = fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 14 }).map((w) => w.join(' '));
// Up to 200 lines: the shortlist (20 × the limit, at least 200) holds every candidate at any limit.
const lines = fc.array(fc.oneof(line, fc.constant('turn 4242 deploy config')), { minLength: 1, maxLength: 200 });
const QUERIES = ['turn 4242', 'deploy config', 'off-by-one in the loop bound', 'failing tests', 'Übersetzung 日本語', 'turn'];

describe('the staged boosts', () => {
  it('equal boosting every shortlisted line, at any limit', () => {
    fc.assert(
      fc.property(lines, fc.constantFrom(...QUERIES), fc.integer({ min: 1, max: 30 }), (text, raw, limit) => {
        const query = parseQuery(raw);
        const ranked = (n: number) => {
          const out: Candidate[] = [];
          const stats = scanText(text.join('\n'), query, 0, out);
          return rank(out, query, stats, [{ boost: 1, recency: 1 }], { limit: n }).map((s) => [s.candidate.line, s.score]);
        };
        // A limit past the line count boosts every line (the floor is never full).
        expect(ranked(limit)).toEqual(ranked(1000).slice(0, limit));
      }),
      { numRuns: 300 },
    );
  });
});

const IRREGULAR_LIKE = ['went', 'Gone', 'ran', 'children', 'indices', 'queries', 'thought', 'understood', 'data', 'constructor', 'Constructor', 'nationalization', 'running', 'stopped', 'ies', 'sses', 'x1s'];
const asciiWord = fc.oneof(fc.stringMatching(/^[a-zA-Z0-9]{1,14}$/), fc.constantFrom(...IRREGULAR_LIKE));

describe('the proximity boost\'s word skip', () => {
  it('a word\'s stem starts with a letter whose stemInitials hold the word\'s first letter', () => {
    fc.assert(
      fc.property(asciiWord, (word) => {
        const lower = word.toLowerCase();
        expect(stemInitials(stem(lower)[0])).toContain(lower[0]);
      }),
      { numRuns: 3000 },
    );
  });

  it('gives a word whose first character is not marked as an empty word, every other as without the marks', () => {
    const text = fc.array(fc.oneof(asciiWord, fc.constantFrom(' ', '_', '-', '.', '\n', '4242')), { maxLength: 30 }).map((p) => p.join(''));
    fc.assert(
      fc.property(text, fc.uint8Array({ minLength: 128, maxLength: 128, max: 1 }), (t, marks) => {
        const all: string[] = [];
        const some: string[] = [];
        forEachWord(t, (w) => all.push(w));
        forEachWord(t, (w) => some.push(w), marks);
        expect(some).toEqual(all.map((w) => (marks[w.charCodeAt(0)] ? w : '')));
      }),
      { numRuns: 1000 },
    );
  });
});

// Query words and line words that reach one another only through a related word, an irregular
// form, a prefix stem or a capital: what the skip's table (wordInitials) must mark.
const NEAR_WORDS = ['deploy', 'Release', 'ship', 'SHIP', 'config', 'Configuration', 'setting', 'bug', 'error', 'Crash', 'went', 'go', 'Gone', 'children', 'child', 'run', 'ran', 'Launch', 'constructor', 'construct', 'Constructors', 'cache', 'Memo', 'tests', 'Spec', 'the', 'loop', 'x_ship', 'ship-it', '42', 'café', '日本語'];

describe('the proximity boost with the skip', () => {
  it('counts what it counts reading every word', () => {
    const text = fc.array(fc.oneof(fc.constantFrom(...NEAR_WORDS), fc.stringMatching(/^[a-zA-Z]{1,8}$/)), { minLength: 1, maxLength: 30 }).map((w) => w.join(' '));
    const query = fc.array(fc.constantFrom(...NEAR_WORDS), { minLength: 2, maxLength: 4 }).map((w) => w.join(' '));
    fc.assert(
      fc.property(query, text, (raw, t) => {
        const q = parseQuery(raw);
        expect(proximity(q)(t)).toBe(proximity(q, false)(t));
      }),
      { numRuns: 3000 },
    );
  });
});
