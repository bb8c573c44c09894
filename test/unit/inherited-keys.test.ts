// Text from outside that names a key every object inherits (constructor, __proto__, toString) is
// looked up in wmem's tables as any other unknown key (ui/json.ts entryOf): a hook's tool name, an
// overview heading, a word the stemmer meets.
import { describe, expect, it } from 'vitest';
import { entryOf } from '../../src/ui/json.js';
import { geminiToolEvent } from '../../src/agents/gemini/protocol.js';
import { qwenToolEvent } from '../../src/agents/qwen/protocol.js';
import { opencodeToolEvent } from '../../src/agents/opencode/protocol.js';
import type { HookInput } from '../../src/agents/adapter.js';
import { renderMemory, type OverviewDigest } from '../../src/render/context.js';
import { stem } from '../../src/memory/text.js';

const INHERITED = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf'];

describe('keys every object inherits', () => {
  it('are no entry of a table', () => {
    const table: Record<string, number> = { a: 1 };
    for (const key of INHERITED) expect(entryOf(table, key)).toBeUndefined();
    expect(entryOf(table, 'a')).toBe(1);
  });

  it("are a hook's tool name as it is, for every agent that renames tools", () => {
    for (const name of INHERITED) {
      const input = { moment: 'tool-done', tool: { name, input: { file_path: 'a.txt' } } } as unknown as HookInput;
      for (const toolEvent of [geminiToolEvent, qwenToolEvent, opencodeToolEvent]) expect(toolEvent(input).tool).toBe(name.toLowerCase());
    }
  });

  it('are a word the stemmer stems as any other', () => {
    for (const word of INHERITED) expect(typeof stem(word)).toBe('string');
  });

  it("are an overview heading whose section is cut as any unknown heading's", () => {
    const lines = Array.from({ length: 60 }, (_, i) => `- entry ${i} ${'x'.repeat(40)}`).join('\n');
    const digest = (id: string): OverviewDigest => ({ preamble: '# Working Memory\n', sections: [{ id: 'task', text: '## Task\n- ship it', empty: false }, { id, text: `## Heading\n${lines}`, empty: false }], maintained: true });
    const plain = renderMemory({ overview: digest('some-heading'), scratchLines: [] }, 600);
    // The same cut: 5 entries kept, the rest named by the section's id in the closing note.
    expect(plain).toContain('55 entries of section some-heading');
    for (const id of ['constructor', 'tostring', 'valueof']) expect(renderMemory({ overview: digest(id), scratchLines: [] }, 600)).toBe(plain.replace('section some-heading', `section ${id}`));
  });
});
