// The real Kilo Code CLI (pinned, installed by the suite's setup) against the loopback chat
// mock, with wmem's plugin installed by the built wmem in the project's .kilo/plugins/: Kilo is
// an OpenCode fork, so the OpenCode world drives it (`kilo run --format json --auto`, its own
// config file kilo.json, offline: only the mock provider enabled, no models fetch, npm offline).
import { afterAll, describe, expect, inject, it } from 'vitest';
import { existsSync } from 'node:fs';
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

function expectRan(run: OpenCodeRun): void {
  expect(run.exitCode, run.stderr.slice(-1500)).toBe(0);
  expect(run.requests.length, run.stderr.slice(-1500)).toBeGreaterThan(0);
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
      // Every request carries the memory part once, as a system message, the same bytes throughout.
      const copies = first.requests.map(memoryIn);
      observed.memory = { requests: first.requests.length, copies: copies.map((c) => c.length), firstWith: copies.findIndex((c) => c.length > 0) + 1 };
      expect(copies.map((c) => c.length)).toEqual(copies.map(() => 1));
      expect(new Set(copies.flat()).size).toBe(1);
      const status = await world.wmemJson(['status']);
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
});
