// A session's decisions offered to workspace memory (memory/session-decisions.ts and
// store/session-decisions.ts): which ones, in what order, through the gate and the duplicate rule,
// a handful per session, never at the cost of an explicit entry.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { decisionOffers, DECISIONS_PER_SESSION, sectionDecisions } from '../../src/memory/session-decisions.js';
import { offerSessionDecisions } from '../../src/store/session-decisions.js';
import { readWorkspaceSync, workspaceFilePath } from '../../src/store/workspace.js';
import { migrateWorkspace } from '../../src/memory/workspace.js';

const NOW = new Date('2026-11-26T10:00:00Z');
const note = (text: string, importance: number, tags: string[] = []) => ({ text, importance, tags });

describe('decisionOffers', () => {
  it('notes of importance >= 0.8 tagged #decisions (newest first, their importance), then the Key Decisions lines (0.8)', () => {
    const notes = [
      note('older decision about retries #decisions', 0.85, ['decisions']),
      note('important but not a decision', 0.95),
      note('tagged but minor #decisions', 0.5, ['decisions']),
      note('newest decision about idempotency #decisions', 0.9, ['decisions']),
    ];
    const section = '<!-- guidance -->\n- REST over gRPC because browsers\n1. Postgres over SQLite for concurrency\n### a sub-heading\n- Past: old topic → search: `x`';
    expect(decisionOffers(section, notes)).toEqual([
      { text: 'newest decision about idempotency', confidence: 0.9 },
      { text: 'older decision about retries', confidence: 0.85 },
      { text: 'REST over gRPC because browsers', confidence: 0.8 },
      { text: 'Postgres over SQLite for concurrency', confidence: 0.8 },
    ]);
  });

  it('folds canonical duplicates (a consolidated note is also a Key Decisions line) and keeps a handful', () => {
    const offers = decisionOffers('- Use idempotency keys.\n' + Array.from({ length: 9 }, (_, i) => `- decision ${i}`).join('\n'), [note('use idempotency keys #decisions', 0.9, ['decisions'])]);
    expect(offers[0]).toEqual({ text: 'use idempotency keys', confidence: 0.9 });
    expect(offers.filter((o) => /idempotency/i.test(o.text))).toHaveLength(1);
    expect(offers).toHaveLength(DECISIONS_PER_SESSION);
  });

  it('property: never more than the limit, never an empty text, never a duplicate', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ maxLength: 40 }), { maxLength: 20 }), fc.array(fc.record({ text: fc.string({ maxLength: 40 }), importance: fc.double({ min: 0, max: 1, noNaN: true }), tags: fc.constantFrom<string[]>([], ['decisions']) }), { maxLength: 20 }), (lines, notes) => {
        const offers = decisionOffers(lines.map((l) => `- ${l}`).join('\n'), notes);
        expect(offers.length).toBeLessThanOrEqual(DECISIONS_PER_SESSION);
        expect(offers.every((o) => o.text.trim() !== '')).toBe(true);
      }),
    );
  });

  it('sectionDecisions reads list items and plain lines, not comments or headings', () => {
    expect(sectionDecisions('<!-- a\nmulti-line comment -->\n- [x] done item\n* star item\nplain line\n\n#### heading')).toEqual(['done item', 'star item', 'plain line']);
  });
});

describe('offerSessionDecisions', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'wmem-decisions-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('adds decision entries with source session, the session id and its confidence; offered again they fold', async () => {
    const offers = [{ text: 'idempotency keys on every POST to charges', confidence: 0.9 }];
    expect(await offerSessionDecisions(dir, 's1', offers, NOW)).toMatchObject({ added: 1, merged: 0 });
    expect(await offerSessionDecisions(dir, 's1', offers, NOW)).toMatchObject({ added: 0, merged: 0 });
    expect(readWorkspaceSync(dir).entries).toEqual([expect.objectContaining({ type: 'decision', source: 'session', session: 's1', confidence: 0.9, text: offers[0].text })]);
  });

  it("the same session offering its decision again leaves the file as it was; another session's offer refreshes the date", async () => {
    const offers = [{ text: 'idempotency keys on every POST to charges', confidence: 0.8 }];
    await offerSessionDecisions(dir, 's1', offers, NOW);
    const written = await readFile(workspaceFilePath(dir), 'utf8');
    const later = new Date(NOW.getTime() + 3_600_000);
    await offerSessionDecisions(dir, 's1', offers, later);
    expect(await readFile(workspaceFilePath(dir), 'utf8')).toBe(written);
    await offerSessionDecisions(dir, 's2', offers, later);
    expect(readWorkspaceSync(dir).entries).toEqual([expect.objectContaining({ session: 's1', created: NOW.toISOString(), updated: later.toISOString() })]);
  });

  it('goes through the gate, and never past the per-session share', async () => {
    const result = await offerSessionDecisions(dir, 's1', [{ text: 'short', confidence: 0.8 }, ...Array.from({ length: 7 }, (_, i) => ({ text: `decision number ${i} about the service design`, confidence: 0.8 }))], NOW);
    expect(result.added).toBe(DECISIONS_PER_SESSION);
    expect(result.declined.map((d) => d.reason)).toEqual([expect.stringMatching(/^too-short/), expect.stringMatching(/has 5 entries/), expect.stringMatching(/has 5 entries/)]);
    // Another session has its own share.
    expect((await offerSessionDecisions(dir, 's2', [{ text: 'a decision from the second session', confidence: 0.8 }], NOW)).added).toBe(1);
  });

  it('declines an offer that would evict an explicit entry, and leaves the file as it was', async () => {
    const entries = Array.from({ length: 28 }, (_, i) => ({ id: `m-e${i}`, type: 'project', text: `explicit fact number ${i} of the project`, source: 'explicit', confidence: 1, created: NOW.toISOString(), updated: NOW.toISOString() }));
    await writeFile(workspaceFilePath(dir), JSON.stringify({ version: 1, entries }));
    const result = await offerSessionDecisions(dir, 's1', [{ text: 'a decision that needs a free place', confidence: 0.95 }], NOW);
    expect(result.added).toBe(0);
    expect(result.declined[0].reason).toMatch(/explicit entries/);
    expect(readWorkspaceSync(dir).entries.map((e) => e.id)).toEqual(entries.map((e) => e.id));
  });

  it('an entry keeps its session through a load; a session field on another source is dropped', () => {
    const { file } = migrateWorkspace({ version: 1, entries: [{ text: 'a decision from a session', type: 'decision', source: 'session', session: 's1' }, { text: 'an explicit fact here', type: 'project', source: 'explicit', session: 's1' }, { text: 'a bad session id value', type: 'decision', source: 'session', session: '../x' }] });
    expect(file.entries.map((e) => e.session)).toEqual(['s1', undefined, undefined]);
    expect(file.entries[0].confidence).toBe(0.8);
  });
});
