// Search, pure: stemming, candidate scanning, BM25 ranking and its boosts.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { boosted, boundedQuery, forEachWord, latinWordChar, MAX_QUERY_CHARS, parseQuery, pointerKeywords, proximity, rank, scanText, snippet, wordAt, type Candidate, type CandidatePool, type Scored } from '../../src/memory/search.js';
import { TopLines } from '../../src/memory/top-lines.js';
import { lazyRegExp } from '../../src/memory/lazy-regexp.js';
import { keywordsOf, stem, terms } from '../../src/memory/text.js';

function search(lines: string[], query: string, plain = false) {
  const q = parseQuery(query, { plain });
  const out: Candidate[] = [];
  const stats = scanText(lines.join('\n'), q, 0, out, { plain });
  return rank(out, q, stats, [{ boost: 1, recency: 1 }], { limit: 5, plain }).map((s) => s.candidate.line);
}

describe('text', () => {
  it('stems inflections together', () => {
    expect(stem('deploys')).toBe(stem('deployed'));
    expect(stem('deploying')).toBe(stem('deploy'));
    expect(stem('failures')).toBe(stem('failure'));
    expect(stem('running')).toBe(stem('run'));
    expect(terms('How did we configure the databases?')).toEqual([stem('configure'), stem('databases')]);
  });

  it('reads words past ASCII with expressions made on first use, the same object after', () => {
    const re = lazyRegExp('[\\p{L}\\p{N}]+', 'gu');
    expect(re()).toBe(re());
    expect('Übersetzung für 日本語'.match(re())).toEqual(['Übersetzung', 'für', '日本語']);
    expect(wordAt('prüfe die', 0)).toBe('prüfe');
    expect(wordAt('x café', 2)).toBe('café');
    expect(latinWordChar('é', 0)).toBe(true);
    expect(latinWordChar('日', 0)).toBe(false);
    expect(latinWordChar('—', 0)).toBe(false);
  });

  it('picks distinctive keywords', () => {
    expect(keywordsOf(['- CORS errors from the P2P relay', '- CORS preflight fails on the relay'])).toContain('CORS');
  });
});

describe('ranking', () => {
  const lines = [
    'We deployed the app to fly.io from the main branch',
    'The user prefers tabs',
    'Deployment notes: run the migrations before deploying',
    'Tests run with vitest',
    'nothing here',
  ];

  it('finds lines by stem, not only the exact word', () => {
    expect(search(lines, 'how do we deploy')).toEqual(expect.arrayContaining([1, 3]));
    expect(search(lines, 'how do we deploy', true)).toEqual([]);
  });

  it('expands related words (a question in other words)', () => {
    expect(search(lines, 'which testing framework')[0]).toBe(4);
    expect(search(['The build broke because of a missing import', 'Lunch at noon'], 'what bug did we hit')).toEqual([1]);
  });

  it('ranks a line with more of the query and the phrase first', () => {
    const l = ['the cache is warm', 'the redis cache key layout', 'redis cache key layout is documented in the wiki', 'key'];
    expect(search(l, 'redis cache key layout')[0]).toBe(2);
  });

  it('prefers a line whose query words stand close together over one where they are scattered', () => {
    const filler = 'the parser handles quoted commas and the renderer draws the rows of the grid again';
    const scattered = `invoice totals are computed nightly; ${filler}; the engine behind billing retries`;
    const close = `${filler}; for each invoice the billing uses the engine Postgres, as said twice before`;
    // Same words once each, no phrase or word pair of the query in either; the close line is the
    // longer one, so plain BM25 alone would put it second.
    expect(close.length).toBeGreaterThan(scattered.length);
    expect(search([scattered, close], 'invoice billing engine', true)[0]).toBe(1);
    expect(search([scattered, close], 'invoice billing engine')[0]).toBe(2);
  });

  it('searches for a word that is a key every object inherits (constructor), as for any word', () => {
    // Its stem was Object itself (an inherited key of the irregular words' table), and the query failed.
    expect(stem('constructor')).toBe('constructor');
    expect(search(['the constructor runs first', 'a plain line', 'two constructors here'], 'constructor').sort()).toEqual([1, 3]);
  });

  it('decides the phrase first and runs proximity only on lines that could still reach the top', () => {
    // 10 lines with the phrase, 190 a little below them without it: after its phrase a line of the
    // 190 can reach at most 9.9 × 1.6 (proximity's most), below the phrase lines' 10 × 1.6 × 1.6.
    const query = parseQuery('deploy config');
    const texts = [...Array.from({ length: 10 }, (_, i) => `deploy config ${i}`), ...Array.from({ length: 190 }, (_, i) => `deploy now config ${i}`)];
    const top = new TopLines(200, 0);
    texts.forEach((_, i) => top.add(i < 10 ? 10 : 9.9, 0, i + 1, 2, i));
    const shortlist = top.sorted();
    const materialize = (slots: number[]): Scored[] => slots.map((s) => ({ candidate: { source: 0, line: top.line[s], text: texts[top.ref[s]], length: 20, tf: [] }, score: top.score[s], matched: 2 }));
    let calls = 0;
    const near = proximity(query);
    const counted = (text: string) => (calls++, near(text));
    const ranked = (limit: number) => boosted(shortlist, top, materialize, query, limit, counted).map((s) => [s.candidate.line, s.score]);
    expect(ranked(5)).toEqual(ranked(200).slice(0, 5));
    calls = 0;
    ranked(5);
    // The phrase lines only (before, the whole first batch of 64 lines had proximity worked out).
    expect(calls).toBe(10);
  });

  it('boosts the shortlist a batch at a time and stops only when no line left could reach the top', () => {
    // 150 lines with the query's words twice and far apart, then one with the phrase: last before
    // the boosts (fewer occurrences), first after them (phrase and proximity).
    const text = [...Array.from({ length: 150 }, (_, i) => `deploy deploy one two three four five six seven eight config ${i}`), 'deploy config'].join('\n');
    const query = parseQuery('deploy config');
    const ranked = (limit: number) => {
      const out: Candidate[] = [];
      const stats = scanText(text, query, 0, out);
      return rank(out, query, stats, [{ boost: 1, recency: 1 }], { limit }).map((s) => [s.candidate.line, s.score]);
    };
    // Every line is boosted when the limit is large (one batch): the same first lines.
    expect(ranked(1)).toEqual(ranked(1000).slice(0, 1));
    expect(ranked(1)[0][0]).toBe(151);
    expect(ranked(5)).toEqual(ranked(1000).slice(0, 5));
  });

  it('matches CJK by bigrams', () => {
    expect(search(['我们使用数据库迁移工具', '今天天气很好'], '数据库')).toEqual([1]);
  });

  it('skips lines the caller says are not content', () => {
    const q = parseQuery('deploy');
    const out: Candidate[] = [];
    scanText('<!-- deploy guidance -->\nwe deploy daily', q, 0, out, { skipLine: (l) => l.startsWith('<!--') });
    expect(out.map((c) => c.line)).toEqual([2]);
  });

  it('cuts a snippet around the match', () => {
    const s = snippet(`${'x '.repeat(300)}the deploy step ${'y '.repeat(300)}`, parseQuery('deploy'), 80);
    expect(s).toContain('deploy');
    expect(s.length).toBeLessThanOrEqual(82);
  });

  it('reads a pointer\'s keywords', () => {
    expect(pointerKeywords('- Past: CORS debugging → search: `CORS P2P`')).toBe('CORS P2P');
    expect(pointerKeywords('- a plain line')).toBeUndefined();
  });
});

describe('a huge query', () => {
  it('counts a repeated word and a repeated pair once', () => {
    const q = parseQuery(Array(30_000).fill('src').join(' '));
    expect(q.terms.map((t) => t.term)).toEqual(['src']);
    expect(q.bigrams).toEqual(['src src']);
    // An ordinary query keeps its pairs, in order.
    expect(parseQuery('deploy the staging build').bigrams).toEqual(['deploy staging', 'staging build']);
  });

  it('is searched up to MAX_QUERY_CHARS, at the end of a word; a shorter one whole', () => {
    const long = Array.from({ length: 10_000 }, (_, i) => `word${i}`).join(' ');
    const bounded = boundedQuery(long);
    expect(bounded.length).toBeLessThanOrEqual(MAX_QUERY_CHARS);
    expect(bounded.length).toBeGreaterThan(MAX_QUERY_CHARS - 12);
    expect(long.startsWith(bounded + ' ')).toBe(true);
    expect(boundedQuery('x'.repeat(MAX_QUERY_CHARS * 3))).toHaveLength(MAX_QUERY_CHARS);
    expect(boundedQuery('how do we ship a release')).toBe('how do we ship a release');
    // Text without spaces after an early one is cut at the limit, not back to its first word.
    expect(boundedQuery('TypeError: ' + '构建失败因为配置文件缺少模块'.repeat(200))).toHaveLength(MAX_QUERY_CHARS);
  });
});

describe('days as evidence', () => {
  // Two days of four lines each, then one of eight: a session's request, options and choice say
  // together what no single line does.
  const lines = [
    'user: what should we play tonight',
    'assistant: a strategy game or a puzzle',
    'user: the puzzle one',
    'assistant: puzzle it is',
    'user: what should we cook tonight',
    'assistant: pasta or a curry',
    'user: pasta, the strategy of a quick dinner',
    'assistant: pasta it is',
  ];
  const shape = [{ conversation: true, lines: 8, days: [[1, '2024-01-01'], [5, '2024-01-02']] as [number, string][] }];
  const ranked = (withShape: boolean) => {
    const q = parseQuery('strategy game for tonight');
    const out: Candidate[] = [];
    const stats = scanText(lines.join('\n'), q, 0, out);
    return rank(out, q, stats, [{ boost: 1, recency: 1 }], { limit: 8, ...(withShape ? { shape } : {}) });
  };

  it("adds a line's day score: a line of the day that covers the query ranks above an equal line of another day", () => {
    const plainOrder = ranked(false);
    const withDays = ranked(true);
    // Lines 1 and 5 match the same one word ("tonight"); only day one also holds "strategy game".
    const at = (list: typeof withDays, line: number) => list.findIndex((s) => s.candidate.line === line);
    expect(at(withDays, 1)).toBeLessThan(at(withDays, 5));
    const gap = (list: typeof withDays) => list.find((s) => s.candidate.line === 1)!.score - list.find((s) => s.candidate.line === 5)!.score;
    expect(gap(withDays)).toBeGreaterThan(gap(plainOrder));
  });

  it('a source that is not a conversation gets nothing from days', () => {
    const q = parseQuery('strategy game for tonight');
    const out: Candidate[] = [];
    const stats = scanText(lines.join('\n'), q, 0, out);
    const a = rank(out, q, stats, [{ boost: 1, recency: 1 }], { limit: 8 }).map((s) => [s.candidate.line, s.score]);
    const b = rank(out, q, stats, [{ boost: 1, recency: 1 }], { limit: 8, shape: [{ conversation: false }] }).map((s) => [s.candidate.line, s.score]);
    expect(b).toEqual(a);
  });
});

describe("the ranking's bound", () => {
  const q = parseQuery('flamingo');
  const totals = { lines: 100_000, chars: 1_000_000 }; // an average line of 10
  /** `count` lines of `length` each holding the term once, as an index's pool hands them out; `walked` counts the lines given. */
  const pool = (source: number, count: number, length: number, extra: Partial<CandidatePool> = {}) => {
    const walk = { lines: 0, walks: 0 };
    const made: CandidatePool = {
      source,
      df: [count],
      maxTf: [1],
      forEach: (fn, _withLength, stop) => {
        walk.walks++;
        for (let line = 1; line <= count; line++) {
          if (stop?.(line)) return;
          walk.lines++;
          fn(line, Int32Array.of(1), 0, length);
        }
      },
      candidate: (line, tf) => ({ source, line, text: `flamingo ${'x'.repeat(Math.max(0, length - 9))}`, length, tf }),
      ...extra,
    };
    return { pool: made, walk };
  };
  const ranked = (pools: CandidatePool[], sources: { boost: number; recency: number }[], shape?: { conversation: boolean; lines?: number; days?: [number, string][] }[]) =>
    rank([], q, totals, sources, { limit: 5, ...(shape ? { shape } : {}) }, pools).map((s) => [s.candidate.source, s.candidate.line, s.score]);

  it("stops a pool's walk once no line left can enter the shortlist, its lines no shorter than the pool says: the same ranking", () => {
    const loose = pool(0, 3000, 40);
    const tight = pool(0, 3000, 40, { shortest: 40 });
    const sources = [{ boost: 1, recency: 1 }];
    expect(ranked([tight.pool], sources)).toEqual(ranked([loose.pool], sources));
    expect(loose.walk.lines).toBe(3000);
    // The shortlist (200 lines) full of lines that score the bound: no later line ranks before them.
    expect(tight.walk.lines).toBeLessThanOrEqual(201);
  });

  const sources = [
    { boost: 1.3, recency: 1 },
    { boost: 0.8, recency: 1 },
  ];
  const shape = [{ conversation: false }, { conversation: true, lines: 300, days: [[1, '2024-01-01'], [151, '2024-01-02']] as [number, string][] }];
  /** The day sums of pool(1, 300, …): each line holds the term once. */
  const byDay = (): Partial<CandidatePool> => ({
    forEachDay: (fn) => {
      fn(1, [0], 150);
      fn(151, [0], 150);
    },
  });

  it('adds no day up for a conversation none of whose lines can enter the shortlist: the same ranking, the conversation never walked', () => {
    const chat = pool(1, 300, 10);
    const bounded = ranked([pool(0, 300, 10).pool, chat.pool], sources, shape);
    expect(chat.walk.walks).toBe(0);
    // The same conversation with no bound (walked for its days, then for the ranking).
    const unbounded = pool(1, 300, 10, { maxTf: undefined });
    expect(ranked([pool(0, 300, 10).pool, unbounded.pool], sources, shape)).toEqual(bounded);
    expect(unbounded.walk.walks).toBe(2);
  });

  it("takes a conversation's day sums from its pool when it has them: the same ranking, walked once (for the ranking), not twice", () => {
    // Room left in the shortlist: the conversation can enter it, so its days are added up.
    const walkedTwice = pool(1, 300, 10);
    const summed = pool(1, 300, 10, byDay());
    const expected = ranked([pool(0, 2, 10).pool, walkedTwice.pool], sources, shape);
    expect(walkedTwice.walk.walks).toBe(2);
    expect(ranked([pool(0, 2, 10).pool, summed.pool], sources, shape)).toEqual(expected);
    expect(summed.walk.walks).toBe(1);
    expect(expected.some(([source]) => source === 1)).toBe(true);
  });

  it("never leaves out a conversation whose lines win only by their day's share: its bound counts the best day", () => {
    // 150 matching lines of 2,000, all on one day of 40, boosted less than the 300 other lines:
    // the day's score is what puts them first. A bound that forgot the day would skip the conversation.
    const days = Array.from({ length: 40 }, (_, d): [number, string] => [d ? 151 + (d - 1) * 45 : 1, `2026-01-${String(d + 1).padStart(2, '0')}`]);
    const dayShape = [{ conversation: false }, { conversation: true, lines: 2000, days }];
    const near = [{ boost: 1, recency: 1 }, { boost: 0.97, recency: 1 }];
    const walked = ranked([pool(0, 300, 10).pool, pool(1, 150, 10, { maxTf: undefined }).pool], near, dayShape);
    const summed = ranked([pool(0, 300, 10).pool, pool(1, 150, 10, { forEachDay: (fn) => fn(1, [0], 150) }).pool], near, dayShape);
    expect(walked[0][0]).toBe(1);
    expect(summed).toEqual(walked);
  });
});

describe('short lines', () => {
  const scores = (lines: string[], plain: boolean) => {
    const q = parseQuery('deploy', { plain });
    const out: Candidate[] = [];
    const stats = scanText(lines.join('\n'), q, 0, out, { plain });
    return new Map(rank(out, q, stats, [{ boost: 1, recency: 1 }], { limit: 5, plain }).map((s) => [s.candidate.line, s.score]));
  };
  const lines = ['ok, deploy', 'we deploy from the main branch', `${'filler words without the term '.repeat(8)}`, `deploy ${'and a long tail of other words '.repeat(10)}`];

  it('a line shorter than the average scores as an average one; a longer one less', () => {
    const s = scores(lines, false);
    expect(s.get(1)).toBe(s.get(2));
    expect(s.get(4)!).toBeLessThan(s.get(2)!);
  });

  it('plain BM25 keeps its length normalisation (the shorter line first)', () => {
    const s = scores(lines, true);
    expect(s.get(1)!).toBeGreaterThan(s.get(2)!);
  });
});

describe('days as evidence, whatever the order', () => {
  it('ranks the same lines with the same scores whatever order the candidates come in', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom('chess game', 'baking', 'game night', 'chess', 'tonight', 'other words'), { minLength: 2, maxLength: 16 }), fc.integer({ min: 1, max: 5 }), (lines, dayLength) => {
        const q = parseQuery('chess game tonight');
        const out: Candidate[] = [];
        const stats = scanText(lines.join('\n'), q, 0, out);
        const days: [number, string][] = [];
        for (let start = 1, d = 1; start <= lines.length; start += dayLength, d++) days.push([start, `2024-01-${String(d).padStart(2, '0')}`]);
        const shape = [{ conversation: true, lines: lines.length, days }];
        const run = (list: Candidate[]) => rank(list, q, stats, [{ boost: 1, recency: 1 }], { limit: 20, shape }).map((s) => [s.candidate.line, s.score]);
        expect(run([...out].reverse())).toEqual(run(out));
      }),
    );
  });
});

describe('forEachWord (the proximity boost reads every word of the shortlist)', () => {
  it('gives the runs of letters and digits the Unicode expression gives, for ASCII text (read by hand) and any other', () => {
    const words = (text: string) => {
      const out: string[] = [];
      forEachWord(text, (w) => out.push(w));
      return out;
    };
    const expected = (text: string) => [...text.matchAll(/[\p{L}\p{N}]+/gu)].map((m) => m[0]);
    for (const text of ['', 'a', '9', 'end9', ' lead', 'trail ', 'x_y-z.0@Z', '\r\n\tdeploy\r', 'café 9€ 日本語 deploy']) expect(words(text)).toEqual(expected(text));
    fc.assert(fc.property(fc.string({ unit: fc.constantFrom(...'aZ09 _-.@/\\\r\n\t`{[:'.split('')), maxLength: 60 }), (text) => {
      expect(words(text)).toEqual(expected(text));
    }), { numRuns: 2000 });
    fc.assert(fc.property(fc.string({ unit: 'grapheme', maxLength: 40 }), (text) => {
      expect(words(text)).toEqual(expected(text));
    }), { numRuns: 1000 });
  });
});
