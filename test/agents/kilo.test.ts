// The real Kilo Code CLI (pinned, installed by the suite's setup) against the loopback chat
// mock, with wmem's plugin installed by the built wmem in the project's .kilo/plugins/: Kilo is
// an OpenCode fork, so the OpenCode world drives it (`kilo run --format json --auto`, its own
// config file kilo.json, offline: only the mock provider enabled, no models fetch, npm offline).
import { afterAll, describe, expect, inject, it } from 'vitest';
import { existsSync, readdirSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { OpenCodeWorld, type Flavour, type OpenCodeRun } from './helpers/opencode-world.js';
import { chatMessages, contextMeta, type ChatRequest } from './helpers/openai-chat-mock.js';
import { cacheRoot } from './helpers/install-claude.js';

const kiloBin = inject('kiloBin');
const observed: Record<string, unknown> = {};

const KILO: Flavour = {
  agent: 'kilo',
  config: 'kilo.json',
  plugin: path.join('.kilo', 'plugins', 'wmem.ts'),
  // Kilo writes its $schema into a project kilo.json itself; the file starts with it.
  settings: { $schema: 'https://app.kilo.ai/config.json', enabled_providers: ['mock'] },
  env: { KILO_DISABLE_MODELS_FETCH: '1', npm_config_offline: 'true' },
  // Headless, a tool call needs --auto (else Kilo rejects it and the run exits 1).
  runArgs: ['--format', 'json', '--auto'],
};

afterAll(async () => {
  await writeFile(path.join(cacheRoot(), 'last-kilo-report.json'), JSON.stringify(observed, null, 2) + '\n').catch(() => {});
});

function memoryIn(request: ChatRequest): string[] {
  return chatMessages(request)
    .filter((m) => m.role === 'system' && m.text.startsWith('<working_memory>'))
    .map((m) => m.text);
}

/** Kilo's call that names the session (its own session `title-<id>`, fired beside the turn's first request). */
const isTitleCall = (request: ChatRequest) => chatMessages(request).some((m) => m.role === 'user' && m.text.startsWith('Generate a title for this conversation:'));

function expectRan(run: OpenCodeRun): void {
  expect(run.exitCode, run.stderr.slice(-1500)).toBe(0);
  expect(run.requests.length, run.stderr.slice(-1500)).toBeGreaterThan(0);
}

/** A message as Kilo exports it, less the step-start times its plugin API does not hand over. */
function withoutStepStartTime(message: any): unknown {
  const parts = message.parts.map((p: any) => {
    if (p.type !== 'step-start') return p;
    const { time: _time, ...rest } = p;
    return rest;
  });
  return { ...message, parts };
}

const FAILING = `node -e "console.error('AssertionError: expected 1 to be 2'); process.exit(3)"`;

describe('Kilo Code 7.7.9 with wmem plugin', () => {
  it('memory once in the system prompt, the meter as Kilo counts, a failing command as an open error, uninstall restores kilo.json', async () => {
    const world = await OpenCodeWorld.create(kiloBin, undefined, KILO);
    try {
      const config = await readFile(world.configPath, 'utf8');
      await world.installWmem();
      expect(existsSync(world.pluginPath)).toBe(true);
      world.mock.usage = { prompt_tokens: 1500, cached_tokens: 400, completion_tokens: 30 };
      const first = await world.opencode(`Run the tests: [[bash: ${FAILING}]]`, { timeout: 280_000 });
      expectRan(first);
      // Every request of the turn carries the memory part once, as a system message, the same bytes
      // throughout; Kilo's title call, when it got as far as the model before the run ended, none.
      const turn = first.requests.filter((r) => !isTitleCall(r));
      const copies = turn.map(memoryIn);
      observed.memory = { requests: first.requests.length, titleCalls: first.requests.length - turn.length, copies: copies.map((c) => c.length), firstWith: copies.findIndex((c) => c.length > 0) + 1 };
      expect(copies.map((c) => c.length)).toEqual(copies.map(() => 1));
      expect(new Set(copies.flat()).size).toBe(1);
      expect(first.requests.filter(isTitleCall).map(memoryIn)).toEqual(first.requests.filter(isTitleCall).map(() => []));
      const status = await world.wmemJson(['status']);
      // Kilo's title call (session `title-<id>`) is a side call of the session: never a session of
      // its own, never the project's current one, even when its hook runs after the session's last.
      const project = path.dirname(status.path);
      observed.sessions = readdirSync(project).filter((n) => existsSync(path.join(project, n, 'meta.json')));
      expect(observed.sessions).toEqual([path.basename(status.path)]);
      expect(path.basename(status.path)).toMatch(/^ses_/);
      const hot = JSON.parse(await readFile(path.join(status.path, 'state', 'hot.json'), 'utf8'));
      observed.hot = hot;
      expect(hot.errors).toEqual([expect.objectContaining({ category: 'test', summary: 'AssertionError: expected 1 to be 2' })]);
      // Kilo's tokens.total: the mock's prompt (cached included) + completion of the last response.
      observed.status = { tokens_used: status.tokens_used, tokens_source: status.tokens_source, tokens_max: status.tokens_max, agent: status.agent };
      expect(status).toMatchObject({ tokens_used: 1530, tokens_source: 'usage', tokens_max: 150_000, agent: 'kilo' });

      world.mock.usage = { prompt_tokens: 2000, cached_tokens: 1500, completion_tokens: 10 };
      const second = await world.opencode('What is open?', { continue: true, timeout: 280_000 });
      expectRan(second);
      const meta = contextMeta(second.requests[0]!);
      observed.meter = { meta: meta.tokens_used, mock: 1500 + 30, source: meta.tokens_source };
      expect(meta).toMatchObject({ tokens_used: 1530, tokens_max: 150_000, tokens_max_source: 'agent' });
      expect(memoryIn(second.requests[0]!)[0]).toContain('AssertionError: expected 1 to be 2');

      const log = await readFile(path.join(world.wmemHome, 'logs', 'hooks.log'), 'utf8').catch(() => '');
      expect(log.split('\n').filter((l) => / error: /.test(l))).toEqual([]);
      expect(await world.pluginLog()).toBe('');
      expect((await world.wmem(['uninstall', 'kilo'])).exitCode).toBe(0);
      expect(existsSync(world.pluginPath)).toBe(false);
      expect(await readFile(world.configPath, 'utf8')).toBe(config);
    } finally {
      await world.cleanup();
    }
  }, 600_000);

  it('a turn that ended over a small model limit compacts at the next prompt: every message archived whole before the summary, the memory part once after', async () => {
    const world = await OpenCodeWorld.create(kiloBin, { context: 4000, output: 500 }, KILO);
    try {
      await world.installWmem();
      world.mock.usage = { prompt_tokens: 1500, cached_tokens: 0, completion_tokens: 30 };
      const first = await world.opencode('Say hello [[bash: echo wmem-marker-one]]', { timeout: 280_000 });
      expectRan(first);
      // This answer ends over the limit; Kilo checks overflow only before its next loop step, so
      // this run ends uncompacted and the next prompt compacts before it is answered.
      world.mock.script.push({ kind: 'text', text: 'Done: wmem-reply-two.', usage: { prompt_tokens: 3700, cached_tokens: 0, completion_tokens: 30 } });
      const second = await world.opencode('Go on with wmem-prompt-two', { continue: true, timeout: 280_000 });
      expectRan(second);
      const sessionId = /"sessionID"\s*:\s*"([^"]+)"/.exec(second.stdout)?.[1];
      expect(sessionId, second.stdout.slice(0, 800)).toBeDefined();
      // The conversation as it stood before the compaction, as Kilo itself exports it.
      const stood = (await world.exportSession(sessionId!)).messages;

      const third = await world.opencode('Now wmem-prompt-three', { continue: true, timeout: 280_000 });
      expectRan(third);
      observed.compaction = third.requests.map((r) => chatMessages(r).map((m) => `${m.role}: ${m.text.slice(0, 80)}`));
      const summaryAt = third.requests.findIndex((r) => !(Array.isArray(r.body?.tools) && r.body.tools.length));
      expect(summaryAt).toBeGreaterThanOrEqual(0);
      // After the summary, the memory part reaches the next request once.
      const after = third.requests[summaryAt + 1];
      expect(after).toBeDefined();
      expect(memoryIn(after!)).toHaveLength(1);

      const status = await world.wmemJson(['status']);
      const archiveDir = path.join(status.path, 'working-memory', 'archive');
      const archives = readdirSync(archiveDir).filter((n) => n.endsWith('.jsonl'));
      observed.archives = readdirSync(archiveDir);
      expect(archives).toHaveLength(1);
      const lines = (await readFile(path.join(archiveDir, archives[0]!), 'utf8')).trim().split('\n');
      // Every message Kilo held before the compaction, in order, each field and value as Kilo's own
      // export has it. Two differences are Kilo's, not wmem's: the export orders keys otherwise, and
      // the messages its plugin API hands over carry no `time` on step-start parts.
      const archived = lines.map((l) => JSON.parse(l));
      observed.archived = { lines: lines.length, exported: stood.length, extra: archived.slice(stood.length).map((m) => [m.info?.role, JSON.stringify(m.parts).slice(0, 160)]) };
      expect(archived.slice(0, stood.length)).toStrictEqual(stood.map(withoutStepStartTime));
      // Then the prompt that triggered it and Kilo's compaction marker; not the summary: archived before it.
      const extra = archived.slice(stood.length);
      expect(extra.map((m) => m.info.role)).toEqual(['user', 'user']);
      expect(JSON.stringify(extra[0].parts)).toContain('Now wmem-prompt-three');
      expect(extra[1].parts).toEqual([expect.objectContaining({ type: 'compaction', auto: true })]);
      expect(archived.some((m) => m.info.summary === true)).toBe(false);
      expect(new Set(archived.map((m) => m.info.id)).size).toBe(archived.length);
      const texts = lines.join('\n');
      for (const needle of ['Say hello', 'wmem-marker-one\\n', 'Go on with wmem-prompt-two', 'Done: wmem-reply-two.']) expect(texts).toContain(needle);
      const overview = await readFile(path.join(status.path, 'working-memory', 'overview.md'), 'utf8');
      expect(overview).toMatch(/Kilo Code compacted the conversation \(auto\)/);
      const log = await readFile(path.join(world.wmemHome, 'logs', 'hooks.log'), 'utf8').catch(() => '');
      expect(log.split('\n').filter((l) => / error: /.test(l))).toEqual([]);
      expect(await world.pluginLog()).toBe('');
    } finally {
      await world.cleanup();
    }
  }, 900_000);
});
