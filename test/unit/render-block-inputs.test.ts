// The render cache keeps each block of the memory part under blockInputs (src/render/context.ts):
// a block may be served from the cache only if its text cannot have changed. So for every field of
// MemoryInputs (the sample below must name them all: Required<>), a change that changes a block's
// text must change that block's key; and every block has a key.
import { describe, expect, it } from 'vitest';
import { MEMORY_BLOCKS, RELATIVE_WHERE, blockInputs, renderBlock, type MemoryInputs } from '../../src/render/context.js';

const NOTE = (text: string) => `- [2026-03-01T10:00:00Z] (importance: 0.5) ${text} #context`;

const sample: Required<MemoryInputs> = {
  overview: { preamble: '# Working Memory', sections: [{ id: 'task', text: '## task\n- ship the exporter', empty: false }], maintained: true, problem: 'a broken heading' },
  scratchLines: [NOTE('the build uses esbuild'), 'not a note'],
  workspace: '- the API is versioned',
  workspacePinned: ['- the API is versioned'],
  sessionState: 'last command: npm test (failed)',
  handoff: 'the previous session fixed the parser',
  where: RELATIVE_WHERE,
};

const changed: { [K in keyof MemoryInputs]-?: MemoryInputs[K] } = {
  overview: { ...sample.overview, sections: [{ id: 'task', text: '## task\n- ship the importer', empty: false }] },
  scratchLines: [NOTE('the build uses tsc')],
  workspace: '- the API is not versioned',
  workspacePinned: [],
  sessionState: 'last command: npm test (passed)',
  handoff: 'the previous session broke the parser',
  where: { ...RELATIVE_WHERE, overview: '/home/me/.ai/sessions/x/working-memory/overview.md', compact: '/compact' },
};

const key = (inputs: MemoryInputs, block: (typeof MEMORY_BLOCKS)[number]) => JSON.stringify(blockInputs(inputs, block));

describe('blockInputs', () => {
  it('gives every block a key', () => {
    for (const block of MEMORY_BLOCKS) expect(blockInputs(sample, block), block).toBeDefined();
  });

  it('changes a block\'s key wherever a field\'s change changes its text', () => {
    for (const field of Object.keys(sample) as (keyof MemoryInputs)[]) {
      const other = { ...sample, [field]: changed[field] } as MemoryInputs;
      let textChanged = 0;
      for (const block of MEMORY_BLOCKS) {
        if (renderBlock(other, block) === renderBlock(sample, block)) continue;
        textChanged++;
        expect(key(other, block), `${field} changes ${block}`).not.toBe(key(sample, block));
      }
      // Each field shows in some block whole, but those that act only when a part is cut: where
      // (named in the notices) and workspacePinned (what is cut last).
      if (field !== 'where' && field !== 'workspacePinned') expect(textChanged, field).toBeGreaterThan(0);
    }
  });
});
