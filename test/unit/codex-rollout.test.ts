// Token use from a Codex rollout: the figures of real 0.169 rollouts, and the same answer read
// forward, backward (first read) or incrementally as the rollout grows.
import { mkdtempSync, readFileSync, rmSync, writeFileSync, appendFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { findCommandOutcome, findCompactionSummary, readRolloutUsage } from '../../src/agents/codex/rollout-file.js';
import { rolloutUsageOfText } from '../../src/agents/codex/rollout.js';

const FIXTURES = path.join(import.meta.dirname, '../fixtures/codex');
const tmp = mkdtempSync(path.join(os.tmpdir(), 'wmem-codex-rollout-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('a real rollout', () => {
  it('gives total_tokens of the last token_count and the reported window', async () => {
    const file = path.join(FIXTURES, 'rollout-failed-command.jsonl');
    const expected = { lastUsage: 5030, model: 'gpt-5.1', window: 258_400 };
    expect(rolloutUsageOfText(readFileSync(file, 'utf8'))).toEqual(expected);
    expect((await readRolloutUsage(file)).view).toEqual(expected);
  });

  it('after an auto-compaction: the compaction by its window id, nothing stale, then the new usage', async () => {
    const file = path.join(FIXTURES, 'rollout-auto-compacted.jsonl');
    const text = readFileSync(file, 'utf8');
    const lines = text.split('\n');
    const compacted = lines.findIndex((l) => l.includes('"type":"compacted"'));
    const windowId = JSON.parse(lines[compacted]).payload.window_id;
    expect((await readRolloutUsage(file)).view).toEqual({ lastUsage: 250_030, boundary: windowId, model: 'gpt-5.1', window: 258_400 });
    // Cut right after Codex's own count of what the compaction left: no usage yet, that count kept.
    const estimate = lines.findIndex((l, i) => i > compacted && l.includes('"total_tokens":6045'));
    const cut = path.join(tmp, 'cut.jsonl');
    writeFileSync(cut, lines.slice(0, estimate + 1).join('\n') + '\n');
    const after = { lastUsage: null, boundary: windowId, model: 'gpt-5.1', window: 258_400, afterCompaction: 6045 };
    expect((await readRolloutUsage(cut)).view).toEqual(after);
    expect(rolloutUsageOfText(lines.slice(0, estimate + 1).join('\n'))).toEqual(after);
  });

  it("knows the window from the turn's start, before any response", async () => {
    const lines = readFileSync(path.join(FIXTURES, 'rollout-failed-command.jsonl'), 'utf8').split('\n');
    const started = lines.findIndex((l) => l.includes('"task_started"'));
    const firstUsage = lines.findIndex((l) => l.includes('"token_count"'));
    expect(started).toBeLessThan(firstUsage);
    const cut = path.join(tmp, 'started.jsonl');
    writeFileSync(cut, lines.slice(0, firstUsage).join('\n') + '\n');
    expect((await readRolloutUsage(cut)).view).toEqual({ lastUsage: null, model: 'gpt-5.1', window: 258_400 });
  });

  it('finds a finished command by its call id', async () => {
    const file = path.join(FIXTURES, 'rollout-failed-command.jsonl');
    const id = JSON.parse(readFileSync(path.join(FIXTURES, 'hook-inputs-failed-command.jsonl'), 'utf8').split('\n')[3]).tool_use_id;
    expect(await findCommandOutcome(file, id)).toEqual({ exitCode: 2, status: 'failed', output: "ls: cannot access '/nonexistent-dir': No such file or directory\n" });
    expect(await findCommandOutcome(file, 'call_none')).toBeUndefined();
  });

  it("gives the last compaction's summary without Codex's preamble", async () => {
    // The mock answered Codex's summary request with its plain reply.
    expect(await findCompactionSummary(path.join(FIXTURES, 'rollout-auto-compacted.jsonl'))).toBe('Done.');
    expect(await findCompactionSummary(path.join(FIXTURES, 'rollout-failed-command.jsonl'))).toBeUndefined();
  });

  it('reads each line whole from the end: multi-byte text across a span, a summary longer than the first span', async () => {
    const file = path.join(tmp, 'wide.jsonl');
    const compacted = (text: string) => JSON.stringify({ type: 'compacted', payload: { message: text } });
    const wide = (n: number) => JSON.stringify({ type: 'response_item', payload: { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'é✓'.repeat(n) }] } });
    // The summary, then a line of two- and three-byte characters whose bytes run past the first
    // span read (64 KiB), so that span starts inside a character of it.
    for (const pad of [21_000, 21_001, 21_002]) {
      writeFileSync(file, `${compacted('older')}\n${compacted('Résumé ✓ done')}\n${wide(pad)}\n`);
      expect(await findCompactionSummary(file)).toBe('Résumé ✓ done');
    }
    // A summary longer than the first span, its line cut by it: found whole in the next.
    const long = `Plan: ${'étape ✓ '.repeat(12_000)}fin`;
    writeFileSync(file, `${compacted(long)}\n${wide(10)}\n`);
    expect(await findCompactionSummary(file)).toBe(long);
    // The newest of two, the older one beyond the first span.
    writeFileSync(file, `${compacted('older')}\n${wide(30_000)}\n${compacted('newer')}\n`);
    expect(await findCompactionSummary(file)).toBe('newer');
  });

  it('looks for the command beyond the first chunk, up to its bound', async () => {
    const file = path.join(tmp, 'big.jsonl');
    const line = (id: string, code: number) => JSON.stringify({ type: 'event_msg', payload: { type: 'item_completed', item: { type: 'CommandExecution', id, exit_code: code, status: code ? 'failed' : 'completed', aggregated_output: '' } } });
    writeFileSync(file, `${line('call_a', 3)}\n${JSON.stringify({ type: 'event_msg', payload: { type: 'x', pad: 'p'.repeat(600_000) } })}\n`);
    expect(await findCommandOutcome(file, 'call_a')).toMatchObject({ exitCode: 3 });
    expect(await findCommandOutcome(file, 'call_a', 300_000)).toBeUndefined();
    // An output longer than the first read (64 KiB), multi-byte across its start: whole.
    for (const pad of [14_000, 14_001, 14_002]) {
      const output = 'é✓'.repeat(pad);
      writeFileSync(file, `${line('call_a', 3)}\n${JSON.stringify({ type: 'event_msg', payload: { type: 'item_completed', item: { type: 'CommandExecution', id: 'call_b', exit_code: 1, status: 'failed', aggregated_output: output } } })}\n${JSON.stringify({ type: 'response_item', payload: { type: 'function_call_output', call_id: 'call_b', output } })}\n`);
      expect(await findCommandOutcome(file, 'call_b')).toEqual({ exitCode: 1, status: 'failed', output });
    }
  });
});

// Random rollouts made of the lines that matter and some that do not.
const usageLine = fc.record({ input: fc.nat(300_000), output: fc.nat(5000), window: fc.constantFrom(0, 258_400, 400_000) }).map(({ input, output, window }) =>
  JSON.stringify({ type: 'event_msg', payload: { type: 'token_count', info: { last_token_usage: { input_tokens: input, cached_input_tokens: 0, output_tokens: output, total_tokens: input + output }, ...(window ? { model_context_window: window } : {}) } } }),
);
const estimateLine = fc.record({ total: fc.nat(20_000), window: fc.constantFrom(0, 258_400) }).map(({ total, window }) =>
  JSON.stringify({ type: 'event_msg', payload: { type: 'token_count', info: { last_token_usage: { input_tokens: 0, output_tokens: 0, total_tokens: total }, ...(window ? { model_context_window: window } : {}) } } }),
);
const startedLine = fc.constantFrom(0, 258_400, 400_000).map((window) => JSON.stringify({ type: 'event_msg', payload: { type: 'task_started', turn_id: 't', ...(window ? { model_context_window: window } : {}) } }));
const compactedLine = fc.option(fc.uuid(), { nil: undefined }).map((id) => JSON.stringify({ type: 'compacted', payload: { message: 'summary', ...(id ? { window_id: id } : {}) } }));
const modelLine = fc.constantFrom('gpt-5.1', 'gpt-5.1-codex', 'o3').map((model) => JSON.stringify({ type: 'turn_context', payload: { model } }));
const otherLine = fc.string({ maxLength: 40 }).map((text) => JSON.stringify({ type: 'response_item', payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text }] } }));
const rollout = fc.array(fc.oneof(usageLine, estimateLine, compactedLine, modelLine, startedLine, otherLine, otherLine), { maxLength: 40 });

describe('reading a rollout', () => {
  it('forward, backward and incrementally give the same state', async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(rollout, fc.nat(40), async (lines, split) => {
        const file = path.join(tmp, `r${n++}.jsonl`);
        const text = lines.map((l) => `${l}\n`).join('');
        const forward = rolloutUsageOfText(text);
        writeFileSync(file, lines.slice(0, split).map((l) => `${l}\n`).join(''));
        const first = await readRolloutUsage(file);
        appendFileSync(file, lines.slice(split).map((l) => `${l}\n`).join(''));
        const grown = await readRolloutUsage(file, JSON.parse(JSON.stringify(first.cursor)));
        const fresh = await readRolloutUsage(file);
        expect(fresh.view).toEqual(forward);
        expect(grown.view).toEqual(forward);
      }),
      { numRuns: 150 },
    );
  });
});
