// Property: for random histories (every line kind wmem meets, CRLF, no final newline, a
// truncated last line), any sequence of compactions followed by restoring their archives newest
// first gives back the original file byte for byte; after each plain cut, archive + the rest is
// exactly what was there before, cut where the pure planner says. Plain cuts go the full way or
// the quick way (the archive is the old file, the cut checked from raw bytes): the same cut.
import { afterEach, beforeEach, expect, it } from 'vitest';
import fc from 'fast-check';
import { readFile, unlink } from 'node:fs/promises';
import path from 'node:path';
import { compactSession, type CompactTarget } from '../../src/history/compaction/compact.js';
import { restoreArchive } from '../../src/history/compaction/restore.js';
import { archives, makeSession, setMessages, splitLines, unionAfterCut, type TestSession } from '../helpers/history-session.js';
import { planLineCut } from '../../src/history/model/turns.js';

const J = (v: unknown) => JSON.stringify(v);
const longOutput = Array.from({ length: 60 }, (_, i) => `src/file${i}.ts`).join('\n');

const event = fc.oneof(
  { arbitrary: fc.record({ kind: fc.constant('user' as const), text: fc.string({ maxLength: 20 }), cc: fc.boolean() }), weight: 4 },
  fc.record({ kind: fc.constant('assistant' as const), text: fc.string({ maxLength: 20 }), cc: fc.boolean() }),
  fc.record({ kind: fc.constant('tool' as const), long: fc.boolean(), delayed: fc.boolean() }),
  fc.record({ kind: fc.constant('tool' as const), long: fc.constant(true), delayed: fc.constant(false) }),
  fc.constantFrom('{"role": "_usage", "token_count": 12}', '{"role": "_checkpoint", "id": 3}', '42', '"massive error"', '[1,2]', '{"silly":"this"}', '{"broken', '', '{"type":"file-history-snapshot","messageId":"x"}'),
);

function render(events: Array<unknown>, crlf: boolean[], finalNewline: boolean, truncateLast: boolean): Buffer {
  const lines: string[] = [];
  let n = 0;
  let pending: string | undefined;
  for (const e of events) {
    if (typeof e === 'string') lines.push(e);
    else {
      const ev = e as { kind: string; text?: string; cc?: boolean; long?: boolean; delayed?: boolean };
      if (ev.kind === 'user') {
        lines.push(ev.cc ? J({ type: 'user', uuid: `u${n}`, message: { role: 'user', content: ev.text || 'q' } }) : J({ role: 'user', content: ev.text || 'q' }));
        if (pending) {
          lines.push(pending);
          pending = undefined;
        }
      } else if (ev.kind === 'assistant') {
        // Mostly ids the quick cut can look for in raw bytes; some too short, which send it the full way.
        lines.push(ev.cc ? J({ type: 'assistant', message: { id: n % 3 ? `msg_${n}` : `m${n}`, role: 'assistant', content: [{ type: 'text', text: ev.text }] } }) : J({ role: 'assistant', content: ev.text }));
      } else {
        const id = `call_${n}`;
        lines.push(J({ role: 'assistant', content: '', tool_calls: [{ type: 'function', id, function: { name: 'Bash', arguments: '{"command":"ls"}' } }] }));
        const result = J({ role: 'tool', tool_call_id: id, content: ev.long ? longOutput : 'ok' });
        if (ev.delayed && !pending) pending = result;
        else lines.push(result);
      }
    }
    n++;
  }
  if (pending) lines.push(pending);
  let text = lines.map((l, i) => l + (crlf[i % crlf.length] ? '\r\n' : '\n')).join('');
  if (!finalNewline) text = text.replace(/\r?\n$/, '');
  if (truncateLast && text.length > 10) text = text.replace(/\r?\n$/, '').slice(0, -5);
  return Buffer.from(text, 'utf8');
}

let ts: TestSession;
beforeEach(async () => {
  ts = await makeSession();
});
afterEach(async () => {
  await ts.cleanup();
});

it('compact then restore (newest first) gives the original bytes', async () => {
  let clock = Date.UTC(2026, 2, 1);
  const seen = { conversation: 0, tools: 0, all: 0, quick: 0 };
  const env = { now: () => new Date((clock += 1000)), warn: () => {} };
  await fc.assert(
    fc.asyncProperty(
      fc.array(event, { minLength: 0, maxLength: 50 }),
      fc.array(fc.boolean(), { minLength: 1, maxLength: 4 }),
      fc.boolean(),
      fc.boolean(),
      fc.array(fc.record({ keepRecent: fc.integer({ min: 0, max: 4 }), target: fc.constantFrom<CompactTarget>('conversation', 'tools', 'all'), strategy: fc.constantFrom<'archive' | 'summarize'>('archive', 'archive', 'summarize'), quick: fc.constantFrom(true, true, false) }), { minLength: 1, maxLength: 3 }),
      async (events, crlf, finalNewline, truncateLast, runs) => {
        for (const name of await archives(ts.session)) await unlink(path.join(ts.session.paths.archiveDir, name));
        const original = render(events, crlf, finalNewline, truncateLast);
        await setMessages(ts.session, original);
        const made: string[] = [];
        for (const run of runs) {
          const before = await readFile(ts.session.paths.messages);
          const result = await compactSession(ts.session, { target: run.target, strategy: run.strategy, keepRecent: run.keepRecent, quickFrom: run.quick ? 0 : undefined }, env);
          if (!result.compacted) {
            expect(await readFile(ts.session.paths.messages)).toEqual(before);
            continue;
          }
          made.push(result.archive!);
          seen[run.target]++;
          if (result.finishing) seen.quick++;
          if (run.target === 'conversation') {
            expect(await unionAfterCut(ts.session)).toEqual(before);
            const planned = planLineCut(splitLines(before).map((line) => line.toString('utf8')), run.keepRecent);
            expect(result.counts.linesArchived).toBe(planned?.cut);
          }
        }
        for (const archive of made.reverse()) await restoreArchive(ts.session, archive, env);
        expect((await readFile(ts.session.paths.messages)).equals(original)).toBe(true);
      },
    ),
    { numRuns: 120 },
  );
  // The generator must exercise every target, not only the nothing-to-do paths.
  expect(seen.conversation).toBeGreaterThan(5);
  expect(seen.tools).toBeGreaterThan(2);
  expect(seen.all).toBeGreaterThan(2);
  expect(seen.quick).toBeGreaterThan(0);
}, 120_000);
