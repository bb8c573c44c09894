// Invariants of the memory part's budget (issue 28), over random section sizes, entry counts,
// workspace files and budgets:
// - the rendered part is within its budget;
// - every non-empty part appears (its heading or block, with at least its marker);
// - what the user asked to remember is never all left out while the decisions are shown in full;
// - an entry is shown whole or not at all;
// - the cut is deterministic.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { renderMemory, type MemoryInputs, type OverviewDigest } from '../../src/render/context.js';

const SECTIONS = ['task', 'progress', 'decisions', 'context', 'open', 'recent', 'pointers', 'details', 'custom'] as const;

/** Entries `- <tag> <n> xxx…` of random sizes, with a continuation line now and then. */
const entries = (tag: string, max: number) =>
  fc.array(fc.tuple(fc.integer({ min: 0, max: 160 }), fc.boolean()), { maxLength: max }).map((sizes) =>
    sizes.map(([size, continued], i) => `- ${tag} ${i} ${'x'.repeat(size)}.${continued ? `\n  ${tag} ${i} continued` : ''}`),
  );

const inputsArb = fc
  .record({
    sections: fc.uniqueArray(fc.constantFrom(...SECTIONS), { maxLength: SECTIONS.length }).chain((ids) => fc.tuple(...ids.map((id) => entries(`s-${id}`, 40).map((list) => [id, list] as const)))),
    notes: entries('note', 60),
    workspace: fc.array(fc.tuple(fc.integer({ min: 10, max: 300 }), fc.boolean()), { maxLength: 80 }),
    state: entries('state', 12),
  })
  .map(({ sections, notes, workspace, state }) => {
    const overview: OverviewDigest = {
      preamble: '# Working Memory\n',
      sections: sections.map(([id, list]) => ({ id, text: list.length ? `## ${id}\n${list.join('\n')}` : `## ${id}\n<!-- guidance for ${id} -->`, empty: list.length === 0 })),
      maintained: true,
    };
    const lines = workspace.map(([size], i) => `- [project] ws ${i} ${'w'.repeat(size)} (m-${i})`);
    const inputs: MemoryInputs = {
      overview,
      scratchLines: notes,
      workspace: lines.join('\n') || undefined,
      workspacePinned: lines.filter((_, i) => workspace[i][1]),
      sessionState: state.join('\n') || undefined,
    };
    return { inputs, sections, lines, pinned: inputs.workspacePinned! };
  });

describe('the memory budget', () => {
  it('fits, shows every non-empty part, never drops all pinned entries while the decisions are whole, and cuts only between entries', () => {
    fc.assert(
      fc.property(inputsArb, fc.integer({ min: 2500, max: 12000 }), ({ inputs, sections, lines, pinned }, budget) => {
        const text = renderMemory(inputs, budget);
        expect(text.length).toBeLessThanOrEqual(budget);
        expect(renderMemory(structuredClone(inputs), budget)).toBe(text);
        for (const [id, list] of sections) {
          if (!list.length) continue;
          expect(text).toContain(`## ${id}\n`);
          for (let i = 0; i < list.length; i++) {
            // Whole or absent: the first line of an entry is never there without the rest.
            if (text.includes(`s-${id} ${i} x`)) expect(text).toContain(list[i]);
          }
        }
        if (lines.length) expect(text).toContain('<workspace_memory>');
        if (inputs.sessionState) expect(text).toContain('<session_state>');
        if (inputs.scratchLines.length) expect(text).toContain('<scratch_notes>');
        const decisions = sections.find(([id]) => id === 'decisions')?.[1] ?? [];
        const decisionsWhole = decisions.length > 0 && decisions.every((d) => text.includes(d));
        if (pinned.length && decisionsWhole) expect(pinned.some((line) => text.includes(line))).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('keeps a run from the end that matters: the first task and progress entries, the newest decisions and notes', () => {
    let cut = 0;
    fc.assert(
      fc.property(inputsArb, fc.integer({ min: 2500, max: 6000 }), ({ inputs, sections }, budget) => {
        const text = renderMemory(inputs, budget);
        if (text.includes('[wmem: left out')) cut++;
        const shown = (list: readonly string[]) => list.map((entry) => text.includes(entry));
        const notes = shown(inputs.scratchLines);
        expect(notes).toEqual([...notes].sort((a, b) => Number(a) - Number(b)));
        for (const [id, list] of sections) {
          const kept = shown(list);
          if (id === 'task' || id === 'progress') expect(kept).toEqual([...kept].sort((a, b) => Number(b) - Number(a)));
          if (id === 'decisions' || id === 'recent') expect(kept).toEqual([...kept].sort((a, b) => Number(a) - Number(b)));
        }
      }),
      { numRuns: 200 },
    );
    // The generator reaches the cut (not only inputs that fit whole).
    expect(cut).toBeGreaterThan(30);
  });
});
