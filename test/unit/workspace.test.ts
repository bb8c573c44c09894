// Workspace memory, pure: dedup, limits and eviction order, migration, rendering, candidates.
import { describe, expect, it, vi } from 'vitest';
import fc from 'fast-check';
import {
  addEntry,
  canonical,
  emptyWorkspace,
  enforceLimits,
  extractCandidates,
  migrateWorkspace,
  renderWorkspace,
  renderedSize,
  sortForRender,
  WORKSPACE_TYPES,
  MAX_ENTRIES,
  MAX_RENDERED_CHARS,
  type WorkspaceEntry,
  type WorkspaceFile,
} from '../../src/memory/workspace.js';

const T0 = new Date('2026-01-01T00:00:00Z');
const day = (n: number) => new Date(T0.getTime() + n * 86_400_000);

function add(file: WorkspaceFile, text: string, extra: { type?: string; source?: string; confidence?: number } = {}, now = T0) {
  const out = addEntry(file, { type: extra.type ?? 'project', text, source: extra.source, confidence: extra.confidence }, now);
  if (!out.ok) throw new Error(out.refusal.reason);
  return out;
}

describe('canonical dedup', () => {
  it('folds case, punctuation and spaces', () => {
    expect(canonical('  We use PNPM,   not npm! ')).toBe(canonical('we use pnpm not npm'));
  });

  it('keeps one entry and the highest confidence', () => {
    let file = add(emptyWorkspace(), 'We use pnpm, not npm, in this repository', { source: 'compaction' }).file;
    const again = add(file, 'we use PNPM not npm in this repository!', { source: 'explicit' }, day(1));
    expect(again.status).toBe('merged');
    expect(again.file.entries).toHaveLength(1);
    expect(again.file.entries[0].confidence).toBe(1);
    expect(again.file.entries[0].source).toBe('explicit');
    file = again.file;
    const lower = add(file, 'We use pnpm not npm in this repository', { source: 'compaction' }, day(2));
    expect(lower.status).toBe('unchanged');
    expect(lower.file.entries[0].confidence).toBe(1);
    expect(lower.file.entries[0].text).toBe('we use PNPM not npm in this repository!');
  });
});

describe('gate through addEntry', () => {
  it('refuses an unknown type and gate failures without changing the file', () => {
    const file = emptyWorkspace();
    const bad = addEntry(file, { type: 'opinion', text: 'The user prefers tabs over spaces' }, T0);
    expect(bad.ok).toBe(false);
    const secret = addEntry(file, { type: 'project', text: 'Deploy key is sk-ant-abcdefghijklmnopqrstuvwxyz01' }, T0);
    expect(secret.ok || secret.refusal.rule).toBe('secret');
    expect(file.entries).toHaveLength(0);
  });
});

describe('limits and eviction', () => {
  function filled(n: number, confidence: (i: number) => number): WorkspaceFile {
    let file = emptyWorkspace();
    for (let i = 0; i < n; i++) file = add(file, `Project fact number ${i} about the build pipeline`, { confidence: confidence(i) }, day(i)).file;
    return file;
  }

  it('holds at most 28 entries, evicting the lowest confidence first', () => {
    const file = filled(MAX_ENTRIES, (i) => (i === 5 ? 0.3 : 0.9));
    const out = add(file, 'A new fact that pushes the file over the entry limit', {}, day(40));
    expect(out.file.entries).toHaveLength(MAX_ENTRIES);
    expect(out.evicted.map((e) => e.text)).toEqual(['Project fact number 5 about the build pipeline']);
  });

  it('among equal confidence, the oldest goes first', () => {
    const file = filled(MAX_ENTRIES, () => 0.9);
    const out = add(file, 'A new fact that pushes the file over the entry limit', {}, day(40));
    expect(out.evicted.map((e) => e.text)).toEqual(['Project fact number 0 about the build pipeline']);
  });

  it('never evicts the newest entry, even with the lowest confidence', () => {
    const file = filled(MAX_ENTRIES, () => 1);
    const out = add(file, 'A low-confidence fact that still must be kept', { source: 'compaction' }, day(40));
    expect(out.file.entries.some((e) => e.text.startsWith('A low-confidence fact'))).toBe(true);
    expect(out.evicted).toHaveLength(1);
    expect(out.evicted[0].text).toBe('Project fact number 0 about the build pipeline');
  });

  it('holds at most 5200 rendered characters', () => {
    let file = emptyWorkspace();
    for (let i = 0; i < 12; i++) file = add(file, `Long fact ${i}: ${'the pipeline caches layers between runs '.repeat(12)}`.slice(0, 480), {}, day(i)).file;
    expect(renderedSize(file.entries)).toBeLessThanOrEqual(MAX_RENDERED_CHARS);
    expect(file.entries.length).toBeLessThan(12);
    expect(file.entries.at(-1)!.text.startsWith('Long fact 11')).toBe(true);
  });

  it('enforceLimits leaves a file within limits untouched', () => {
    const entries: WorkspaceEntry[] = filled(3, () => 1).entries;
    expect(enforceLimits(entries).evicted).toEqual([]);
  });
});

describe('migration and rendering', () => {
  it('upgrades an OpenCode-style file and a bare list', () => {
    const { file, dropped } = migrateWorkspace({
      version: 2,
      workspace: { root: '/x', key: 'k' },
      entries: [
        { id: 'abc', type: 'decision', text: 'Use zod for config validation', source: 'explicit', confidence: 1, createdAt: 1767225600000, updatedAt: 1767225600000 },
        { type: 'weird', text: 'Kept as a project fact anyway, type unknown' },
        { text: '' },
      ],
    });
    expect(dropped).toBe(1);
    expect(file.version).toBe(1);
    expect(file.entries[0]).toMatchObject({ id: 'abc', type: 'decision', created: '2026-01-01T00:00:00.000Z' });
    expect(file.entries[1]).toMatchObject({ type: 'project', source: 'manual', confidence: 0.9 });
    expect(migrateWorkspace([{ text: 'A bare list entry from an old file' }]).file.entries).toHaveLength(1);
  });

  it('marks stale entries relative to the newest update in the file, deterministically', () => {
    let file = add(emptyWorkspace(), 'We chose Postgres over MySQL for JSONB support', { type: 'decision' }, day(0)).file;
    file = add(file, 'The user wants short commit messages in English', { type: 'feedback' }, day(0)).file;
    file = add(file, 'The staging cluster runs in eu-west-1 behind Cloudflare', { type: 'project' }, day(52)).file;
    const text = renderWorkspace(file);
    expect(text).toMatch(/Postgres over MySQL.*\[52d old, verify\]/);
    expect(text).not.toMatch(/short commit messages.*verify/); // feedback never goes stale
    expect(text).not.toMatch(/eu-west-1.*verify/);
    expect(renderWorkspace(file)).toBe(text);
  });
});

describe('candidates', () => {
  it('reads every candidate form in <workspace_memory_candidates> blocks', () => {
    const summary = [
      'Summary of the session.',
      '<workspace_memory_candidates>',
      '- [decision] We chose esbuild over tsup for the bundle',
      '- feedback: The user wants answers without preamble',
      '{"type":"reference","text":"Design notes live in docs/design.md of the wiki"}',
      '- The CI runs on two cores, so keep parallelism modest',
      '</workspace_memory_candidates>',
    ].join('\n');
    expect(extractCandidates(summary)).toEqual([
      { type: 'decision', text: 'We chose esbuild over tsup for the bundle' },
      { type: 'feedback', text: 'The user wants answers without preamble' },
      { type: 'reference', text: 'Design notes live in docs/design.md of the wiki' },
      { type: 'project', text: 'The CI runs on two cores, so keep parallelism modest' },
    ]);
  });
});

describe('render order', () => {
  // Sorted by code units, not localeCompare (no ICU collator to build on a hook's path, the same
  // bytes in every locale): on what wmem writes, ISO times and `m-` hex ids, the orders agree.
  it('is localeCompare\'s order on the times and ids wmem writes', () => {
    const entry = fc.record({
      type: fc.constantFrom(...WORKSPACE_TYPES),
      created: fc.integer({ min: 0, max: 5 }).map((d) => day(d).toISOString()),
      id: fc.stringMatching(/^m-[0-9a-f]{8}$/),
    });
    fc.assert(
      fc.property(fc.array(entry, { maxLength: 12 }), (raw) => {
        const entries = raw.map((e) => ({ ...e, text: e.id, source: 'explicit', confidence: 1, updated: e.created }) as WorkspaceEntry);
        const order = (t: string) => (WORKSPACE_TYPES as readonly string[]).indexOf(t);
        const byLocale = [...entries].sort((a, b) => order(a.type) - order(b.type) || a.created.localeCompare(b.created) || a.id.localeCompare(b.id));
        expect(sortForRender(entries).map((e) => e.id)).toEqual(byLocale.map((e) => e.id));
      }),
    );
  });

  it('builds no collator: neither the render nor the limits call localeCompare', () => {
    const spy = vi.spyOn(String.prototype, 'localeCompare');
    try {
      let file = emptyWorkspace();
      for (let i = 0; i < 40; i++) file = add(file, `fact number ${i} about the build`, { confidence: (i % 5) / 5 }, day(i % 7)).file;
      expect(renderWorkspace(file)).toContain('fact number 3');
      expect(spy).not.toHaveBeenCalled();
    } finally {
      spy.mockRestore();
    }
  });
});
