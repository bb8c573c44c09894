// An agent appending to messages.jsonl while a compaction runs (opening the file for each line,
// as a harness does): every line is kept, once, and in the order it was written, whichever way
// the compaction goes. The writer here appends a line each millisecond from the same event loop,
// so its lines land between steps of the compaction, around the swap of the file included.
import { afterEach, beforeEach, expect, it } from 'vitest';
import { appendFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { compactSession } from '../../src/history/compact.js';
import { restoreArchive } from '../../src/history/restore.js';
import { makeSession, setMessages, type TestSession } from '../helpers/history-session.js';

const J = (v: unknown) => JSON.stringify(v);
const history = Array.from({ length: 400 }, (_, t) => [
  J({ type: 'user', message: { role: 'user', content: `turn ${t}` } }),
  J({ type: 'assistant', message: { id: `msg_${t}`, role: 'assistant', content: [{ type: 'text', text: `answer ${t} ${'x'.repeat(200)}` }] } }),
])
  .flat()
  .join('\n')
  .concat('\n');
const written = (n: number) => J({ type: 'system', content: `appended ${n}` }) + '\n';

let ts: TestSession;
let clock = Date.UTC(2026, 4, 1);
const env = { now: () => new Date((clock += 1000)), warn: () => {} };
beforeEach(async () => {
  ts = await makeSession();
});
afterEach(async () => {
  await ts.cleanup();
});

for (const way of ['quick', 'full'] as const) {
  it(`keeps lines appended during a ${way} compaction, once each and in order`, async () => {
    for (let round = 0; round < 5; round++) {
      await setMessages(ts.session, history);
      let n = 0;
      let writing = true;
      const writer = (async () => {
        while (writing) {
          appendFileSync(ts.session.paths.messages, written(n++));
          await new Promise((resolve) => setTimeout(resolve, 1));
        }
      })();
      const result = await compactSession(ts.session, { target: 'conversation', strategy: 'archive', keepRecent: 3, quickFrom: way === 'quick' ? 0 : undefined, wait: true }, env);
      writing = false;
      await writer;
      expect(result.compacted).toBe(true);
      expect(Boolean(result.finishing)).toBe(way === 'quick');
      await restoreArchive(ts.session, result.archive!, env);
      const expected = history + Array.from({ length: n }, (_, i) => written(i)).join('');
      expect(await readFile(ts.session.paths.messages, 'utf8')).toBe(expected);
    }
  });
}
