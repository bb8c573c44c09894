// Token use from the per-call usage logs of GitHub Copilot CLI (events.jsonl) and Qwen Code (the
// chat file): the figures of real runs (test/fixtures/copilot, test/fixtures/qwen), and the same
// answer read forward, backward (first read) or incrementally as the log grows.
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { readCopilotUsage } from '../../src/agents/copilot/events-file.js';
import { copilotLine } from '../../src/agents/copilot/events-log.js';
import { readQwenUsage } from '../../src/agents/qwen/chat-file.js';
import { qwenLine } from '../../src/agents/qwen/chat-log.js';
import { usageOfText } from '../../src/agents/usage-lines.js';
import { seriesOf } from '../../src/report/series.js';
import { COPILOT_USAGE } from '../../src/agents/copilot/usage-lines.js';
import { QWEN_USAGE } from '../../src/agents/qwen/usage-lines.js';

const FIXTURES = path.join(import.meta.dirname, '../fixtures');
const tmp = mkdtempSync(path.join(os.tmpdir(), 'wmem-usage-lines-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('real logs', () => {
  it("Copilot: the last call's inputTokens and maxPromptTokens, after its compaction", async () => {
    const file = path.join(FIXTURES, 'copilot', 'events.jsonl');
    const expected = { lastUsage: 1200, boundary: '695c1598-140b-4a02-898b-a230ad3e19a4', model: 'gpt-4.1', window: 64_000 };
    expect(usageOfText(readFileSync(file, 'utf8'), copilotLine)).toEqual(expected);
    expect((await readCopilotUsage(file)).view).toEqual(expected);
  });

  it("Qwen: right after the compression no call's usage yet, Qwen's own count kept", async () => {
    const file = path.join(FIXTURES, 'qwen', 'chat.jsonl');
    const expected = { lastUsage: null, boundary: '3d2c0eb1-01ec-4bab-a878-9091f52d977d', model: 'qwen3-coder-plus', window: 1_000_000, afterCompaction: 1030 };
    expect(usageOfText(readFileSync(file, 'utf8'), qwenLine)).toEqual(expected);
    expect((await readQwenUsage(file)).view).toEqual(expected);
  });
});

describe("the report's series", () => {
  it('reads the same logs with each agent\'s own rules: every call a point, every compaction a mark', () => {
    const copilot = seriesOf(readFileSync(path.join(FIXTURES, 'copilot', 'events.jsonl'), 'utf8'), COPILOT_USAGE);
    expect(copilot.points.map((p) => [p.tokens, p.model])).toEqual([[1200, 'gpt-4.1'], [1200, 'gpt-4.1'], [1200, 'gpt-4.1'], [1200, 'gpt-4.1']]);
    expect(copilot.compactions).toEqual([expect.objectContaining({ n: 2, after: 10_490 })]);
    const qwen = seriesOf(readFileSync(path.join(FIXTURES, 'qwen', 'chat.jsonl'), 'utf8'), QWEN_USAGE);
    expect(qwen.points.map((p) => [p.tokens, p.model])).toEqual([[5000, 'qwen3-coder-plus'], [5000, 'qwen3-coder-plus']]);
    expect(qwen.compactions).toEqual([expect.objectContaining({ n: 2, after: 1030 })]);
  });
});

const model = fc.constantFrom('gpt-4.1', 'qwen3-coder-plus', '');
const copilotLines = fc.array(
  fc.oneof(
    fc.record({ t: fc.nat(100_000), w: fc.constantFrom(0, 64_000, 128_000), m: model }).map(({ t, w, m }) => JSON.stringify({ type: 'session.usage_record', data: { usage: { inputTokens: t, ...(w ? { maxPromptTokens: w } : {}), ...(m ? { model: m } : {}) } } })),
    fc.record({ id: fc.option(fc.uuid(), { nil: undefined }), ok: fc.boolean(), after: fc.nat(9000) }).map(({ id, ok, after }) => JSON.stringify({ type: 'session.compaction_complete', data: { success: ok, postCompactionTokens: after, ...(id ? { compactionAttemptId: id } : {}) } })),
    fc.string({ maxLength: 30 }).map((text) => JSON.stringify({ type: 'user.message', data: { content: text } })),
  ),
  { maxLength: 30 },
);
const qwenLines = fc.array(
  fc.oneof(
    fc.record({ t: fc.nat(100_000), w: fc.constantFrom(0, 1_000_000), m: model }).map(({ t, w, m }) => JSON.stringify({ type: 'assistant', ...(m ? { model: m } : {}), usageMetadata: { promptTokenCount: t }, ...(w ? { contextWindowSize: w } : {}) })),
    fc.record({ id: fc.option(fc.uuid(), { nil: undefined }), after: fc.nat(9000) }).map(({ id, after }) => JSON.stringify({ type: 'system', subtype: 'chat_compression', ...(id ? { uuid: id } : {}), systemPayload: { info: { newTokenCount: after } } })),
    fc.string({ maxLength: 30 }).map((text) => JSON.stringify({ type: 'user', message: { parts: [{ text }] } })),
  ),
  { maxLength: 30 },
);

const cases = [
  { name: 'Copilot', lines: copilotLines, read: readCopilotUsage, rule: copilotLine },
  { name: 'Qwen', lines: qwenLines, read: readQwenUsage, rule: qwenLine },
];

describe.each(cases)('reading a $name log', ({ lines: arbitrary, read, rule }) => {
  it('forward, backward and incrementally give the same state', async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(arbitrary, fc.nat(30), async (lines, split) => {
        const file = path.join(tmp, `l${n++}-${Math.random().toString(36).slice(2)}.jsonl`);
        const forward = usageOfText(lines.map((l) => `${l}\n`).join(''), rule);
        writeFileSync(file, lines.slice(0, split).map((l) => `${l}\n`).join(''));
        const first = await read(file);
        appendFileSync(file, lines.slice(split).map((l) => `${l}\n`).join(''));
        const grown = await read(file, JSON.parse(JSON.stringify(first.cursor)));
        const fresh = await read(file);
        expect(fresh.view).toEqual(forward);
        expect(grown.view).toEqual(forward);
      }),
      { numRuns: 150 },
    );
  });
});
