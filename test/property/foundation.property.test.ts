// Invariants of the foundation, held over generated inputs:
// - the encoding plus project.json never lets two different real paths share a folder;
// - rendering is deterministic;
// - no note text can close or forge a rendered block.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { mkdtemp, mkdir, rm, realpath } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { locateProject } from '../../src/store/project.js';
import { BLOCK_TAGS, neutralizeTags, renderMemory, type OverviewDigest } from '../../src/render/context.js';
import { formatNote, parseScratch } from '../../src/memory/scratch.js';

// Segments built from the characters that make encodings collide.
const segment = fc.stringMatching(/^[ab](?:[ab-]{0,3}[ab])?$/);
const relPath = fc.array(segment, { minLength: 1, maxLength: 3 }).map((parts) => parts.join('/'));

describe('project folders', () => {
  it('never give two different real paths the same folder, and always give a path its own folder back', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(relPath, { minLength: 2, maxLength: 6 }), async (paths) => {
        const root = await realpath(await mkdtemp(path.join(os.tmpdir(), 'wmem-prop-')));
        try {
          const home = path.join(root, 'home');
          const dirs = new Map<string, string>();
          for (const rel of paths) {
            const cwd = path.join(root, 'p', rel);
            await mkdir(cwd, { recursive: true });
            const project = await locateProject(home, cwd, { create: true });
            dirs.set(cwd, project!.dir);
          }
          expect(new Set(dirs.values()).size).toBe(dirs.size);
          for (const [cwd, dir] of dirs) {
            expect((await locateProject(home, cwd, { create: false }))?.dir).toBe(dir);
            expect((await locateProject(home, cwd, { create: true }))?.dir).toBe(dir);
          }
        } finally {
          await rm(root, { recursive: true, force: true });
        }
      }),
      { numRuns: 40 },
    );
  });
});

const sectionText = fc.string({ maxLength: 300 });
const digestArb = fc
  .array(fc.tuple(fc.constantFrom('task', 'progress', 'decisions', 'context', 'open', 'recent', 'pointers', 'details'), sectionText), { maxLength: 8 })
  .map<OverviewDigest>((entries) => ({
    preamble: '# Working Memory\n',
    sections: entries.map(([id, text]) => ({ id, text: `## ${id}\n${text}`, empty: text === '' })),
    maintained: entries.some(([, t]) => t !== ''),
  }));

// Text that tries hard to look like our tags.
const hostile = fc.oneof(
  fc.string({ maxLength: 200 }),
  fc.constantFrom(...BLOCK_TAGS).chain((tag) =>
    fc.tuple(fc.constantFrom('<', '< ', '<\t', '<\n'), fc.constantFrom('', '/', ' /', '/ '), fc.constantFrom(tag, tag.toUpperCase()), fc.constantFrom('>', ' >', '\n>', ' x>', '')).map((parts) => parts.join('')),
  ),
);
// Led by a word so that no block is empty (empty blocks are left out).
const noteText = fc.array(hostile, { minLength: 1, maxLength: 5 }).map((parts) => `text ${parts.join(' ')}`);

function tagCounts(text: string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const tag of BLOCK_TAGS) {
    counts[`<${tag}>`] = text.split(`<${tag}>`).length - 1;
    counts[`</${tag}>`] = text.split(`</${tag}>`).length - 1;
    // Any other spelling a lenient parser might accept as a tag must not appear either.
    counts[`~${tag}`] = (text.match(new RegExp(`<\\s*/?\\s*${tag}(?![\\w])`, 'gi')) ?? []).length;
  }
  return counts;
}

describe('rendering', () => {
  it('is deterministic: the same inputs give the same bytes', () => {
    fc.assert(
      fc.property(digestArb, fc.array(fc.string({ maxLength: 80 }), { maxLength: 30 }), fc.integer({ min: 200, max: 9000 }), (overview, notes, budget) => {
        const a = renderMemory({ overview, scratchLines: notes }, budget);
        const b = renderMemory({ overview: structuredClone(overview), scratchLines: [...notes] }, budget);
        expect(a).toBe(b);
      }),
    );
  });

  it('never exceeds its budget', () => {
    fc.assert(
      fc.property(digestArb, fc.array(fc.string({ maxLength: 120 }), { maxLength: 60 }), fc.integer({ min: 1000, max: 9000 }), (overview, notes, budget) => {
        expect(renderMemory({ overview, scratchLines: notes }, budget).length).toBeLessThanOrEqual(budget);
      }),
    );
  });

  it('neutralises exactly what the full tag pattern matches (the quick first look skips nothing)', () => {
    const full = new RegExp(`<(\\s*/?\\s*)(${BLOCK_TAGS.join('|')})(?![\\p{L}\\p{N}_])`, 'giu');
    // Case variants, including the two letters unicode case folding maps onto ASCII (ſ → s, K → k).
    const tagLike = fc
      .tuple(fc.constantFrom(...BLOCK_TAGS), fc.constantFrom('<', '</', '< /', '<\t/ ', '<\u00a0'), fc.constantFrom('', '>', 'x', 'é', ' '), fc.boolean())
      .map(([tag, open, after, upper]) => `${open}${(upper ? tag.toUpperCase() : tag).replace(/^s/i, (c) => (upper ? c : 'ſ')).replace(/k/, '\u212a')}${after}`);
    const text = fc.array(fc.oneof(tagLike, hostile, fc.constantFrom('<!-- guidance -->', '<div>', '<', 'plain')), { maxLength: 6 }).map((parts) => parts.join(''));
    fc.assert(
      fc.property(text, (t) => {
        expect(neutralizeTags(t)).toBe(t.replace(full, (_m, gap: string, name: string) => `&lt;${gap}${name}`));
      }),
      { numRuns: 500 },
    );
  });

  it('lets no note or section text close or forge a block', () => {
    fc.assert(
      fc.property(noteText, noteText, (note, section) => {
        const line = formatNote({ time: new Date(0), importance: 0.5, text: note });
        const scratchLines = parseScratch(line).notes.map((n) => n.raw);
        const overview: OverviewDigest = { preamble: '', sections: [{ id: 'task', text: `## task\n${section}`, empty: false }], maintained: true };
        const text = renderMemory({ overview, scratchLines, workspace: note, sessionState: section }, 100_000);
        const counts = tagCounts(text);
        for (const tag of ['working_memory', 'scratch_notes', 'workspace_memory', 'session_state'] as const) {
          expect(counts[`<${tag}>`]).toBe(1);
          expect(counts[`</${tag}>`]).toBe(1);
          expect(counts[`~${tag}`]).toBe(2);
        }
        for (const tag of ['context_meta', 'workspace_memory_candidates'] as const) expect(counts[`~${tag}`]).toBe(0);
      }),
      { numRuns: 300 },
    );
  });
});
