// The real OpenCode (pinned, installed by the suite's setup) against a loopback mock of an
// OpenAI-compatible chat-completions API, with wmem's plugin installed by the built wmem: what
// OpenCode sends the model, what `wmem status` says, what lands on disk.
import { afterAll, describe, expect, inject, it } from 'vitest';
import { existsSync, readdirSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { OpenCodeWorld, type OpenCodeRun } from './helpers/opencode-world.js';
import { chatMessages, type ChatRequest } from './helpers/openai-chat-mock.js';
import { cacheRoot } from './helpers/install-claude.js';

const opencodeBin = inject('opencodeBin');
const observed: Record<string, unknown> = {};

async function withWorld<T>(fn: (world: OpenCodeWorld) => Promise<T>, limit?: { context: number; output: number }, quietLogs = true): Promise<T> {
  const world = await OpenCodeWorld.create(opencodeBin, limit);
  let failed = true;
  try {
    const value = await fn(world);
    failed = false;
    return value;
  } finally {
    // Neither wmem's hooks nor the plugin around them may have failed.
    const log = await readFile(path.join(world.wmemHome, 'logs', 'hooks.log'), 'utf8').catch(() => '');
    const pluginLog = await world.pluginLog();
    if (log.trim() || pluginLog.trim()) ((observed.logs ??= []) as string[]).push(...log.trim().split('\n'), ...pluginLog.trim().split('\n'));
    const errors = log.split('\n').filter((l) => / error: /.test(l));
    if (!failed && quietLogs) expect([...errors, ...pluginLog.split('\n').filter(Boolean)]).toEqual([]);
    await world.cleanup();
  }
}

afterAll(async () => {
  await writeFile(path.join(cacheRoot(), 'last-opencode-report.json'), JSON.stringify(observed, null, 2) + '\n').catch(() => {});
});

function systemTexts(request: ChatRequest): string[] {
  return chatMessages(request)
    .filter((m) => m.role === 'system')
    .map((m) => m.text);
}

function memoryIn(request: ChatRequest): string | undefined {
  return systemTexts(request).find((t) => t.includes('<working_memory>'));
}

function metaOf(request: ChatRequest): Record<string, any> {
  const user = chatMessages(request).filter((m) => m.role === 'user');
  const text = user.map((m) => m.text).join('\n');
  const blocks = [...text.matchAll(/<context_meta>\n?([\s\S]*?)\n?<\/context_meta>/g)];
  if (!blocks.length) throw new Error(`no <context_meta> in the request's user messages: ${text.slice(-1200)}`);
  return JSON.parse(blocks[blocks.length - 1][1].trim().split('\n')[0]);
}

function expectRan(run: OpenCodeRun): void {
  expect(run.exitCode, run.stderr.slice(-1500)).toBe(0);
  expect(run.requests.length, run.stderr.slice(-1500)).toBeGreaterThan(0);
}

const FAILING = `node -e "console.error('AssertionError: expected 1 to be 2'); process.exit(3)"`;

describe('OpenCode 1.18.33 with wmem plugin', () => {
  it('memory part in the system prompt with stable bytes, the meter with the usage the mock reported, a failing command as an open error', () =>
    withWorld(async (world) => {
      await world.installWmem();
      expect(existsSync(world.pluginPath)).toBe(true);
      world.mock.usage = { prompt_tokens: 1500, cached_tokens: 400, completion_tokens: 30 };
      const first = await world.opencode(`Run the tests: [[bash: ${FAILING}]]`);
      expectRan(first);
      // Two model calls (the tool call, then the answer after its result): the same memory bytes.
      const memories = first.requests.map(memoryIn);
      expect(memories.length).toBeGreaterThanOrEqual(2);
      expect(memories[0]).toBeDefined();
      expect(new Set(memories).size).toBe(1);
      // The failing command is tracked as an open error, from the exit code OpenCode reported.
      const status = await world.wmemJson(['status']);
      const hot = JSON.parse(await readFile(path.join(status.path, 'state', 'hot.json'), 'utf8'));
      observed.hot = hot;
      // The command ran as typed (OpenCode's quoting undone by the mock) and failed with exit 3.
      expect(hot.errors).toEqual([expect.objectContaining({ category: 'test', summary: 'AssertionError: expected 1 to be 2', command: FAILING })]);
      // tokens_used: what the mock reported for the last response (prompt, cached included, + completion).
      observed.status = { tokens_used: status.tokens_used, tokens_source: status.tokens_source, tokens_max: status.tokens_max };
      expect(status.tokens_used).toBe(1530);
      expect(status.tokens_source).toBe('usage');
      expect(status.tokens_max).toBe(150_000);

      world.mock.usage = { prompt_tokens: 2000, cached_tokens: 1500, completion_tokens: 10 };
      const second = await world.opencode('What is open?', { continue: true });
      expectRan(second);
      const meta = metaOf(second.requests[0]);
      observed.meta = meta;
      expect(meta.tokens_used).toBe(1530);
      expect(meta.tokens_max).toBe(150_000);
      expect(meta.tokens_max_source).toBe('agent');
      // The memory part shows the open error to the model.
      expect(memoryIn(second.requests[0])).toContain('AssertionError: expected 1 to be 2');
    }));

  it('auto-compacts at a small model limit: every message archived, the summary kept, memory in the summarizer and in the next request', () =>
    withWorld(
      async (world) => {
        await world.installWmem();
        world.mock.usage = { prompt_tokens: 1500, cached_tokens: 0, completion_tokens: 30 };
        const first = await world.opencode('Say hello [[bash: echo wmem-marker-one]]');
        expectRan(first);
        // Only this answer crosses the limit: the summary and the automatic "Continue" stay under it.
        world.mock.script.push({ kind: 'text', text: 'Done: wmem-reply-two.', usage: { prompt_tokens: 3700, cached_tokens: 0, completion_tokens: 30 } });
        const second = await world.opencode('Go on with wmem-prompt-two', { continue: true });
        expect(second.exitCode, second.stderr.slice(-1500)).toBe(0);
        const summaryAt = second.requests.findIndex((r) => /context summarization agent/.test(systemTexts(r)[0] ?? ''));
        observed.requests = second.requests.map((r) => chatMessages(r).map((m) => `${m.role}: ${m.text.slice(0, 80)}`));
        expect(summaryAt).toBeGreaterThan(0);
        // The memory part went into the summarizer's context (its user message, not only the system
        // prompt every request carries), and is in the request after the compaction.
        const summarizer = chatMessages(second.requests[summaryAt]).filter((m) => m.role === 'user');
        expect(summarizer.some((m) => m.text.includes('<working_memory>'))).toBe(true);
        const after = second.requests[summaryAt + 1];
        expect(after).toBeDefined();
        expect(memoryIn(after)).toBeDefined();

        const status = await world.wmemJson(['status']);
        const archiveDir = path.join(status.path, 'working-memory', 'archive');
        const archives = readdirSync(archiveDir).filter((n) => n.endsWith('.jsonl'));
        observed.archives = readdirSync(archiveDir);
        expect(archives.length).toBe(1);
        const archived = await readFile(path.join(archiveDir, archives[0]), 'utf8');
        const lines = archived.trim().split('\n').map((l) => JSON.parse(l));
        // Every message before the compaction, whole: prompts, the tool's output, the replies.
        const texts = JSON.stringify(lines);
        for (const needle of ['Say hello', 'wmem-marker-one\\n', 'Go on with wmem-prompt-two', 'Done: wmem-reply-two.']) expect(texts).toContain(needle);
        expect(lines.map((l) => l.info.role).slice(0, 5)).toEqual(['user', 'assistant', 'assistant', 'user', 'assistant']);
        expect(new Set(lines.map((l) => l.info.id)).size).toBe(lines.length);
        // The summary OpenCode wrote is kept in detail/ and named in Recent Actions.
        const overview = await readFile(path.join(status.path, 'working-memory', 'overview.md'), 'utf8');
        expect(overview).toMatch(/OpenCode compacted the conversation \(auto\)/);
      },
      { context: 4000, output: 500 },
    ));

  it('install refuses a plugin of the user named wmem.ts; uninstall removes only wmem plugin and leaves the config as it was', () =>
    withWorld(async (world) => {
      const config = await readFile(world.configPath, 'utf8');
      await mkdir(path.dirname(world.pluginPath), { recursive: true });
      await writeFile(world.pluginPath, 'export const Mine = async () => ({});\n');
      const refused = await world.wmem(['install', 'opencode']);
      expect(refused.exitCode).toBe(2);
      expect(String(refused.stderr)).toContain("is not wmem's plugin");
      expect(await readFile(world.pluginPath, 'utf8')).toBe('export const Mine = async () => ({});\n');
      await writeFile(world.pluginPath, '');
      await import('node:fs/promises').then((fs) => fs.rm(world.pluginPath));

      await world.installWmem();
      expect((await world.wmem(['install', 'opencode'])).exitCode).toBe(0);
      const doctor = await world.wmem(['doctor']);
      observed.doctor = String(doctor.stdout).split('\n').filter((l) => /OpenCode|opencode/.test(l));
      expect(String(doctor.stdout)).toMatch(/OpenCode/);
      const run = await world.opencode('Hello.');
      expectRan(run);
      expect(memoryIn(run.requests[0])).toBeDefined();
      const removed = await world.wmem(['uninstall', 'opencode']);
      expect(removed.exitCode).toBe(0);
      expect(existsSync(world.pluginPath)).toBe(false);
      expect(await readFile(world.configPath, 'utf8')).toBe(config);
      const again = await world.opencode('Hello again.');
      expectRan(again);
      expect(again.requests.map(memoryIn).filter(Boolean)).toEqual([]);
    }));

  it('a plugin whose wmem does not run never breaks OpenCode: the turn completes, the failure is in the plugin log', () =>
    withWorld(
      async (world) => {
        const installed = await world.wmem(['install', 'opencode'], { WMEM_HOOK_COMMAND: '/nonexistent/wmem' });
        expect(installed.exitCode).toBe(0);
        const run = await world.opencode('Hello [[bash: echo still-works]]');
        expectRan(run);
        expect(run.stdout + run.stderr).toContain('still-works');
        expect(run.requests.map(memoryIn).filter(Boolean)).toEqual([]);
        const log = await world.pluginLog();
        observed.brokenPluginLog = log.split('\n').slice(0, 4);
        expect(log).toMatch(/system\.transform: the hook command exited 127 \(\/nonexistent\/wmem[ )]/);
        expect(log).toMatch(/tool\.execute\.after: the hook command exited 127/);
      },
      undefined,
      false,
    ));
});
