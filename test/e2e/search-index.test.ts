// End-to-end: the search index. A compaction leaves the archive indexed; searching through the
// index gives exactly what scanning every file gives (WMEM_SEARCH_INDEX=off); an appended note in
// a large scratch file is found; an index whose file is gone is removed.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { FIXTURES, sandbox, runJson, type Sandbox } from '../helpers/cli.js';

let box: Sandbox;
let dir: string;

beforeEach(async () => {
  box = await sandbox();
  dir = (await runJson(box, ['init'])).path;
});
afterEach(async () => {
  await box.cleanup();
});

const search = (query: string, env?: Record<string, string>) => runJson(box, ['search', query, '--limit', '15'], env ? { env } : undefined);

/** A history of real transcript lines followed by 3,000 turns about modules, with a few facts planted. */
async function writeHistory(): Promise<void> {
  const real = (await readFile(path.join(FIXTURES, 'claude-code-log/89488521-e2e7-4d97-bc02-38197efdddc8.jsonl'), 'utf8')).trimEnd().split('\n');
  const turns = Array.from({ length: 3000 }, (_, t) => [
    JSON.stringify({ type: 'user', message: { role: 'user', content: `turn ${t}: check module ${t % 50}${t === 11 ? ' — und prüfe die Übersetzung für 日本語' : ''}` } }),
    JSON.stringify({ type: 'assistant', message: { id: `m${t}`, role: 'assistant', content: [{ type: 'text', text: `${t === 7 ? 'The flamingo cache key was stale. ' : ''}${t === 900 ? 'Deployed the staging build; releases go out from main only. ' : ''}${'module output line '.repeat(20)}` }] } }),
  ]).flat();
  await writeFile(path.join(dir, 'messages.jsonl'), [...real, ...turns].join('\n') + '\n');
}

/**
 * Rewrites an index file as the builds before the shortest lines wrote it (its magic "WMIX0001",
 * the file ending with the postings); returns those bytes. It must be in the current form now.
 */
async function toFirstForm(file: string): Promise<Buffer> {
  const bytes = await readFile(file);
  expect(bytes.toString('latin1', 0, 8)).toBe('WMIX0002');
  const headerLength = bytes.readUInt32LE(8);
  const h = JSON.parse(bytes.toString('utf8', 12, 12 + headerLength));
  const postingEndsAt = (((12 + headerLength + 3) & ~3) + 8 * h.lines + 4 * h.tokens + h.tokenBytes + 3) & ~3;
  const old = Buffer.concat([Buffer.from('WMIX0001', 'latin1'), bytes.subarray(8, postingEndsAt + 4 * h.tokens + h.postingBytes)]);
  await writeFile(file, old);
  return old;
}

describe('search index', () => {
  it('a compaction leaves the archive indexed; the index finds what a scan finds, hit for hit', async () => {
    await writeHistory();
    const compacted = await runJson(box, ['compact', '--keep-recent', '2', '--wait']);
    const name = path.basename(compacted.archive);
    const state = await readdir(path.join(dir, 'state/search'));
    expect(state).toContain(`${name}.idx`);
    // The readable copy of the archive (in detail/) has its own index.
    expect(state.some((f) => /^md-[0-9a-f]{16}\.idx$/.test(f))).toBe(true);
    for (const f of state) expect((await stat(path.join(dir, 'state/search', f))).mode & 0o777).toBe(0o600);

    const flamingo = await search('flamingo cache key');
    expect(flamingo.hits.some((h: { kind: string; file: string }) => h.kind === 'messages' && h.file === `working-memory/archive/${name}`)).toBe(true);
    for (const query of ['flamingo cache key', 'how do we ship a release', 'check module 12', 'prüfe die Übersetzung', '日本語', 'launch the cached session page instead of regenerating', 'module output line']) {
      const indexed = await search(query);
      const scanned = await search(query, { WMEM_SEARCH_INDEX: 'off' });
      expect(indexed.hits.length, query).toBeGreaterThan(0);
      expect(indexed).toEqual(scanned);
    }
  });

  it('a large text with no index is scanned (the same hits), and indexed by a background run', async () => {
    await writeHistory();
    const compacted = await runJson(box, ['compact', '--keep-recent', '2', '--wait']);
    const name = path.basename(compacted.archive);
    const searchDir = path.join(dir, 'state/search');
    // As right after a compaction whose finishing has not indexed yet: the text is there, its index not.
    expect((await stat(path.join(searchDir, `${name}.txt`))).size).toBeGreaterThan(1 << 20);
    for (const f of await readdir(searchDir)) if (f.endsWith('.idx')) await rm(path.join(searchDir, f));
    const query = 'flamingo cache key';
    const scanned = await search(query, { WMEM_SEARCH_INDEX: 'off' });
    expect(await search(query)).toEqual(scanned);
    // The run it started builds the index (one at a time: its marker goes when it is done).
    await expect.poll(async () => (await readdir(searchDir)).filter((f) => f === `${name}.idx` || f === '.indexing'), { timeout: 90_000, interval: 200 }).toEqual([`${name}.idx`]);
    expect(await search(query)).toEqual(scanned);
  }, 180_000);

  it('right after a compaction (no search text yet) a large archive is searched on its raw bytes: the hits the scan and the index give', async () => {
    await writeHistory();
    const compacted = await runJson(box, ['compact', '--keep-recent', '2', '--wait']);
    const name = path.basename(compacted.archive);
    const searchDir = path.join(dir, 'state/search');
    const queries = ['flamingo cache key', 'how do we ship a release', 'check module 12', 'prüfe die Übersetzung', 'launch the cached session page instead of regenerating', 'module output line'];
    // The raw search leaves the text and index to a background run (one at a time: its marker goes when it is done).
    const indexed = () => expect.poll(async () => (await readdir(searchDir).catch(() => [])).filter((f) => f === `${name}.idx` || f === '.indexing'), { timeout: 120_000, interval: 200 }).toEqual([`${name}.idx`]);
    const first = [];
    for (const query of queries) {
      // Each as right after `wmem compact` returned: no search text and no index for the archive
      // yet (the run the search before started is over first, so none is written meanwhile).
      await rm(searchDir, { recursive: true, force: true });
      first.push(await search(query));
      await indexed();
    }
    const where = (r: { hits: { file: string; line: number }[] }) => r.hits.map((h) => `${h.file}:${h.line}`);
    for (const [i, query] of queries.entries()) {
      const later = await search(query);
      expect(first[i].hits.length, query).toBeGreaterThan(0);
      expect(first[i].linesSearched, query).toBe(later.linesSearched);
      // The same hits in the same order; a score may differ in its last digits (the average line
      // length of the archive is estimated from a sample: docs/commands.md).
      expect(where(first[i]), query).toEqual(where(later));
      expect(first[i].hits.map((h: { snippet: string; context?: unknown; date?: string }) => [h.snippet, h.context, h.date]), query).toEqual(later.hits.map((h: { snippet: string; context?: unknown; date?: string }) => [h.snippet, h.context, h.date]));
    }
  }, 900_000);

  it('a note appended to a large scratch file is found through the updated index', async () => {
    const scratch = path.join(dir, 'working-memory/scratch.md');
    const filler = Array.from({ length: 6000 }, (_, i) => `- [2026-01-01T00:00:00Z] (importance: 0.3) step ${i}: ran the module checks again`).join('\n');
    await writeFile(scratch, (await readFile(scratch, 'utf8')) + filler + '\n');
    expect((await search('module checks')).hits.length).toBeGreaterThan(0);
    const indexFile = (await readdir(path.join(dir, 'state/search'))).find((f) => f.endsWith('.idx'))!;
    const before = await stat(path.join(dir, 'state/search', indexFile));
    await box.run(['note', 'The pelican exporter needs a retry on 502']);
    const lines = (await readFile(scratch, 'utf8')).trimEnd().split('\n');
    const hits = (await search('pelican exporter retry')).hits;
    expect(hits[0]).toMatchObject({ kind: 'scratch', file: 'working-memory/scratch.md', line: lines.length });
    expect(lines[lines.length - 1]).toContain('pelican exporter');
    // The same index file, replaced by one that covers the new line.
    const after = await stat(path.join(dir, 'state/search', indexFile));
    expect(after.size).toBeGreaterThan(before.size);
    expect(await search('pelican exporter retry')).toEqual(await search('pelican exporter retry', { WMEM_SEARCH_INDEX: 'off' }));
  });

  it("an index in the first form (the previous builds': no shortest lines) is read as it is, hit for hit; an append writes it in the current form", async () => {
    await writeHistory();
    await runJson(box, ['compact', '--keep-recent', '2', '--wait']);
    const scratch = path.join(dir, 'working-memory/scratch.md');
    const filler = Array.from({ length: 6000 }, (_, i) => `- [2026-01-01T00:00:00Z] (importance: 0.3) step ${i}: ran the module checks again`).join('\n');
    await writeFile(scratch, (await readFile(scratch, 'utf8')) + filler + '\n');
    expect((await search('module checks')).hits.length).toBeGreaterThan(0);
    const searchDir = path.join(dir, 'state/search');
    const indexes = (await readdir(searchDir)).filter((f) => f.endsWith('.idx'));
    expect(indexes.length).toBeGreaterThanOrEqual(3); // the archive's, its readable copy's, the scratch file's
    const firstForm = new Map<string, Buffer>();
    for (const f of indexes) firstForm.set(f, await toFirstForm(path.join(searchDir, f)));
    for (const query of ['flamingo cache key', 'check module 12', 'module output line', 'prüfe die Übersetzung', 'module checks']) {
      expect(await search(query), query).toEqual(await search(query, { WMEM_SEARCH_INDEX: 'off' }));
    }
    // Read, not rebuilt.
    for (const [f, old] of firstForm) expect((await readFile(path.join(searchDir, f))).equals(old), f).toBe(true);
    // Extended by a note: written again whole, in the current form, and finding the note.
    await box.run(['note', 'The pelican exporter needs a retry on 502']);
    const query = 'pelican exporter retry';
    expect((await search(query)).hits[0]).toMatchObject({ kind: 'scratch' });
    expect(await search(query)).toEqual(await search(query, { WMEM_SEARCH_INDEX: 'off' }));
    const rewritten = (await readdir(searchDir)).filter((f) => f.endsWith('.idx') && !(firstForm.get(f)?.equals(readFileSync(path.join(searchDir, f))) ?? false));
    expect(rewritten).toHaveLength(1);
    expect(readFileSync(path.join(searchDir, rewritten[0])).toString('latin1', 0, 8)).toBe('WMIX0002');
  }, 180_000);

  it('an index whose line starts are damaged on disk gives what a scan gives, and is dropped', async () => {
    await writeHistory();
    const compacted = await runJson(box, ['compact', '--keep-recent', '2', '--wait']);
    const indexFile = path.join(dir, 'state/search', `${path.basename(compacted.archive)}.idx`);
    // The header still checks out; every line start is rewritten in decreasing order.
    const bytes = await readFile(indexFile);
    const headerLength = bytes.readUInt32LE(8);
    const lines = JSON.parse(bytes.toString('utf8', 12, 12 + headerLength)).lines as number;
    const startsAt = (12 + headerLength + 3) & ~3;
    for (let i = 0; i < lines; i++) bytes.writeUInt32LE(100_000_000 - 10 * i, startsAt + 4 * i);
    await writeFile(indexFile, bytes);
    const indexed = await search('flamingo cache key');
    expect(indexed).toEqual(await search('flamingo cache key', { WMEM_SEARCH_INDEX: 'off' }));
    expect(indexed.hits.some((h: { kind: string; snippet: string }) => h.kind === 'messages' && h.snippet.includes('flamingo'))).toBe(true);
    // Dropped, to be built again (by this search's background indexing, or the next search).
    const again = await readFile(indexFile).catch(() => undefined);
    expect(again === undefined || !again.equals(bytes)).toBe(true);
  });

  it('an archive that is gone takes its index with it', async () => {
    await writeHistory();
    const compacted = await runJson(box, ['compact', '--keep-recent', '2', '--wait']);
    const name = path.basename(compacted.archive);
    await rm(path.join(dir, 'working-memory/archive', name));
    await search('flamingo');
    const left = await readdir(path.join(dir, 'state/search')).catch(() => []);
    expect(left.filter((f) => f.startsWith(name))).toEqual([]);
  });
});
