// Property: for random histories made of long turns (OpenAI-style messages, Claude Code lines
// with responses split over lines sharing message.id, Codex rollout items, bookkeeping lines),
// any N and M, and both ways of compacting (the full way and the quick way), `compact
// --keep-recent N --keep-steps M` cuts where the pure planner says; the archive then the kept
// lines (after the marker and the repeated opening message) are the old file byte for byte; no
// tool call or response is on both sides of the cut; the repeated line is the opening of the turn
// the cut fell inside; and restoring newest first gives back the original bytes.
import { afterEach, beforeEach, expect, it } from 'vitest';
import fc from 'fast-check';
import { readFile, unlink } from 'node:fs/promises';
import path from 'node:path';
import { compactSession, type CompactTarget } from '../../src/history/compaction/compact.js';
import { restoreArchive } from '../../src/history/compaction/restore.js';
import { parseMarker } from '../../src/history/model/marker.js';
import { lineFacts } from '../../src/history/model/messages.js';
import { CutPlanner, plannerLine } from '../../src/history/model/turns.js';
import { archives, makeSession, setMessages, splitLines, unionAfterCut, type TestSession } from '../helpers/history-session.js';

const J = (v: unknown) => JSON.stringify(v);
type Format = 'chat' | 'claude' | 'codex';

const event = fc.oneof(
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('user' as const), text: fc.string({ maxLength: 12 }) }) },
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('step' as const), calls: fc.integer({ min: 0, max: 2 }), split: fc.boolean(), late: fc.boolean() }) },
  { weight: 1, arbitrary: fc.constantFrom('{"role": "_usage", "token_count": 12}', '{"type":"event_msg","payload":{"type":"token_count"}}', '{"broken') },
);

function userLine(format: Format, text: string): string {
  if (format === 'claude') return J({ type: 'user', message: { role: 'user', content: text || 'go' } });
  if (format === 'codex') return J({ type: 'response_item', payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: text || 'go' }] } });
  return J({ role: 'user', content: text || 'go' });
}

/** One step: the response (split over lines in Claude Code and Codex) and the results of its calls. */
function stepLines(format: Format, n: number, step: { calls: number; split: boolean }): { response: string[]; results: string[] } {
  const ids = Array.from({ length: step.calls }, (_, i) => `call_${n}_${i}`);
  if (format === 'claude') {
    const block = (content: unknown) => J({ type: 'assistant', message: { id: `msg_${n}`, role: 'assistant', content: [content] } });
    const response = step.split ? [block({ type: 'thinking', thinking: 'hm' }), ...ids.map((id) => block({ type: 'tool_use', id, name: 'Bash', input: {} }))] : [J({ type: 'assistant', message: { id: `msg_${n}`, role: 'assistant', content: [{ type: 'text', text: `step ${n}` }, ...ids.map((id) => ({ type: 'tool_use', id, name: 'Bash', input: {} }))] } })];
    return { response, results: ids.map((id) => J({ type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: 'ok' }] }, toolUseResult: { stdout: 'ok' } })) };
  }
  if (format === 'codex') {
    const item = (payload: unknown) => J({ type: 'response_item', payload });
    const response = [...(step.split ? [item({ type: 'reasoning', summary: [] })] : []), item({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: `step ${n}` }] }), ...ids.map((id) => item({ type: 'function_call', name: 'shell', arguments: '{}', call_id: id }))];
    return { response, results: ids.map((id) => item({ type: 'function_call_output', call_id: id, output: 'ok' })) };
  }
  const response = [J({ role: 'assistant', content: `step ${n}`, ...(ids.length ? { tool_calls: ids.map((id) => ({ type: 'function', id, function: { name: 'Bash', arguments: '{}' } })) } : {}) })];
  return { response, results: ids.map((id) => J({ role: 'tool', tool_call_id: id, content: 'ok' })) };
}

function render(format: Format, events: Array<unknown>, crlf: boolean): Buffer {
  const lines: string[] = [];
  let late: string[] = [];
  events.forEach((e, n) => {
    if (typeof e === 'string') return lines.push(e);
    const ev = e as { kind: 'user'; text: string } | { kind: 'step'; calls: number; split: boolean; late: boolean };
    if (ev.kind === 'user') {
      lines.push(...late, userLine(format, ev.text));
      late = [];
      return;
    }
    const { response, results } = stepLines(format, n, ev);
    lines.push(...late, ...response);
    // A result answered only after the next response began (a slow tool), now and then.
    if (ev.late && results.length) {
      late = results;
    } else {
      lines.push(...results);
      late = [];
    }
  });
  lines.push(...late);
  return Buffer.from(lines.map((l) => l + (crlf ? '\r\n' : '\n')).join(''), 'utf8');
}

function planner(lines: Buffer[]): CutPlanner {
  const p = new CutPlanner();
  lines.forEach((line, i) => p.add(i, plannerLine(lineFacts(line.toString('utf8')))));
  return p;
}

let ts: TestSession;
beforeEach(async () => {
  ts = await makeSession();
});
afterEach(async () => {
  await ts.cleanup();
});

it('compact --keep-steps then restore (newest first) gives the original bytes, the full way and the quick way', async () => {
  let clock = Date.UTC(2026, 2, 1);
  const seen = { inside: 0, quickInside: 0, atTurn: 0, nothing: 0 };
  const env = { now: () => new Date((clock += 1000)), warn: () => {} };
  await fc.assert(
    fc.asyncProperty(
      fc.constantFrom<Format>('chat', 'claude', 'codex'),
      fc.array(event, { minLength: 8, maxLength: 40 }),
      fc.boolean(),
      fc.array(fc.record({ keepRecent: fc.integer({ min: 1, max: 3 }), keepSteps: fc.integer({ min: 1, max: 5 }), target: fc.constantFrom<CompactTarget>('conversation', 'conversation', 'all'), quick: fc.boolean() }), { minLength: 1, maxLength: 3 }),
      async (format, events, crlf, runs) => {
        for (const name of await archives(ts.session)) await unlink(path.join(ts.session.paths.archiveDir, name));
        // A history that opens with a request, as agents' histories do.
        const original = render(format, [{ kind: 'user', text: 'the request' }, ...events], crlf);
        await setMessages(ts.session, original);
        const made: string[] = [];
        for (const run of runs) {
          const before = await readFile(ts.session.paths.messages);
          const lines = splitLines(before);
          const planned = planner(lines).plan(run.keepRecent, lines.length, run.keepSteps);
          const result = await compactSession(ts.session, { target: run.target, strategy: 'archive', keepRecent: run.keepRecent, keepSteps: run.keepSteps, quickFrom: run.quick ? 0 : undefined }, env);
          if (!result.compacted) {
            seen.nothing++;
            expect(await readFile(ts.session.paths.messages)).toEqual(before);
            continue;
          }
          made.push(result.archive!);
          const after = splitLines(await readFile(ts.session.paths.messages));
          const marker = parseMarker(after[0]!.toString('utf8'))!;
          expect(Boolean(result.cutInsideTurn)).toBe(planned?.opening !== undefined);
          if (result.cutInsideTurn) {
            seen.inside++;
            if (result.finishing) seen.quickInside++;
            // The line after the marker is the opening of the turn the cut fell inside, byte for byte.
            expect(after[1]!.equals(lines[planned!.opening!]!)).toBe(true);
            expect(marker.openingBytes).toBe(lines[planned!.opening!]!.length);
          } else {
            seen.atTurn++;
          }
          if (run.target === 'conversation') {
            expect(await unionAfterCut(ts.session)).toEqual(before);
            expect(result.counts.linesArchived).toBe(planned?.cut);
            expect(result.counts.stepsKept).toBe(planner(lines).stepsFrom(planned!.cut));
            // No call, result or response on both sides of the cut.
            const archived = new Set(lines.slice(0, planned!.cut).flatMap((l) => lineFacts(l.toString('utf8')).links.map((k) => k.id)));
            const kept = lines.slice(planned!.cut).flatMap((l) => lineFacts(l.toString('utf8')).links.map((k) => k.id));
            expect(kept.filter((id) => archived.has(id))).toEqual([]);
          }
        }
        for (const archive of made.reverse()) await restoreArchive(ts.session, archive, env);
        expect((await readFile(ts.session.paths.messages)).equals(original)).toBe(true);
      },
    ),
    { numRuns: 50 },
  );
  // The generator must reach cuts inside turns, the quick way too, and cuts at turns.
  expect(seen.inside).toBeGreaterThan(10);
  expect(seen.quickInside).toBeGreaterThan(1);
  expect(seen.atTurn).toBeGreaterThan(1);
}, 180_000);
