// recutState (app/context-recall.ts): the prompt after a tool call whose session state block
// changed length (an open error's count 9 → 10, a longer path) in a cut part. It answers from the
// render cache alone (no keptInputs, no full cut), with the text and the cache entry a fresh
// renderOrRecall gives, and leaves to the full path what it cannot tell.
import { describe, expect, it } from 'vitest';
import { recutState, renderOrRecall } from '../../src/app/context-recall.js';
import type { ContextCache } from '../../src/store/context-cache.js';
import type { MemoryInputs } from '../../src/render/context.js';

const CODE = 'code-signature';
const BUDGET = 8000;
const base: MemoryInputs = {
  overview: { preamble: '# Working Memory', sections: [{ id: 'task', text: '## Task\n- ship the recut', empty: false }, { id: 'progress', text: `## Progress\n${Array.from({ length: 15 }, (_, i) => `- progress item ${i}: decided after measuring, see detail/notes-${i}.md`).join('\n')}`, empty: false }], maintained: true },
  scratchLines: Array.from({ length: 100 }, (_, i) => `- [2026-11-23T08:00:00Z] (importance: 0.${i % 10}) note ${i}: the build uses esbuild and the tests use vitest #context`),
};
const sources = (hot: string) => ({ hot, tail: 'tail-digest', decisions: () => ['use esbuild'] });
const lint = (count: number) => `Open errors:\n- [lint] lint: 3 problems (#64003d3d8ab7, ${count}×)`;

/** The render cache as a prompt left it, for the hot state `hot`. */
function cacheAfter(hot: string): ContextCache {
  const cache: ContextCache = { version: 3, overview: { text: '', digest: base.overview } };
  renderOrRecall(cache, CODE, base, sources(hot), BUDGET);
  return cache;
}

describe('recutState', () => {
  it('cuts the part again when the session state block changes length, as a fresh render does', () => {
    const test = (file: string) => `${lint(3)}\n- [test] FAIL ${file} (#0badc0ffee00, 1×)`;
    for (const [before, after] of [[lint(9), lint(10)], [lint(10), lint(9)], [test('src/a.test.ts'), test('src/longer/name.test.ts')]]) {
      const cache = cacheAfter(before);
      expect(cache.memory?.text).toContain('[wmem: left out to fit');
      const recut = recutState(cache, CODE, BUDGET, after);
      const fresh = cacheAfter(after);
      expect(recut?.text).toBe(fresh.memory!.text);
      expect(recut?.digest).toBe(fresh.memory!.digest);
      expect(cache.memory).toEqual(fresh.memory);
    }
  });

  it('leaves to the full path a cache without the cut records (an older build), a block grown past the room left, or a line added', () => {
    const older = cacheAfter(lint(9));
    for (const block of Object.values(older.memory!.blocks!)) delete block.cut;
    expect(recutState(older, CODE, BUDGET, lint(10))).toBeUndefined();
    const grown = `${lint(9)}\n${Array.from({ length: 5 }, (_, i) => `- [t${i}] FAIL src/t${i}.test.ts: ${'x'.repeat(60)} (#0badc0ffee0${i}, 1×)`).join('\n')}`;
    expect(recutState(cacheAfter(lint(9)), CODE, BUDGET, grown)).toBeUndefined();
    expect(recutState(cacheAfter(lint(1)), CODE, BUDGET, `${lint(1)}\n- [test] FAIL (#0badc0ffee00, 1×)`)).toBeUndefined();
  });
});
