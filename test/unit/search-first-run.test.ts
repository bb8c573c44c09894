// The first search after a compaction, on an archive larger than a search indexes itself: it
// estimates the average line length from a sample taken during its pass over the raw bytes (no
// line read again), and it asks for a background indexing run only when none is under way (the
// compaction's finishing indexes the archive once it has done the rest).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SEARCH_BUILD_MAX, searchMemory } from '../../src/store/search-corpus.js';
import { LENGTH_SAMPLE, rawNeedles, scanRawMessages } from '../../src/store/search-raw.js';
import { parseQuery, wordMatcher, type CandidatePool } from '../../src/memory/search.js';
import { irregularForms } from '../../src/memory/text.js';

const line = (i: number, text: string) => JSON.stringify({ type: i % 2 ? 'assistant' : 'user', timestamp: `2026-01-0${1 + (i % 3)}T10:00:00.000Z`, message: { role: i % 2 ? 'assistant' : 'user', content: text } });

/** Lines of uneven length (what the sample must average over), a few of them about the query. */
function history(count: number): string[] {
  return Array.from({ length: count }, (_, i) => {
    const words = 'build step ran fine '.repeat(1 + ((i * 7919) % 13));
    return line(i, i % 997 === 5 ? `the flamingo migration failed at step ${i}` : i % 501 === 3 ? `flamingo ${words}` : `${words}${i}`);
  });
}

let root: string;
let n = 0;
beforeAll(() => {
  root = mkdtempSync(path.join(tmpdir(), 'wmem-first-run-'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

function session(lines: string[]): { scope: { projectDir: string; sessions: string[]; nowMs: number }; dir: string } {
  const projectDir = path.join(root, `p${n++}`);
  const dir = path.join(projectDir, 's');
  mkdirSync(path.join(dir, 'working-memory', 'archive'), { recursive: true });
  const text = lines.join('\n') + '\n';
  writeFileSync(path.join(dir, 'working-memory', 'archive', 'messages-20260101T000000000Z.jsonl'), text);
  expect(Buffer.byteLength(text)).toBeGreaterThan(SEARCH_BUILD_MAX);
  return { scope: { projectDir, sessions: ['s'], nowMs: 0 }, dir };
}

const QUERY = 'flamingo migration';

describe('the first search of a large archive with no search text yet', () => {
  const lines = history(12_000);

  it('ranks the lines a scan ranks, in the same order, from a length sample taken in its pass', async () => {
    expect(lines.length).toBeGreaterThan(2 * LENGTH_SAMPLE);
    const { scope } = session(lines);
    const raw = await searchMemory(scope, QUERY, { limit: 10 });
    expect(raw.unindexed).toEqual(['s']); // searched on its raw bytes: indexing left to a background run
    const again = await searchMemory(scope, QUERY, { limit: 10 });
    const scan = await searchMemory(scope, QUERY, { limit: 10, noIndex: true });
    const where = (r: typeof raw) => r.hits.map((h) => `${h.line}:${h.snippet}`);
    expect(where(raw).length).toBe(10);
    expect(where(raw)).toEqual(where(scan));
    // The same file gives the same sample, hence the same scores.
    expect(again.hits).toEqual(raw.hits);
    // Scores move only by the estimate of the average length (BM25's length normalisation).
    raw.hits.forEach((h, i) => expect(Math.abs(h.score - scan.hits[i].score) / scan.hits[i].score).toBeLessThan(0.02));
  });

  it('finds a word spelled with an escape in any chunk of the pass, whichever chunks hold one', async () => {
    // Lines far apart (a chunk is 64 KiB) spell "flamingo" as `fl\u0061mingo` in the raw JSON, and
    // hold no other query word: only the chunks that hold such an escape are searched with the
    // escapes' expression. A control
    // escape (`\u001b`) elsewhere is no reason to parse a line for this query.
    const spelled = history(12_000).map((l, i) => (i % 2_500 === 1_234 ? line(i, `the flamingo escaped ${i}`).replace('flamingo', 'fl\\u0061mingo') : i % 3_000 === 7 ? l.replace('fine', 'fine \\u001b[0m') : l));
    expect(spelled.filter((l) => l.includes('\\u0061')).length).toBe(5);
    const { scope } = session(spelled);
    const raw = await searchMemory(scope, 'flamingo', { limit: 100 });
    expect(raw.unindexed).toEqual(['s']);
    const scan = await searchMemory(scope, 'flamingo', { limit: 100, noIndex: true });
    const escaped = (r: typeof raw) => r.hits.filter((h) => h.snippet.includes('escaped')).map((h) => h.line).sort((x, y) => x - y);
    expect(escaped(scan).length).toBe(5);
    expect(escaped(raw)).toEqual(escaped(scan));
  });

  it('samples the other lines evenly when every prompt holds a query word (no favour for the line after a candidate)', async () => {
    // Each prompt holds "turn" (longer than the average line: its score depends on the average);
    // the tool output after it is long, the lines after that short.
    const cycle = Array.from({ length: 16_000 }, (_, i) => {
      const turn = i >> 2;
      if (i % 4 === 0) return line(0, `Turn ${turn}: ${'please fix the failing test '.repeat(20)}`);
      if (i % 4 === 1) return line(1, `tool output ${'ok '.repeat(150)}${turn}`);
      return line(i, i % 4 === 2 ? `done ${turn}` : `the change is in place for turn-free step ${turn % 7}`);
    });
    const { scope } = session(cycle);
    const raw = await searchMemory(scope, 'turn 3999', { limit: 5 });
    const scan = await searchMemory(scope, 'turn 3999', { limit: 5, noIndex: true });
    expect(raw.hits.map((h) => h.line)).toEqual(scan.hits.map((h) => h.line));
    raw.hits.forEach((h, i) => expect(Math.abs(h.score - scan.hits[i].score) / scan.hits[i].score).toBeLessThan(0.005));
  });

  it('asks for no indexing run while the compaction finishing or another run will index it', async () => {
    const { scope, dir } = session(lines);
    const state = path.join(dir, 'state');
    mkdirSync(path.join(state, 'search'), { recursive: true });
    // A finishing under way: the compaction's journal, the session's lock held by a live process.
    writeFileSync(path.join(state, 'compaction.json'), '{}');
    mkdirSync(path.join(dir, '.lock'));
    writeFileSync(path.join(dir, '.lock.owner'), `${process.pid}-0123456789abcdef`);
    expect((await searchMemory(scope, QUERY, { limit: 3 })).unindexed).toEqual([]);
    // The lock left by a process that is gone: a run is asked for.
    const gone = spawnSync(process.execPath, ['-e', 'console.log(process.pid)'], { encoding: 'utf8' }).stdout.trim();
    writeFileSync(path.join(dir, '.lock.owner'), `${gone}-0123456789abcdef`);
    expect((await searchMemory(scope, QUERY, { limit: 3 })).unindexed).toEqual(['s']);
    // No journal (no compaction pending), the lock held: whoever holds it does not index.
    writeFileSync(path.join(dir, '.lock.owner'), `${process.pid}-0123456789abcdef`);
    rmSync(path.join(state, 'compaction.json'));
    expect((await searchMemory(scope, QUERY, { limit: 3 })).unindexed).toEqual(['s']);
    // An indexing run holding its marker.
    writeFileSync(path.join(state, 'search', '.indexing'), String(process.pid));
    expect((await searchMemory(scope, QUERY, { limit: 3 })).unindexed).toEqual([]);
  });
});

describe('the length sample of the raw pass', () => {
  // The extraction as the test's lines need it: the role and the content (the rest is metadata).
  const extract = (raw: string) => {
    const v = JSON.parse(raw) as { type: string; message: { content: string } };
    return `${v.type}: ${v.message.content}`;
  };
  const meta = (i: number, text: string, pad: number) => JSON.stringify({ type: 'user', timestamp: '2026-01-01T10:00:00.000Z', pad: 'x'.repeat(pad), message: { role: 'user', content: text } });
  function scan(lines: string[], sampleShare?: number) {
    const { dir } = session(lines);
    const file = path.join(dir, 'working-memory', 'archive', 'messages-20260101T000000000Z.jsonl');
    const query = parseQuery('flamingo');
    const out = scanRawMessages(file, query, rawNeedles(query, irregularForms, false)!, 0, [] as CandidatePool[], { match: wordMatcher(query, false), extract, sampleShare })!;
    out.close();
    return out;
  }
  const flamingos = (lines: string[]) => lines.filter((l) => l.includes('flamingo')).length;

  it('reads about LENGTH_SAMPLE lines when the first 64 KiB hold long lines and the rest short ones', () => {
    const lines = [...Array.from({ length: 6 }, (_, i) => meta(i, `tool output ${'ok '.repeat(4000)}`, 0)), ...Array.from({ length: 30_000 }, (_, i) => meta(i, i % 1000 === 7 ? `flamingo ${i}` : `done ${i}`, (i * 7919) % 40))];
    const raw = scan(lines);
    expect(raw.exact).toBe(false);
    // A step in lines set from the first chunk's average line read every line here.
    expect(raw.parsed).toBeLessThanOrEqual(flamingos(lines) + LENGTH_SAMPLE);
    const exact = scan(lines, 1);
    expect(Math.abs(raw.chars - exact.chars) / exact.chars).toBeLessThan(0.01);
  });

  it('samples the whole archive when the first 64 KiB hold short lines and the rest long ones unlike them', () => {
    // The later lines' text is a share of their raw length that varies line to line (metadata the
    // extraction leaves out): a few dozen of them, as a step set from the first chunk drew, would
    // not tell their average.
    const lines = [...Array.from({ length: 700 }, (_, i) => meta(i, `done ${i}`, 0)), ...Array.from({ length: 5_000 }, (_, i) => meta(i, i % 500 === 9 ? `flamingo ${i}` : `${'step ran '.repeat(1 + ((i * 7919) % 400))}`, (i * 104729) % 3000))];
    const raw = scan(lines);
    const exact = scan(lines, 1);
    expect(raw.exact).toBe(false);
    expect(raw.parsed - flamingos(lines)).toBeGreaterThan(LENGTH_SAMPLE / 2);
    expect(Math.abs(raw.chars - exact.chars) / exact.chars).toBeLessThan(0.01);
  });
});
