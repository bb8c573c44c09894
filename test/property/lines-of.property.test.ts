// The archive's lines as the search text reads them (a chunk at a time, cut after the last line end) are exactly
// readline's, whatever the line endings and wherever the chunks are cut.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createReadStream, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { linesOf } from '../../src/store/search-corpus.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'wmem-lines-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const collect = async (lines: AsyncIterable<string>) => {
  const out: string[] = [];
  for await (const line of lines) out.push(line);
  return out;
};

describe('linesOf', () => {
  it('gives the lines readline gives', async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(fc.constantFrom('a', 'bc', '\r', '\n', '\r\n', 'é', '日本', '{"x":1}'), { maxLength: 30 }), fc.integer({ min: 1, max: 16 }), async (parts, chunk) => {
        const file = path.join(dir, `f${n++}`);
        writeFileSync(file, parts.join(''));
        const expected = await collect(createInterface({ input: createReadStream(file, { encoding: 'utf8' }), crlfDelay: Infinity }));
        expect(await collect(linesOf(file, chunk))).toEqual(expected);
      }),
      { numRuns: 300 },
    );
  });
});
