// splitBlocks finds each block as one slice of the part (render/memory-resend.ts): the same
// segments, names and texts as cutting the part into lines and joining each block's lines again,
// which is the rule as first written (kept here as the reference), over random parts built of
// block tags, closing lines, lookalikes and blank lines.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { numbered, splitBlocks, type Segment } from '../../src/render/memory-resend.js';

/** The rule line by line: a block opens at a line `<tag>` and closes at the line `</tag>`. */
function byLines(memory: string): Segment[] {
  const segments: Segment[] = [];
  const outside: string[] = [];
  let open: { name: string; lines: string[] } | undefined;
  for (const line of memory.split('\n')) {
    if (open) {
      open.lines.push(line);
      if (line === `</${open.name}>`) {
        segments.push({ name: open.name, text: open.lines.join('\n') });
        open = undefined;
      }
      continue;
    }
    const tag = /^<([a-z][a-z0-9_]*)>$/.exec(line)?.[1];
    if (tag) open = { name: tag, lines: [line] };
    else if (line.trim()) outside.push(line);
  }
  if (open) segments.push({ name: open.name, text: open.lines.join('\n') });
  if (outside.length) segments.push({ name: 'notice', text: outside.join('\n') });
  return numbered(segments);
}

const LINES = ['<working_memory>', '</working_memory>', '<session_state>', '</session_state>', '<a>', '</a>', '</a> ', ' <a>', '<a>x', '<A>', '<a1_b>', '</a1_b>', '', ' ', '\t', '- note', '[wmem: left out to fit]', '</', '<', '</session_state>x', 'x</a>'];

describe('splitBlocks', () => {
  it('cuts every part as the line-by-line rule does', () => {
    const part = fc.array(fc.oneof(fc.constantFrom(...LINES), fc.string({ maxLength: 6 })), { maxLength: 30 }).chain((lines) => fc.constantFrom(lines.join('\n'), lines.join('\n') + '\n', '\n' + lines.join('\n'), lines.join('\r\n')));
    fc.assert(fc.property(part, (memory) => {
      expect(splitBlocks(memory)).toEqual(byLines(memory));
    }), { numRuns: 3000 });
  });

  it('cuts the edge cases alike: empty, a lone tag, a block closed on the last line, unclosed', () => {
    for (const memory of ['', '\n', '<a>', '<a>\n', '<a>\n</a>', '<a>\n</a>\n', '<a>\n</a>\n<a>\n</a>', '<a>\nx\n</a> \n</a>', 'x\n<a>\n<b>\n</b>', '\n\n<a>\n\n</a>\n\nnotice\n'])
      expect(splitBlocks(memory)).toEqual(byLines(memory));
  });
});
