// Token use from a Gemini CLI chat file: the figures of real 0.61 chat files, and the same answer
// read forward, backward (first read) or incrementally as the file grows.
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { readChatUsage } from '../../src/agents/gemini/chat-file.js';
import { chatUsageOfText, COMPRESSION_ACK, compressionSummaryId } from '../../src/agents/gemini/chat.js';
import { geminiWindow } from '../../src/agents/gemini/windows.js';

const FIXTURES = path.join(import.meta.dirname, '../fixtures/gemini');
const tmp = mkdtempSync(path.join(os.tmpdir(), 'wmem-gemini-chat-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('a real chat file', () => {
  it("gives the last reply's input tokens (promptTokenCount), its model and Gemini's window for it", async () => {
    const file = path.join(FIXTURES, 'chat-failed-command.jsonl');
    const expected = { lastUsage: 1234, model: 'gemini-2.5-flash', window: 1_048_576 };
    expect(chatUsageOfText(readFileSync(file, 'utf8'))).toEqual(expected);
    expect((await readChatUsage(file)).view).toEqual(expected);
  });

  it('after a compression: the summary names it, nothing stale, then the next usage', async () => {
    const file = path.join(FIXTURES, 'chat-compressed.jsonl');
    const lines = readFileSync(file, 'utf8').split('\n');
    const at = lines.findIndex((l) => l.includes(COMPRESSION_ACK));
    const messages = JSON.parse(lines[at]).$set.messages;
    const summary = messages.find((m: any) => String(m.content?.[0]?.text).includes('<state_snapshot>'));
    expect(compressionSummaryId(messages)).toBe(summary.id);
    // Right after the compression: no usage since, the model unknown until the next reply.
    const cut = lines.slice(0, at + 1).join('\n') + '\n';
    expect(chatUsageOfText(cut)).toEqual({ lastUsage: null, boundary: summary.id });
    writeFileSync(path.join(tmp, 'cut.jsonl'), cut);
    expect((await readChatUsage(path.join(tmp, 'cut.jsonl'))).view).toEqual({ lastUsage: null, boundary: summary.id });
    // The whole file: a fourth run resumed it (the same compaction in its history) and its reply
    // reported 1,234.
    expect((await readChatUsage(file)).view).toEqual({ lastUsage: 1234, boundary: summary.id, model: 'gemini-2.5-flash', window: 1_048_576 });
  });

  it('after a resume: the history written again without token figures keeps the last usage', async () => {
    const file = path.join(FIXTURES, 'chat-resumed.jsonl');
    const text = readFileSync(file, 'utf8');
    // The second run's history line lists the first reply without its tokens.
    expect(text.split('\n').filter((l) => l.includes('"$set":{"messages"')).length).toBe(3);
    const expected = { lastUsage: 150_000, model: 'gemini-2.5-flash', window: 1_048_576 };
    expect(chatUsageOfText(text)).toEqual(expected);
    const cut = text.split('\n').slice(0, 10).join('\n') + '\n';
    expect(chatUsageOfText(cut)).toEqual(expected);
    writeFileSync(path.join(tmp, 'resumed.jsonl'), cut);
    expect((await readChatUsage(path.join(tmp, 'resumed.jsonl'))).view).toEqual(expected);
  });

  it("knows Gemini CLI's windows, and says nothing of a model it does not know", () => {
    expect(geminiWindow('gemini-2.5-pro')).toBe(1_048_576);
    expect(geminiWindow('gemini-3-flash-preview')).toBe(1_048_576);
    expect(geminiWindow('gemini-3.1-flash-lite')).toBe(1_048_576);
    expect(geminiWindow('gemma-4-31b-it')).toBe(256_000);
    expect(geminiWindow('my-local-model')).toBeUndefined();
    expect(geminiWindow(undefined)).toBeUndefined();
  });
});

// Random chat files made of the lines that matter and some that do not.
const id = fc.uuid();
const model = fc.constantFrom('gemini-2.5-flash', 'gemini-2.5-pro', 'mystery-model');
const reply = fc.record({ id, input: fc.nat(900_000), model: fc.option(model, { nil: undefined }) }).map(({ id, input, model }) =>
  JSON.stringify({ id, type: 'gemini', content: 'ok', ...(input ? { tokens: { input, output: 3, cached: 0, thoughts: 0, tool: 0, total: input + 3 } } : {}), ...(model ? { model } : {}) }),
);
const user = fc.record({ id, text: fc.string({ maxLength: 30 }) }).map(({ id, text }) => JSON.stringify({ id, type: 'user', content: [{ text }] }));
const history = fc.record({ summary: fc.option(fc.constantFrom('s1', 's2', 's3'), { nil: undefined }), kept: fc.option(fc.nat(50_000), { nil: undefined }), model: fc.option(model, { nil: undefined }) }).map(({ summary, kept, model }) => {
  const messages: unknown[] = [{ id: 'ctx', type: 'user', content: [{ text: '<session_context>' }] }];
  if (summary) messages.push({ id: summary, type: 'user', content: [{ text: '<state_snapshot>s</state_snapshot>' }] }, { id: `${summary}-ack`, type: 'gemini', content: [{ text: COMPRESSION_ACK }] });
  if (kept) messages.push({ id: 'k', type: 'gemini', content: 'kept', tokens: { input: kept }, ...(model ? { model } : {}) });
  return JSON.stringify({ $set: { messages, lastUpdated: 'x' } });
});
const other = fc.constantFrom(JSON.stringify({ $set: { lastUpdated: '2026-11-25T08:20:25.550Z' } }), JSON.stringify({ sessionId: 's', projectHash: 'h', startTime: 't', lastUpdated: 't', kind: 'main' }));
const chat = fc.array(fc.oneof(reply, reply, user, history, other), { maxLength: 40 });

describe('reading a chat file', () => {
  it('forward, backward and incrementally give the same state', async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(chat, fc.nat(40), async (lines, split) => {
        const file = path.join(tmp, `c${n++}.jsonl`);
        const forward = chatUsageOfText(lines.map((l) => `${l}\n`).join(''));
        writeFileSync(file, lines.slice(0, split).map((l) => `${l}\n`).join(''));
        const first = await readChatUsage(file);
        appendFileSync(file, lines.slice(split).map((l) => `${l}\n`).join(''));
        const grown = await readChatUsage(file, JSON.parse(JSON.stringify(first.cursor)));
        const fresh = await readChatUsage(file);
        expect(fresh.view).toEqual(forward);
        expect(grown.view).toEqual(forward);
      }),
      { numRuns: 150 },
    );
  });
});
