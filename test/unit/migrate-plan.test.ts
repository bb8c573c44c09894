// The pure parts of migration: finding legacy sessions, token chunking with overlap, and reading
// the OpenCode plugin's files.
import { describe, expect, it } from 'vitest';
import { findLegacy } from '../../src/ops/migrate/legacy.js';
import { chunkRanges, chunkText, loadTokenizer } from '../../src/ops/migrate/chunk.js';
import { planCore, planWorking, planWorkspace } from '../../src/ops/migrate/opencode-files.js';

describe('findLegacy', () => {
  it('pairs <id>.jsonl with <id>.meta.json and ignores everything else', () => {
    expect(findLegacy(['a.jsonl', 'a.meta.json', 'b.jsonl', 'c.meta.json', 'project.json', 'current', 'workspace-memory.jsonl', '.x.jsonl', 'bad id.jsonl'])).toEqual([
      { id: 'a', messages: true, meta: true },
      { id: 'b', messages: true, meta: false },
      { id: 'c', messages: false, meta: true },
    ]);
  });
});

describe('chunkRanges', () => {
  it('cuts 400-token windows overlapping by 80', () => {
    expect(chunkRanges(1000)).toEqual([
      { start: 0, end: 400 },
      { start: 320, end: 720 },
      { start: 640, end: 1000 },
    ]);
    expect(chunkRanges(400)).toEqual([{ start: 0, end: 400 }]);
    expect(chunkRanges(0)).toEqual([]);
    expect(() => chunkRanges(10, 100, 100)).toThrow();
  });

  it('covers the text with the real tokenizer', async () => {
    const tokenizer = await loadTokenizer();
    const text = Array.from({ length: 300 }, (_, i) => `Fact ${i}: the deploy uses blue/green on port ${8000 + i}.`).join('\n') + '\nmentions <|endoftext|> literally';
    const chunks = chunkText(text, tokenizer);
    const tokens = tokenizer.encode(text).length;
    expect(chunks.at(-1)!.end).toBe(tokens);
    for (const c of chunks) expect(tokenizer.encode(c.text).length).toBeLessThanOrEqual(402);
    // Without the overlaps, the chunks give back the text.
    const joined = chunks.map((c, i) => (i === 0 ? c.text : tokenizer.decode(tokenizer.encode(text).slice(chunks[i - 1].end, c.end)))).join('');
    expect(joined).toBe(text);
  });
});

describe('OpenCode plugin files', () => {
  it('maps core blocks to sections', () => {
    const core = { sessionID: 'ses_1', blocks: { goal: { value: 'Ship v2', charLimit: 1000, lastModified: 1 }, progress: { value: '- parser done', charLimit: 2000, lastModified: 1 }, context: { value: '', charLimit: 1500, lastModified: 1 } }, updatedAt: 1 };
    expect(planCore(core)).toEqual({ sessionId: 'ses_1', sections: [{ id: 'task', text: 'Ship v2', from: 'goal' }, { id: 'progress', text: '- parser done', from: 'progress' }] });
    expect(() => planCore({ nope: 1 })).toThrow(/memory-core/);
  });

  it('maps slots and pool, and the older flat items', () => {
    const item = (type: string, content: string, extra = {}) => ({ id: content, type, content, source: 'tool', timestamp: 1763884800000, relevanceScore: 0.9, mentions: 1, ...extra });
    const working = {
      sessionID: 'ses_1',
      slots: { error: [item('error', 'TS2304 in src/a.ts')], decision: [item('decision', 'Use zod for validation')], todo: [item('other', 'add tests')], dependency: [item('other', 'zod@3')] },
      pool: [item('file-path', 'src/a.ts'), item('other', 'the API is rate limited', { relevanceScore: 0.02 })],
      eventCounter: 9,
      updatedAt: 1,
    };
    const plan = planWorking(working);
    expect(plan.files).toEqual(['src/a.ts']);
    expect(plan.errors).toEqual(['TS2304 in src/a.ts']);
    expect(plan.notes.map((n) => [n.text, n.importance, n.tags[0]])).toEqual([
      ['Use zod for validation', 0.8, 'decisions'],
      ['TODO: add tests', 0.6, 'open'],
      ['Dependency: zod@3', 0.5, 'context'],
      ['the API is rate limited', 0.1, 'context'],
    ]);
    expect(planWorking({ items: [item('decision', 'Keep tabs')] }).notes[0].text).toBe('Keep tabs');
  });

  it('reads 1.2 workspace memory entries', () => {
    const ws = { version: 1, workspace: { root: '/a', key: 'k' }, limits: {}, entries: [{ id: '1', type: 'decision', text: 'Use pnpm', rationale: 'faster CI', source: 'explicit', confidence: 1, createdAt: 1, updatedAt: 1 }, { id: '2', type: 'weird', text: 'x'.repeat(30), source: 'compaction', confidence: 0.75 }] };
    expect(planWorkspace(ws)).toEqual([
      { type: 'decision', text: 'Use pnpm (faster CI)', source: 'explicit', confidence: 1, createdAt: new Date(1).toISOString() },
      { type: 'project', text: 'x'.repeat(30), source: 'compaction', confidence: 0.75, createdAt: undefined },
    ]);
  });
});
