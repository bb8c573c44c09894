// Property: the search index changes nothing but speed. For random texts (ASCII and not, words
// after underscores, CRLF, comment lines, CJK, a last line without a newline) and random queries,
// (1) an index extended by appends has the same bytes as one built from the whole file at once,
// (2) searching through the index ranks exactly what scanning the whole text ranks (small texts,
// and texts of thousands of lines walked a block at a time with a shortlist that fills), and (3) an
// index read by offset from its file answers exactly what the whole file decoded answers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ensureIndex, scanIndexed } from '../../src/store/search-index.js';
import { decodeIndex, type PostingBuffer } from '../../src/memory/search-index.js';
import { parseQuery, rank, scanText, type Candidate, type CandidatePool } from '../../src/memory/search.js';
import { TopLines } from '../../src/memory/top-lines.js';

const WORDS = [
  'deploy', 'deployed', 'Deploying', 'release', 'config', 'configuration', 'config_file', '_private', 'kept', 'keep',
  'über', 'naïve', 'Straße', 'éconfig', '日本語', 'テスト', '部署', 'error', 'errors', 'ERROR', 'fix', 'fixed',
  'tests', 'vitest', 'a', 'the', 'x_deploy', '42', 'v1.2', 'don’t', "it's", 'ﬁle', 'İstanbul', 'KELVIN', 'cache', 'db',
];
const SEPARATORS = [' ', ' ', ' ', ', ', '. ', '_', '-', '/', '—', '\t'];

const line = fc.oneof(
  { weight: 8, arbitrary: fc.array(fc.tuple(fc.constantFrom(...WORDS), fc.constantFrom(...SEPARATORS)), { maxLength: 12 }).map((parts) => parts.map(([w, s]) => w + s).join('').trimEnd()) },
  { weight: 1, arbitrary: fc.constantFrom('<!-- deploy config -->', '', '   ', 'deploy\r', 'error error error error') },
);
const text = fc.tuple(fc.array(line, { maxLength: 40 }), fc.boolean()).map(([lines, open]) => lines.join('\n') + (open || !lines.length ? '' : '\n'));
const query = fc.array(fc.constantFrom(...WORDS, 'how do we ship', 'configure', 'failing', 'keeping'), { minLength: 1, maxLength: 4 }).map((ws) => ws.join(' '));
const isComment = (l: string) => /^\s*<!--[\s\S]*-->\s*$/.test(l);

let dir: string;
let n = 0;
beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'wmem-index-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const fresh = () => path.join(dir, `f${n++}`);

/**
 * Ranks `lines` (a conversation with these day runs, or not) through their index and by scanning
 * their text, with the shortlist of a `limit`, and expects the same: lines, scores, texts, counts.
 */
async function rankedAlike(lines: string[], q: string, plain: boolean, limit: number, days: [number, string][] | undefined, chunkBytes: number): Promise<void> {
  const whole = lines.join('\n') + '\n';
  const file = fresh();
  writeFileSync(file, whole);
  const { view } = await ensureIndex(file, `${file}.idx`, undefined, undefined, chunkBytes);
  const parsed = parseQuery(q, { plain });
  const sources = [{ boost: 0.8, recency: 1 }];
  const shape = [{ conversation: Boolean(days), days, lines: lines.length }];
  const scanned: Candidate[] = [];
  const stats = scanText(whole, parsed, 0, scanned, { plain });
  const indexed: Candidate[] = [];
  const pools: CandidatePool[] = [];
  const viaIndex = scanIndexed(file, view, parsed, 0, indexed, pools, { plain });
  const out = (list: ReturnType<typeof rank>) => list.map((s) => ({ line: s.candidate.line, score: s.score, text: s.candidate.text, length: s.candidate.length, tf: Array.from(s.candidate.tf) }));
  const expected = out(rank(scanned, parsed, stats, sources, { limit, plain, shape }));
  expect(out(rank(indexed, parsed, viaIndex, sources, { limit, plain, shape }, pools))).toEqual(expected);
  viaIndex.close();
}

/**
 * rankedAlike over several files, each its own source (its boost and recency, a conversation with
 * days or not): through their indexes (pools walked the most promising first, each only while a
 * line of it could still be kept) and by scanning, the same ranking. Returns how many pool lines
 * the ranking walk visited, and how many lines hold a query term.
 */
async function rankedAlikeAcross(files: { lines: string[]; boost: number; recency: number; conversation: boolean }[], q: string, plain: boolean, limit: number): Promise<{ walked: number; matching: number }> {
  const parsed = parseQuery(q, { plain });
  const sources = files.map((f) => ({ boost: f.boost, recency: f.recency }));
  const shape = files.map((f) => ({ conversation: f.conversation, days: f.conversation ? ([[1, '2026-01-01'], [Math.ceil(f.lines.length / 2), '2026-01-02']] as [number, string][]) : undefined, lines: f.lines.length }));
  const scanned: Candidate[] = [];
  const indexed: Candidate[] = [];
  const pools: CandidatePool[] = [];
  const totals = { lines: 0, chars: 0 };
  const closers: (() => void)[] = [];
  for (const [i, f] of files.entries()) {
    const whole = f.lines.join('\n') + '\n';
    const file = fresh();
    writeFileSync(file, whole);
    const { view } = await ensureIndex(file, `${file}.idx`, undefined, undefined, 1 << 14);
    const stats = scanText(whole, parsed, i, scanned, { plain });
    totals.lines += stats.lines;
    totals.chars += stats.chars;
    closers.push(scanIndexed(file, view, parsed, i, indexed, pools, { plain }).close);
  }
  // Counted: the walks that pass `withLength` are the ranking's (the day sums' do not).
  let walked = 0;
  const counted = pools.map((pool) => ({ ...pool, forEach: ((fn, withLength, stop) => pool.forEach((line, tf, at, length) => ((walked += withLength ? 1 : 0), fn(line, tf, at, length)), withLength, stop)) as CandidatePool['forEach'] }));
  const out = (list: ReturnType<typeof rank>) => list.map((s) => ({ source: s.candidate.source, line: s.candidate.line, score: s.score, text: s.candidate.text, tf: Array.from(s.candidate.tf) }));
  const expected = out(rank(scanned, parsed, totals, sources, { limit, plain, shape }));
  expect(out(rank(indexed, parsed, totals, sources, { limit, plain, shape }, counted))).toEqual(expected);
  for (const close of closers) close();
  return { walked, matching: scanned.length };
}

describe('search index', () => {
  it('across files, pools walked the most promising first and left once no line of theirs can be kept rank what a scan ranks', async () => {
    // Lines that tie at a pool's bound (short, one occurrence), better ones in another file, the
    // files in any order of promise: whole pools and the rest of a pool are left out only when
    // nothing in them could enter the shortlist.
    const file = fc.record({
      parts: fc.array(line, { minLength: 1, maxLength: 6 }),
      copies: fc.integer({ min: 1, max: 5000 }),
      boost: fc.constantFrom(0.8, 0.9, 1, 1.3),
      recency: fc.constantFrom(0, 0.5, 1),
      conversation: fc.boolean(),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(file, { minLength: 1, maxLength: 3 }), query, fc.boolean(), fc.integer({ min: 1, max: 8 }), async (files, q, plain, limit) => {
        const word = q.split(' ')[0];
        const texts = files.map((f) => ({ ...f, lines: Array.from({ length: f.copies }, (_, i) => (i % 5 === 4 ? f.parts[i % f.parts.length] : `${word} ${i % 3 ? '' : word}`)) }));
        await rankedAlikeAcross(texts, q, plain, limit);
      }),
      { numRuns: 40 },
    );
  }, 180_000);

  it('a file whose lines cannot beat the shortlist is not walked for the ranking, and the result is a scan\'s', async () => {
    // 4,000 short lines with the word once (all tied at the detail's bound) beside an archive-like
    // file whose lines hold it three times: the shortlist fills with the latter, and the former
    // could never enter it.
    const weak = { lines: Array.from({ length: 4000 }, (_, i) => `deploy ${i % 10}`), boost: 1, recency: 1, conversation: false };
    const strong = { lines: Array.from({ length: 3000 }, (_, i) => `deploy deploy deploy ${i % 10}`), boost: 1, recency: 1, conversation: true };
    const { walked, matching } = await rankedAlikeAcross([weak, strong], 'deploy', false, 10);
    expect(matching).toBe(7000);
    expect(walked).toBeLessThanOrEqual(3000);
  }, 60_000);

  it('indexing appends gives the same bytes as indexing the whole file', async () => {
    await fc.assert(
      // Built a few lines at a time (chunks of `chunk` bytes, merged), or in one chunk.
      fc.asyncProperty(text, fc.array(fc.nat(), { maxLength: 4 }), fc.integer({ min: 1, max: 64 }), async (whole, cuts, chunk) => {
        const bytes = Buffer.from(whole, 'utf8');
        // Cut anywhere in the bytes, even inside a line (an append that continues it).
        const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
        const file = fresh();
        const index = `${file}.idx`;
        writeFileSync(file, bytes.subarray(0, points[0] ?? bytes.length));
        let action = (await ensureIndex(file, index, undefined, isComment, chunk)).action;
        expect(action).toBe('built');
        for (let i = 0; i < points.length; i++) {
          appendFileSync(file, bytes.subarray(points[i], points[i + 1] ?? bytes.length));
          action = (await ensureIndex(file, index, undefined, isComment, chunk)).action;
          // An append of nothing leaves a fresh index; anything else extends it.
          expect(['extended', 'fresh']).toContain(action);
        }
        const full = `${file}.full.idx`;
        expect((await ensureIndex(file, full, undefined, isComment)).action).toBe('built');
        expect(readFileSync(index).equals(readFileSync(full))).toBe(true);
      }),
      { numRuns: 150 },
    );
  });

  it('a file with front matter gives the same bytes built in small chunks as in one', async () => {
    const blank = (t: string) => {
      if (!t.startsWith('---\n')) return { text: t };
      const end = t.indexOf('\n---\n', 4);
      if (end === -1) return { text: t };
      const block = t.slice(0, end + 5);
      return { text: '\n'.repeat(block.split('\n').length - 1) + t.slice(end + 5), pointer: /^pointer: (.+)$/m.exec(block)?.[1] };
    };
    const frontMatter = fc.array(fc.constantFrom('pointer: deploy notes', 'title: config', 'deploy: yes', ''), { maxLength: 6 }).map((ls) => `---\n${ls.map((l) => l + '\n').join('')}---\n`);
    await fc.assert(
      fc.asyncProperty(fc.option(frontMatter), text, fc.integer({ min: 1, max: 64 }), async (head, body, chunk) => {
        const file = fresh();
        writeFileSync(file, (head ?? '') + body);
        await ensureIndex(file, `${file}.small.idx`, blank, isComment, chunk);
        await ensureIndex(file, `${file}.one.idx`, blank, isComment);
        expect(readFileSync(`${file}.small.idx`).equals(readFileSync(`${file}.one.idx`))).toBe(true);
      }),
      { numRuns: 150 },
    );
  });

  it('searching through the index ranks exactly what a scan of the text ranks', async () => {
    await fc.assert(
      fc.asyncProperty(text, query, fc.boolean(), fc.integer({ min: 1, max: 256 }), async (whole, q, plain, chunk) => {
        const file = fresh();
        writeFileSync(file, whole);
        const { view } = await ensureIndex(file, `${file}.idx`, undefined, isComment, chunk);
        const parsed = parseQuery(q, { plain });
        const sources = [{ boost: 1, recency: 1 }];
        const scanned: Candidate[] = [];
        const stats = scanText(whole, parsed, 0, scanned, { plain, skipLine: isComment });
        const indexed: Candidate[] = [];
        const pools: CandidatePool[] = [];
        const viaIndex = scanIndexed(file, view, parsed, 0, indexed, pools, { plain, skipLine: isComment });
        expect({ lines: viaIndex.lines, chars: viaIndex.chars }).toEqual(stats);
        const shape = (list: ReturnType<typeof rank>) => list.map((s) => ({ line: s.candidate.line, score: s.score, text: s.candidate.text, length: s.candidate.length, tf: Array.from(s.candidate.tf) }));
        const expected = shape(rank(scanned, parsed, stats, sources, { limit: 50, plain }));
        expect(shape(rank(indexed, parsed, viaIndex, sources, { limit: 50, plain }, pools))).toEqual(expected);
        viaIndex.close();
      }),
      { numRuns: 300 },
    );
  });

  it('through the index, thousands of lines that all hold query words rank what a scan ranks (the shortlist full over several blocks)', async () => {
    // More matching lines than the shortlist holds, over several blocks of lines, better ones still
    // coming once it is full: each admitted or passed over as a scan's ranking would.
    await fc.assert(
      fc.asyncProperty(fc.array(line, { minLength: 1, maxLength: 12 }), fc.integer({ min: 4500, max: 9000 }), query, fc.boolean(), fc.integer({ min: 1, max: 8 }), fc.boolean(), async (parts, copies, q, plain, limit, conversation) => {
        // A query word more times the later the block (and 0-2 more here and there) and a tail of
        // 0-22 letters: better lines keep coming after the shortlist is full.
        const word = q.split(' ')[0];
        const lines = Array.from({ length: copies }, (_, i) => `${parts[i % parts.length]} ${`${word} `.repeat(Math.floor(i / 1500) + ((i * 7919) % 3))}${'y'.repeat((i * 31) % 23)}`);
        const days = conversation ? ([[1, '2026-01-01'], [Math.ceil(copies / 2), '2026-01-02']] as [number, string][]) : undefined;
        await rankedAlike(lines, q, plain, limit, days, 1 << 15);
      }),
      { numRuns: 25 },
    );
    // Thousands of lines a run: room for a loaded CI machine.
  }, 180_000);

  it('through the index, a text of thousands of lines ranks what a scan ranks, with a small limit, as a conversation with days', async () => {
    // Many blocks of lines walked (terms far apart skip the lines between), a shortlist that fills
    // and keeps only the best, the boosts stopped early, the days of a conversation walked apart.
    const spread = fc.integer({ min: 0, max: 400 });
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(line, spread), { minLength: 1, maxLength: 30 }), query, fc.boolean(), fc.integer({ min: 1, max: 8 }), fc.boolean(), async (parts, q, plain, limit, conversation) => {
        // Each line three times (ties), then lines with no query word between.
        const lines = [1, 2, 3].flatMap(() => parts.flatMap(([l, gap]) => [l, ...Array.from({ length: gap }, (_, i) => `filler ${i % 7} zzz`)]));
        const days = conversation ? ([[1, '2026-01-01'], [Math.ceil(lines.length / 3), '2026-01-02'], [Math.ceil(lines.length / 2), '2026-01-03']] as [number, string][]) : undefined;
        await rankedAlike(lines, q, plain, limit, days, 4096);
      }),
      { numRuns: 60 },
    );
  });

  it('the shortlist keeps the best lines (score, then source, then line) whatever order they come in', () => {
    const entry = fc.record({ score: fc.constantFrom(0, 0.5, 1, 1.5, 2, 3), source: fc.integer({ min: 0, max: 3 }), line: fc.integer({ min: 1, max: 50 }) });
    fc.assert(
      fc.property(fc.uniqueArray(entry, { selector: (e) => `${e.source}:${e.line}`, maxLength: 300 }), fc.integer({ min: 1, max: 40 }), (entries, capacity) => {
        const top = new TopLines(capacity, 1);
        entries.forEach((e, i) => {
          if (top.admits(e.score, e.source, e.line)) top.add(e.score, e.source, e.line, 0, i, [i]);
        });
        const kept = top.sorted().map((s) => [top.score[s], top.source[s], top.line[s], top.tf[s]]);
        const order = (a: (typeof entries)[number], b: (typeof entries)[number]) => b.score - a.score || a.source - b.source || a.line - b.line;
        const best = [...entries].sort(order).slice(0, capacity).map((e) => [e.score, e.source, e.line, entries.indexOf(e)]);
        expect(kept).toEqual(best);
      }),
      { numRuns: 300 },
    );
  });

  it('an index read by offset (header, token table, postings and line spans when asked) answers what the whole file decoded does', async () => {
    await fc.assert(
      fc.asyncProperty(text, fc.integer({ min: 1, max: 256 }), fc.array(fc.nat(), { maxLength: 6 }), async (whole, chunk, picks) => {
        const file = fresh();
        writeFileSync(file, whole);
        const index = `${file}.idx`;
        await ensureIndex(file, index, undefined, isComment, chunk);
        // A second call finds the index fresh: the view read by offset from the open file.
        const ensured = await ensureIndex(file, index, undefined, isComment, chunk);
        expect(ensured.action).toBe('fresh');
        const lazy = ensured.view;
        const whole2 = decodeIndex(readFileSync(index));
        try {
          expect(lazy.meta).toEqual(whole2.meta);
          expect(lazy.tokenCount).toBe(whole2.tokenCount);
          // Some ranges read ahead in one read first, as a prefix's tokens are.
          const n = lazy.tokenCount;
          for (const p of picks) if (n) lazy.preload?.(p % n, Math.min(n, (p % n) + 1 + (p % 3)));
          const buffer: PostingBuffer = { lines: new Int32Array(1), counts: new Int32Array(1) };
          for (let i = 0; i < n; i++) {
            expect(lazy.token(i)).toBe(whole2.token(i));
            expect(lazy.postings(i)).toEqual(whole2.postings(i));
            const k = lazy.decodePostings(i, buffer);
            const pairs: number[] = [];
            for (let j = 0; j < k; j++) pairs.push(buffer.lines[j], buffer.counts[j]);
            expect(pairs).toEqual(whole2.postings(i));
          }
          const lines = lazy.meta.lines;
          // Line spans before the line arrays are read (a read each), then after.
          const spans = () => Array.from({ length: lines }, (_, l) => lazy.lineSpan(l + 1));
          const before = spans();
          expect(Array.from(lazy.lineLengths)).toEqual(Array.from(whole2.lineLengths));
          expect(Array.from(lazy.lineStarts)).toEqual(Array.from(whole2.lineStarts));
          expect(spans()).toEqual(before);
          expect(before).toEqual(Array.from({ length: lines }, (_, l) => [whole2.lineStarts[l], l + 1 < lines ? whole2.lineStarts[l + 1] : whole2.meta.size]));
        } finally {
          lazy.close?.();
        }
      }),
      { numRuns: 200 },
    );
  });
});
