// Token use from Claude Code transcripts: the pure scanner, and the incremental file reader on
// the real fixtures (copied, never changed in place).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { appendFile, copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { usageOfText, applyForward, EMPTY_USAGE } from '../../src/agents/claude/transcript.js';
import { readTranscriptUsage } from '../../src/agents/claude/transcript-file.js';
import { FIXTURES } from '../helpers/cli.js';

const assistant = (id: string, usage: object, extra: object = {}) =>
  JSON.stringify({ type: 'assistant', isSidechain: false, uuid: `u-${id}-${Math.random()}`, message: { id, model: 'claude-opus-4', role: 'assistant', content: [{ type: 'text', text: 'ok' }], usage }, ...extra });
const boundary = (uuid: string) => JSON.stringify({ type: 'system', subtype: 'compact_boundary', uuid, content: 'Conversation compacted', compactMetadata: { trigger: 'auto', preTokens: 150000 } });

describe('usageOfText', () => {
  it('takes the last main-chain usage: input + cache creation + cache read', () => {
    const text = [assistant('m1', { input_tokens: 10, output_tokens: 5 }), assistant('m2', { input_tokens: 3, cache_creation_input_tokens: 100, cache_read_input_tokens: 2000, output_tokens: 50 })].join('\n');
    expect(usageOfText(text)).toMatchObject({ lastUsage: 2103, lastMessageId: 'm2' });
  });

  it('skips sidechain and <synthetic> lines', () => {
    const text = [
      assistant('m1', { input_tokens: 500 }),
      assistant('s1', { input_tokens: 99999 }, { isSidechain: true }),
      JSON.stringify({ type: 'assistant', message: { id: 'x', model: '<synthetic>', usage: { input_tokens: 77777 } } }),
    ].join('\n');
    expect(usageOfText(text).lastUsage).toBe(500);
  });

  it('ignores usage from before the last compact_boundary', () => {
    expect(usageOfText([assistant('m1', { input_tokens: 150000 }), boundary('b1')].join('\n'))).toEqual({ lastUsage: null, boundary: 'b1' });
    expect(usageOfText([assistant('m1', { input_tokens: 150000 }), boundary('b1'), assistant('m2', { input_tokens: 9000 })].join('\n'))).toMatchObject({ lastUsage: 9000, boundary: 'b1' });
  });

  it('counts one API response split over several lines once', () => {
    const usage = { input_tokens: 4, cache_read_input_tokens: 40000, output_tokens: 12 };
    const state = [assistant('m1', usage), assistant('m1', usage), assistant('m1', usage)].reduce((s, l, i) => applyForward(s, l, i), EMPTY_USAGE);
    expect(state.lastUsage).toBe(40004);
  });

  it('matches an independent count on the real transcripts', async () => {
    // Figures computed with a separate script (python json, same rules) on the fixtures.
    const cases: [string, number | null, string | undefined][] = [
      ['claude-code-log/ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl', 66603, undefined],
      ['spotter/tool_heavy.jsonl', 27666, undefined],
      ['claude-reliability/hello-world-script/transcript.jsonl', 18829, undefined],
      ['kimi-cli/entire-checkpoints-v1/90/e87d8e1a99/0/full.jsonl', 35598, undefined],
      ['claude-code-log/89488521-e2e7-4d97-bc02-38197efdddc8.jsonl', 30291, undefined],
      ['claude-code-log-upstream/dag_compact_after_rewind.jsonl', 10, 'cb'],
    ];
    for (const [file, tokens, b] of cases) {
      const state = usageOfText(await readFile(path.join(FIXTURES, file), 'utf8'));
      expect(state.lastUsage, file).toBe(tokens);
      expect(state.boundary, file).toBe(b);
    }
  });
});

describe('readTranscriptUsage', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'wmem-transcript-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('reads backward the first time and forward after, agreeing with a whole read', async () => {
    const file = path.join(dir, 't.jsonl');
    await copyFile(path.join(FIXTURES, 'claude-code-log/ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl'), file);
    const first = await readTranscriptUsage(file);
    expect(first.view.lastUsage).toBe(66603);
    expect(first.cursor.consumed).toBe((await readFile(file)).length);
    await appendFile(file, assistant('m9', { input_tokens: 1, cache_read_input_tokens: 70000 }) + '\n');
    const second = await readTranscriptUsage(file, first.cursor);
    expect(second.view.lastUsage).toBe(70001);
    await appendFile(file, boundary('b-new') + '\n');
    const third = await readTranscriptUsage(file, second.cursor);
    expect(third.view).toEqual({ lastUsage: null, boundary: 'b-new' });
    expect(usageOfText(await readFile(file, 'utf8'))).toEqual(third.view);
  });

  it('sees a line still being written without caching it, and a rewrite starts over', async () => {
    const file = path.join(dir, 't.jsonl');
    await writeFile(file, assistant('m1', { input_tokens: 100 }) + '\n' + assistant('m2', { input_tokens: 200 }));
    const read = await readTranscriptUsage(file);
    expect(read.view.lastUsage).toBe(200);
    expect(read.cursor.lastUsage).toBe(100);
    await writeFile(file, assistant('m3', { input_tokens: 300 }) + '\n');
    const again = await readTranscriptUsage(file, read.cursor);
    expect(again.view.lastUsage).toBe(300);
  });

  it('handles lines longer than its read chunk and multi-byte text at chunk edges', async () => {
    const file = path.join(dir, 't.jsonl');
    const long = JSON.stringify({ type: 'user', message: { role: 'user', content: 'é'.repeat(400_000) } });
    await writeFile(file, [assistant('m1', { input_tokens: 111 }), long, boundary('b1'), long, assistant('m2', { input_tokens: 222 }), long].join('\n') + '\n');
    const read = await readTranscriptUsage(file);
    expect(read.view).toMatchObject({ lastUsage: 222, boundary: 'b1' });
    await appendFile(file, long + '\n' + assistant('m3', { input_tokens: 333 }) + '\n');
    expect((await readTranscriptUsage(file, read.cursor)).view).toMatchObject({ lastUsage: 333, boundary: 'b1' });
  });

  it('reports a missing transcript as ENOENT', async () => {
    await expect(readTranscriptUsage(path.join(dir, 'missing.jsonl'))).rejects.toMatchObject({ code: 'ENOENT' });
  });
});

describe('after a compaction', () => {
  const boundary = (post?: number) =>
    JSON.stringify({ type: 'system', subtype: 'compact_boundary', uuid: 'b9', compactMetadata: { trigger: 'manual', preTokens: 90000, ...(post ? { postTokens: post } : {}) } });
  const answer = (tokens: number) => JSON.stringify({ type: 'assistant', message: { id: 'm9', model: 'claude-opus-4-5', usage: { input_tokens: tokens } } });

  it("keeps the agent's own post-compaction count until a usage comes", () => {
    expect(usageOfText([answer(5000), boundary(3087)].join('\n') + '\n')).toEqual({ lastUsage: null, boundary: 'b9', afterCompaction: 3087 });
    expect(usageOfText([boundary(3087), answer(4000)].join('\n') + '\n')).toEqual({ lastUsage: 4000, lastMessageId: 'm9', boundary: 'b9', model: 'claude-opus-4-5' });
    expect(usageOfText(boundary() + '\n')).toEqual({ lastUsage: null, boundary: 'b9' });
  });
});

describe('the model', () => {
  it("is the one Claude Code was asked for ([1m] kept), else the API's", () => {
    const line = (extra: Record<string, unknown>) => JSON.stringify({ type: 'assistant', ...extra, message: { id: 'm1', model: 'claude-sonnet-4-5', usage: { input_tokens: 150000 } } });
    expect(usageOfText(line({ requestedModel: 'claude-sonnet-4-5[1m]' }) + '\n').model).toBe('claude-sonnet-4-5[1m]');
    expect(usageOfText(line({}) + '\n').model).toBe('claude-sonnet-4-5');
  });
});
