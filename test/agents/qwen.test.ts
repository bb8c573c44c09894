// The real Qwen Code (pinned, installed by the suite's setup) against a loopback Chat Completions
// mock. First what the client itself does with hooks (probe hooks that record their stdin), then
// wmem's hooks installed by the built wmem: what Qwen sends the model (hook text arrives
// HTML-escaped), what `wmem status` says, what lands on disk.
import { afterAll, describe, expect, inject, it } from 'vitest';
import { readdirSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { expectMeter, inWorld, lastMeta } from './helpers/agent-world.js';
import { QwenWorld, type QwenRun } from './helpers/qwen-world.js';
import { chatMessages, chatText, type ChatRequest, type ChatUsage } from './helpers/openai-chat-mock.js';
import { unescaped } from './helpers/gemini-mock.js';
import { cacheRoot } from './helpers/install-claude.js';
import { countOf } from './helpers/requests.js';

const qwenEntry = inject('qwenEntry');
const observed: Record<string, unknown> = {};

const withWorld = <T>(fn: (world: QwenWorld) => Promise<T>) => inWorld(() => QwenWorld.create(qwenEntry), observed, fn, (errors) => expect(errors, errors.join('\n')).toEqual([]));

afterAll(async () => {
  await writeFile(path.join(cacheRoot(), 'last-qwen-report.json'), JSON.stringify({ observed }, null, 2) + '\n').catch(() => {});
});

/** The main-turn requests of a run (those that offer tools: not the summarizer nor a side call). */
function turnsOf(run: QwenRun): ChatRequest[] {
  const turns = run.requests.filter((r) => Array.isArray(r.body?.tools) && r.body.tools.length);
  if (!turns.length) throw new Error(`the run sent no main-turn request (exit ${run.exitCode}): ${run.stderr.slice(0, 1500)}`);
  return turns;
}

/** The request's text as the hooks wrote it (Qwen HTML-escapes hook text). */
const sent = (request: ChatRequest) => unescaped(chatText(request));
const memoryCopies = (request: ChatRequest) => countOf(sent(request), '<working_memory>');

const metaOf = (request: ChatRequest) => lastMeta(sent(request));

const idOf = (chat: string) => path.basename(chat, '.jsonl');
const FAILING = `node -e "console.error('AssertionError: expected 1 to be 2'); process.exit(3)"`;

describe('Qwen Code 0.24.4: the hooks as the client runs them', () => {
  it('fires each event with the fields wmem reads; UserPromptSubmit again after the tool round with an empty prompt', () =>
    withWorld(async (world) => {
      await world.probeHooks();
      const run = await world.qwen('List it: [[bash: ls /nonexistent-wmem-dir]]');
      expect(run.exitCode, run.stderr).toBe(0);
      const records = (await world.probeRecords()).map((r) => r.input);
      observed.probeOrder = records.map((r) => r.hook_event_name);
      expect(records.map((r) => r.hook_event_name)).toEqual(['SessionStart', 'UserPromptSubmit', 'PreToolUse', 'PostToolUseFailure', 'UserPromptSubmit', 'Stop']);
      const [chat] = world.chatFiles();
      for (const r of records) expect(r).toMatchObject({ session_id: idOf(chat), transcript_path: chat, cwd: world.project });
      expect(records[0]).toMatchObject({ source: 'startup' });
      expect(records[1]).toMatchObject({ prompt: 'List it: [[bash: ls /nonexistent-wmem-dir]]' });
      expect(records[4]).toMatchObject({ prompt: '' });
      expect(records[3]).toMatchObject({ tool_name: 'run_shell_command', tool_input: { command: 'ls /nonexistent-wmem-dir' } });
      expect(records[3].error).toMatch(/^Command: ls \/nonexistent-wmem-dir\n[\s\S]*\nOutput: ls: cannot access[\s\S]*\nExit Code: 2/);
    }));
});

const FIRST: ChatUsage = { prompt_tokens: 23_456, cached_tokens: 20_000, completion_tokens: 120 };
const NEXT: ChatUsage = { prompt_tokens: 31_000, cached_tokens: 30_000, completion_tokens: 40 };

describe('Qwen Code 0.24.4 with wmem hooks', () => {
  it('memory once, a failing command an open error, the meter the mock figure, /compress archived byte for byte', () =>
    withWorld(async (world) => {
      await world.installWmem();
      world.mock.usage = FIRST;
      const first = await world.qwen(`Run the tests: [[bash: ${FAILING}]]`);
      expect(first.exitCode, first.stderr).toBe(0);
      const [start, afterTool] = turnsOf(first);
      observed.firstRoles = chatMessages(start).map((m) => m.role);
      expect(memoryCopies(start)).toBe(1);
      expect(metaOf(start).tokens_source).toBe('estimate');
      // The UserPromptSubmit after the tool round (empty prompt) added nothing: one copy, one meter.
      expect(memoryCopies(afterTool)).toBe(1);
      expect(countOf(sent(afterTool), '<context_meta>')).toBe(1);
      expect((await world.fired('UserPromptSubmit')).note).toMatch(/ignored|nothing/i);
      const hot = JSON.parse(await readFile(path.join(await world.sessionPath(), 'state', 'hot.json'), 'utf8'));
      observed.hotErrors = hot.errors;
      expect(hot.errors).toEqual([expect.objectContaining({ category: 'test', summary: expect.stringContaining('AssertionError: expected 1 to be 2'), command: expect.stringContaining('process.exit(3)') })]);

      const [chat] = world.chatFiles();
      world.mock.usage = NEXT;
      const second = await world.qwen('Go on with the next step.', { resume: idOf(chat) });
      expect(second.exitCode, second.stderr).toBe(0);
      const [next] = turnsOf(second);
      observed.secondCopies = memoryCopies(next);
      expect(memoryCopies(next)).toBe(1);
      expect(sent(next)).toContain('AssertionError: expected 1 to be 2');
      // tokens_used is the last reply's promptTokenCount in the chat file: the mock's prompt_tokens
      // (cached inside); tokens_max the reply's contextWindowSize.
      await expectMeter(world, metaOf(next), { used: FIRST.prompt_tokens, now: NEXT.prompt_tokens, max: 1_000_000, model: 'qwen3-coder-plus' }, observed);

      // /compress: PreCompact archives the chat file before the compression is written.
      const compress = await world.qwen('/compress', { resume: idOf(chat) });
      expect(compress.exitCode, compress.stderr + compress.stdout).toBe(0);
      const log = await readFile(chat, 'utf8');
      expect(log).toContain('"chat_compression"');
      const dir = await world.sessionPath();
      const archive = path.join(dir, 'working-memory', 'archive');
      const archives = readdirSync(archive).filter((n) => n.startsWith('transcript-'));
      observed.archives = archives;
      expect(archives.length).toBe(1);
      const archived = await readFile(path.join(archive, archives[0]), 'utf8');
      expect(log.startsWith(archived)).toBe(true);
      expect(archived).toContain('Go on with the next step.');
      expect(archived).not.toContain('"chat_compression"');
      // After it: one copy of the memory part, and no second archive.
      const after = await world.qwen('What is open?', { resume: idOf(chat) });
      expect(after.exitCode, after.stderr).toBe(0);
      observed.afterCompressCopies = turnsOf(after).map(memoryCopies);
      expect(memoryCopies(turnsOf(after)[0])).toBe(1);
      expect(readdirSync(archive).filter((n) => n.startsWith('transcript-'))).toEqual(archives);
    }),
    // Four runs of the client, each up to a minute on a loaded box (Copilot's /compact may wait a minute more).
    900_000);

  it('doctor sees the hooks; uninstall leaves settings.json as it was', () =>
    withWorld(async (world) => {
      // A settings file Qwen has seen already: it adds `"$version": 4` to one that lacks it.
      const mine = JSON.stringify({ ...JSON.parse(world.baseSettings()), hooks: { Stop: [{ hooks: [{ type: 'command', command: 'true', timeout: 5 }] }] }, $version: 4 }, null, 2) + '\n';
      await writeFile(world.settingsPath, mine);
      await world.installWmem();
      const again = await world.wmem(['install', 'qwen']);
      expect(String(again.stderr)).toMatch(/already installed/);
      const run = await world.qwen('Hello.');
      expect(memoryCopies(turnsOf(run)[0])).toBe(1);
      const doctor = await world.wmemJson(['doctor']);
      const report = doctor.agents.find((a: any) => a.agent === 'qwen');
      observed.doctor = report;
      expect(report.scopes.find((s: any) => s.scope === 'user').installed).toEqual(['SessionStart', 'UserPromptSubmit', 'PostToolUse', 'PostToolUseFailure', 'PreCompact', 'PostCompact', 'SessionEnd']);
      observed.settingsAfterRun = await readFile(world.settingsPath, 'utf8');
      const removed = await world.wmem(['uninstall', 'qwen']);
      expect(removed.exitCode).toBe(0);
      expect(await readFile(world.settingsPath, 'utf8')).toBe(mine);
      const after = await world.qwen('Hello.');
      expect(memoryCopies(turnsOf(after)[0])).toBe(0);
    }));
});
