import { afterAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { lineFacts } from '../../src/history/model/messages.js';
import { planLineCut, splitTurns } from '../../src/history/model/turns.js';
import { readLines, readLinesBackward } from '../../src/history/stream/index.js';
import { markerLine, parseMarker } from '../../src/history/model/marker.js';

const J = (v: unknown) => JSON.stringify(v);
const user = (text: string) => J({ role: 'user', content: text });
const assistant = (text: string) => J({ role: 'assistant', content: text });
const call = (id: string) => J({ role: 'assistant', content: '', tool_calls: [{ type: 'function', id, function: { name: 'Bash', arguments: '{"command":"ls"}' } }] });
const result = (id: string) => J({ role: 'tool', content: 'out', tool_call_id: id });

describe('line facts', () => {
  it('classifies the formats wmem reads', () => {
    expect(lineFacts(user('hi')).turnStart).toBe(true);
    expect(lineFacts(assistant('ok')).turnStart).toBe(false);
    expect(lineFacts(result('a')).links).toEqual([{ id: 't:a', role: 'result' }]);
    expect(lineFacts(call('a')).links).toEqual([{ id: 't:a', role: 'use' }]);
    // Anthropic tool_result inside a user line belongs to the turn before.
    const anthropicResult = J({ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'x' }] });
    expect(lineFacts(anthropicResult).turnStart).toBe(false);
    // Claude Code: split responses are linked by message.id; meta lines do not start turns.
    const cc = J({ type: 'assistant', message: { id: 'msg_1', role: 'assistant', content: [{ type: 'text', text: 'x' }] } });
    expect(lineFacts(cc).links).toEqual([{ id: 'm:msg_1', role: 'msg' }]);
    expect(lineFacts(J({ type: 'user', isMeta: true, message: { role: 'user', content: 'caveat' } })).turnStart).toBe(false);
    // Codex rollout.
    expect(lineFacts(J({ type: 'response_item', payload: { type: 'function_call_output', call_id: 'c1', output: 'o' } })).links).toEqual([{ id: 't:c1', role: 'result' }]);
  });

  it('never counts bookkeeping, non-objects or broken JSON as messages', () => {
    for (const line of ['{"role": "_usage", "token_count": 5}', '{"role": "_checkpoint", "id": 1}', '42', '"massive error"', '[1]', '{"silly": "this"}', '{"role":"user","content":"trunc', '']) {
      const facts = lineFacts(line);
      expect(facts.info.kind).toBe('other');
      expect(facts.turnStart).toBe(false);
    }
  });
});

describe('turns', () => {
  it('starts a turn at each user message; leading metadata joins the first turn', () => {
    const lines = ['{"meta":1}', user('a'), call('1'), result('1'), assistant('done'), user('b'), assistant('ok')];
    expect(splitTurns(lines)).toEqual([[0, 1, 2, 3, 4], [5, 6]]);
  });

  it('cuts at the start of the Nth turn from the end', () => {
    const lines = [user('a'), assistant('1'), user('b'), assistant('2'), user('c'), assistant('3')];
    expect(planLineCut(lines, 1)).toEqual({ cut: 4, turnsRemoved: 2 });
    expect(planLineCut(lines, 2)).toEqual({ cut: 2, turnsRemoved: 1 });
    expect(planLineCut(lines, 3)).toBeUndefined();
    expect(planLineCut(lines, 0)).toEqual({ cut: 6, turnsRemoved: 3 });
  });

  it('never separates a tool call from its result', () => {
    // The result arrives after the next user message: the cut moves to an earlier turn.
    const lines = [user('a'), assistant('1'), user('b'), call('x'), user('c'), result('x'), assistant('3')];
    expect(planLineCut(lines, 1)).toEqual({ cut: 2, turnsRemoved: 1 });
    const none = [user('a'), call('x'), user('b'), result('x')];
    expect(planLineCut(none, 1)).toBeUndefined();
  });

  it('never splits a Claude Code response that spans lines sharing message.id', () => {
    const cc = (id: string, text: string) => J({ type: 'assistant', message: { id, role: 'assistant', content: [{ type: 'text', text }] } });
    const prompt = (text: string) => J({ type: 'user', message: { role: 'user', content: text } });
    const lines = [prompt('a'), cc('m1', 'x'), prompt('b'), cc('m2', 'y'), prompt('c'), cc('m2', 'z')];
    expect(planLineCut(lines, 1)).toEqual({ cut: 2, turnsRemoved: 1 });
  });

  it('treats a reused tool id after a closed pair as a new pair', () => {
    const lines = [user('a'), call('1'), result('1'), user('b'), call('1'), result('1')];
    expect(planLineCut(lines, 1)).toEqual({ cut: 3, turnsRemoved: 1 });
  });

  it('pairs a result with the latest call of its id: an unanswered call does not hold the cut back', () => {
    const lines = [user('a'), call('1'), user('b'), call('1'), result('1')];
    expect(planLineCut(lines, 1)).toEqual({ cut: 2, turnsRemoved: 1 });
    // A result before any later call of its id still pairs with the call before the cut.
    const held = [user('a'), call('1'), user('b'), result('1'), call('1'), result('1')];
    expect(planLineCut(held, 1)).toBeUndefined();
  });
});

describe('streaming lines', () => {
  const dir = mkdtemp(path.join(os.tmpdir(), 'wmem-lines-'));
  afterAll(async () => rm(await dir, { recursive: true, force: true }));

  it('reads the same lines forwards and backwards, across chunk boundaries, keeping exact bytes', async () => {
    const file = path.join(await dir, 'h.jsonl');
    const long = 'x'.repeat(1_500_000);
    const cases = ['', 'a', 'a\n', 'a\r\nb', '\n\n', `${long}\nshort\n${long}`, `a\n${long}\r\n`, `${'y\n'.repeat(600_000)}tail`];
    for (const text of cases) {
      await writeFile(file, text);
      const forward: string[] = [];
      for await (const line of readLines(file)) forward.push(`${line.offset}:${line.bytes.toString()}`);
      const backward: string[] = [];
      for await (const line of readLinesBackward(file, Buffer.byteLength(text))) backward.push(`${line.offset}:${line.bytes.toString()}`);
      expect(backward.reverse()).toEqual(forward);
      expect(forward.map((l) => l.slice(l.indexOf(':') + 1)).join('')).toBe(text);
    }
  });
});

describe('marker', () => {
  it('round-trips and is never a turn', () => {
    const marker = { version: 1 as const, id: 'x', archive: 'archive/a.jsonl', archivedBytes: 3, archivedLines: 1, archiveSha256: 'h', replacedBytes: 0, replacedSha256: '', turns: 1, messages: 1, details: [] };
    for (const format of ['claude', 'chat'] as const) {
      const line = markerLine(format, marker, 'text');
      expect(line.endsWith('\n')).toBe(true);
      expect(parseMarker(line)).toEqual(marker);
      expect(lineFacts(line.trimEnd()).turnStart).toBe(false);
    }
    expect(parseMarker('{"content":"wmem_compaction"}')).toBeUndefined();
  });
});
