// The search index's life: built once, fresh while the file is unchanged, extended by an append,
// rebuilt after a rewrite or when its own file is torn or not an index at all.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, truncateSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ensureIndex, ensureIndexUpTo, scanIndexed } from '../../src/store/search-index.js';
import { decodeIndex, CorruptIndex } from '../../src/memory/search-index.js';
import { parseQuery, type Candidate, type CandidatePool } from '../../src/memory/search.js';

let dir: string;
let file: string;
let index: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'wmem-index-'));
  file = path.join(dir, 'text.md');
  index = path.join(dir, 'text.idx');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** The lines the index names for a query. */
async function linesFor(q: string): Promise<number[]> {
  const { view } = await ensureIndex(file, index);
  const out: Candidate[] = [];
  const pools: CandidatePool[] = [];
  const scan = scanIndexed(file, view, parseQuery(q), 0, out, pools, {});
  const lines = out.map((c) => c.line);
  for (const pool of pools) pool.forEach((line) => lines.push(line));
  scan.close();
  return lines.sort((a, b) => a - b);
}

describe('search index', () => {
  it('is built once and then read as it is while the file is unchanged', async () => {
    writeFileSync(file, 'We deployed to fly.io\nnothing here\n');
    expect((await ensureIndex(file, index)).action).toBe('built');
    expect((await ensureIndex(file, index)).action).toBe('fresh');
    expect(statSync(index).mode & 0o777).toBe(0o600);
    expect(await linesFor('how do we deploy')).toEqual([1]);
  });

  it('up to a size: a larger file with no index to extend gets none, one that only grew is extended', async () => {
    writeFileSync(file, 'We deployed to fly.io\nnothing here\n');
    const size = statSync(file).size;
    expect(await ensureIndexUpTo(file, index, size - 1)).toBeUndefined();
    expect(() => statSync(index)).toThrow();
    expect((await ensureIndexUpTo(file, index, size))?.action).toBe('built');
    appendFileSync(file, 'the flamingo release\n');
    expect((await ensureIndexUpTo(file, index, size))?.action).toBe('extended');
    expect(await linesFor('flamingo')).toEqual([3]);
    writeFileSync(file, 'rewritten: ' + 'x'.repeat(size) + '\n');
    expect(await ensureIndexUpTo(file, index, size)).toBeUndefined();
  });

  it('indexes only the appended lines, and finds them', async () => {
    writeFileSync(file, 'We deployed to fly.io\nhalf a li');
    await ensureIndex(file, index);
    appendFileSync(file, 'ne about the flamingo cache\nthe flamingo again\n');
    expect((await ensureIndex(file, index)).action).toBe('extended');
    expect(await linesFor('flamingo')).toEqual([2, 3]);
    expect(await linesFor('line')).toEqual([2]);
  });

  it('re-indexes a file rewritten in place (same size or not), never trusting the old postings', async () => {
    writeFileSync(file, 'alpha beta\ngamma\n');
    await ensureIndex(file, index);
    writeFileSync(file, 'gamma beta\nalpha\n');
    // The same size and a forced old mtime still differ in content: the hash of the old bytes tells.
    const { mtime } = statSync(file);
    utimesSync(file, mtime, new Date(mtime.getTime() + 5000));
    expect((await ensureIndex(file, index)).action).toBe('built');
    expect(await linesFor('alpha')).toEqual([2]);
    // Grown, but not by an append: the first bytes changed.
    writeFileSync(file, 'delta beta\nalpha\nalpha again\n');
    expect((await ensureIndex(file, index)).action).toBe('built');
    expect(await linesFor('alpha')).toEqual([2, 3]);
  });

  it('rebuilds an index file that is torn, garbage or empty', async () => {
    writeFileSync(file, 'the flamingo cache key was stale\n');
    await ensureIndex(file, index);
    const good = readFileSync(index);
    for (const bad of [good.subarray(0, good.length - 3), Buffer.from('not an index at all'), Buffer.alloc(0), Buffer.concat([good, Buffer.from([1, 2, 3])])]) {
      writeFileSync(index, bad);
      expect(() => decodeIndex(readFileSync(index))).toThrow(CorruptIndex);
      expect((await ensureIndex(file, index)).action).toBe('built');
      expect(readFileSync(index).equals(good)).toBe(true);
    }
  });

  it('rejects postings that point past the file', async () => {
    writeFileSync(file, 'flamingo\n');
    await ensureIndex(file, index);
    const buf = readFileSync(index);
    // The file ends with the one posting (its line, its count) and the one token's shortest line (two bytes): make the line 99.
    buf[buf.length - 4] = 99;
    expect(() => decodeIndex(buf).postings(0)).toThrow(CorruptIndex);
  });

  it("stores each token's shortest line, and reads an index of the first form (none stored) as one that does not say", async () => {
    writeFileSync(file, `deploy now\nwe deploy from the main branch\nnothing here\n${'x'.repeat(70_000)} deploy\n`);
    await ensureIndex(file, index);
    const current = readFileSync(index);
    const tokenOf = (view: ReturnType<typeof decodeIndex>, word: string) => Array.from({ length: view.tokenCount }, (_, i) => i).find((i) => view.token(i) === word)!;
    const view = decodeIndex(current);
    expect(current.toString('latin1', 0, 8)).toBe('WMIX0002');
    expect(view.shortest(tokenOf(view, 'deploy'))).toBe(10);
    expect(view.shortest(tokenOf(view, 'main'))).toBe(30);
    expect(view.shortest(tokenOf(view, 'nothing'))).toBe(12);
    // A line past two bytes' worth is stored as that most (still no longer than the line).
    expect(view.shortest(tokenOf(view, 'x'.repeat(70_000)))).toBe(0xffff);
    const poolOf = async () => {
      const pools: CandidatePool[] = [];
      scanIndexed(file, (await ensureIndex(file, index)).view, parseQuery('deploy'), 0, [], pools, {}).close();
      return pools[0];
    };
    expect((await poolOf()).shortest).toBe(10);
    // As a build before the shortest lines wrote it: read as it is (fresh), the same postings, no shortest line.
    const headerLength = current.readUInt32LE(8);
    const h = JSON.parse(current.toString('utf8', 12, 12 + headerLength));
    const postingEndsAt = (((12 + headerLength + 3) & ~3) + 8 * h.lines + 4 * h.tokens + h.tokenBytes + 3) & ~3;
    const first = Buffer.concat([Buffer.from('WMIX0001', 'latin1'), current.subarray(8, postingEndsAt + 4 * h.tokens + h.postingBytes)]);
    writeFileSync(index, first);
    const old = decodeIndex(first);
    expect(Array.from({ length: old.tokenCount }, (_, i) => [old.token(i), old.postings(i), old.shortest(i)])).toEqual(Array.from({ length: view.tokenCount }, (_, i) => [view.token(i), view.postings(i), 0]));
    expect((await ensureIndex(file, index)).action).toBe('fresh');
    expect((await poolOf()).shortest).toBe(0);
    expect(await linesFor('deploy')).toEqual([1, 2, 4]);
    expect(readFileSync(index).equals(first)).toBe(true);
    // Extended: written whole in the current form.
    appendFileSync(file, 'deploy\n');
    expect((await ensureIndex(file, index)).action).toBe('extended');
    expect(readFileSync(index).toString('latin1', 0, 8)).toBe('WMIX0002');
    expect((await poolOf()).shortest).toBe(6);
  });

  it("makes a pool's candidate without reading its length (the walk gave it to the ranking), and reads it when asked", async () => {
    writeFileSync(file, 'deploy now\nnothing here\nwe deploy from the main branch\n');
    const { view } = await ensureIndex(file, index);
    const pools: CandidatePool[] = [];
    const scan = scanIndexed(file, view, parseQuery('deploy'), 0, [], pools, {});
    const walked: [number, number][] = [];
    pools[0].forEach((line, _tf, _at, length) => walked.push([line, length]), true);
    const reads: string[] = [];
    const lineValues = view.lineValues.bind(view);
    view.lineValues = (section, from, count, into) => {
      reads.push(`${section} ${from}`);
      lineValues(section, from, count, into);
    };
    const made = walked.map(([line]) => pools[0].candidate(line, new Int32Array(1)));
    expect(reads).toEqual([]);
    expect(made.map((c) => [c.line, c.length])).toEqual(walked);
    expect(made.map((c) => c.text)).toEqual(['deploy now', 'we deploy from the main branch']);
    expect(reads).toEqual(['lengths 1', 'lengths 3']);
    scan.close();
  });

  it('a shortest line the walk contradicts marks the index damaged (the search drops it and scans)', async () => {
    writeFileSync(file, `deploy now\nwe deploy from the main branch\nnothing here\n`);
    await ensureIndex(file, index);
    const walked = async () => {
      const pools: CandidatePool[] = [];
      const stats = scanIndexed(file, (await ensureIndex(file, index)).view, parseQuery('deploy'), 0, [], pools, {});
      const lines: number[] = [];
      pools[0].forEach((line) => lines.push(line), true);
      stats.close();
      return { lines, damaged: stats.damaged() };
    };
    expect(await walked()).toEqual({ lines: [1, 2], damaged: false });
    // Every token's shortest line overwritten as the most two bytes hold (the file's size unchanged):
    // a bound from it would be too low and could end a walk before lines that belong in the shortlist.
    const buf = readFileSync(index);
    const h = JSON.parse(buf.toString('utf8', 12, 12 + buf.readUInt32LE(8)));
    buf.fill(0xff, buf.length - 2 * h.tokens);
    writeFileSync(index, buf);
    expect(await walked()).toEqual({ lines: [1, 2], damaged: true });
  });

  it("adds each list's occurrences up by day in its count pass: the sums a walk of every line gives, a rescanned line left out", async () => {
    const lines = ['intro deploy', 'nothing', 'deploy deployed deploys', 'we deployed', 'déploy deployé deploy', 'deploy tests', 'more deploy deploy', 'last tests'];
    writeFileSync(file, lines.join('\n') + '\n');
    const { view } = await ensureIndex(file, index);
    const q = parseQuery('deploy the tests');
    const width = q.terms.length;
    // Line 1 is before the first day (on none).
    const days: [number, string][] = [[2, '2024-01-01'], [4, '2024-01-02'], [7, '2024-01-03']];
    const dayOf = (line: number) => days.reduce((d, [start], i) => (start <= line ? i : d), -1);
    const out: Candidate[] = [];
    const pools: CandidatePool[] = [];
    const scan = scanIndexed(file, view, q, 0, out, pools, { days });
    const walked = days.map(() => new Array<number>(width).fill(0));
    pools[0].forEach((line, tf, at) => {
      const d = dayOf(line);
      if (d >= 0) for (let t = 0; t < width; t++) walked[d][t] += tf[at + t];
    });
    const summed = days.map(() => new Array<number>(width).fill(0));
    pools[0].forEachDay!((start, terms, count) => {
      for (const t of terms) summed[days.findIndex(([s]) => s === start)][t] += count;
    });
    expect(summed).toEqual(walked);
    expect(walked.flat().filter((n) => n > 0).length).toBeGreaterThan(3);
    // The line with a non-ASCII word is rescanned (its counts a candidate's), not in the sums.
    expect(out.map((c) => c.line)).toEqual([5]);
    scan.close();
    // Without the days, no sums (the ranking walks the lines).
    const plain: CandidatePool[] = [];
    scanIndexed(file, (await ensureIndex(file, index)).view, q, 0, [], plain, {}).close();
    expect(plain[0].forEachDay).toBeUndefined();
  });

  it('sums a day whose postings run past one decoded block (2,048) as a walk of every line does', async () => {
    // 7,000 lines, "deploy" on each and "tests" on every third: the first day holds 2,500 postings of
    // "deploy", so its sum is decoded in two blocks and the day step must wait for the day's end.
    const lines = Array.from({ length: 7_000 }, (_, i) => (i % 3 === 0 ? `deploy ${i} tests` : `deploy ${i}`));
    writeFileSync(file, lines.join('\n') + '\n');
    const { view } = await ensureIndex(file, index);
    const q = parseQuery('deploy tests');
    const width = q.terms.length;
    const days: [number, string][] = [[100, '2024-01-01'], [2_600, '2024-01-02'], [2_601, '2024-01-03'], [6_000, '2024-01-04']];
    const dayOf = (line: number) => days.reduce((d, [start], i) => (start <= line ? i : d), -1);
    const pools: CandidatePool[] = [];
    const scan = scanIndexed(file, view, q, 0, [], pools, { days });
    const walked = days.map(() => new Array<number>(width).fill(0));
    for (const pool of pools)
      pool.forEach((line, tf, at) => {
        const d = dayOf(line);
        if (d >= 0) for (let t = 0; t < width; t++) walked[d][t] += tf[at + t];
      });
    const summed = days.map(() => new Array<number>(width).fill(0));
    for (const pool of pools)
      pool.forEachDay!((start, terms, count) => {
        for (const t of terms) summed[days.findIndex(([s]) => s === start)][t] += count;
      });
    scan.close();
    expect(summed).toEqual(walked);
    expect(walked[0][0]).toBeGreaterThan(2_048);
  });

  it('does not read an index file that is a symbolic link', async () => {
    const elsewhere = path.join(dir, 'elsewhere.idx');
    writeFileSync(file, 'flamingo\n');
    await ensureIndex(file, elsewhere);
    symlinkSync(elsewhere, index);
    // Not read, and not written through: the search works from a fresh build in memory.
    const { action, view } = await ensureIndex(file, index);
    expect(action).toBe('built');
    expect(view.meta.lines).toBe(1);
    // The same index as the one written to a file, section by section.
    const written = decodeIndex(readFileSync(elsewhere));
    const all = (v: typeof view) => ({ meta: v.meta, lineStarts: Array.from(v.lineStarts), tokens: Array.from({ length: v.tokenCount }, (_, i) => [v.token(i), v.postings(i)]) });
    expect(all(view)).toEqual(all(written));
  });

  it('a truncated file is re-indexed, not extended', async () => {
    writeFileSync(file, 'one flamingo\ntwo flamingo\n');
    await ensureIndex(file, index);
    truncateSync(file, 13);
    expect((await ensureIndex(file, index)).action).toBe('built');
    expect(await linesFor('flamingo')).toEqual([1]);
  });
});
