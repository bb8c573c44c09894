// The real Factory Droid (pinned, installed by the suite's setup) against a loopback mock of an
// OpenAI-compatible chat-completions API, with wmem's hooks installed by the built wmem in
// ~/.factory/hooks.json: what Droid sends the model, what `wmem status` says, what lands on disk.
// Droid runs airgapped, driven over its JSON-RPC stdio mode (UserPromptSubmit does not fire
// under a plain `droid exec`), which also compacts a session on request.
import { afterAll, describe, expect, inject, it } from 'vitest';
import { readdirSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { DroidWorld } from './helpers/droid-world.js';
import { inWorld } from './helpers/agent-world.js';
import { chatMessages, contextMeta, type ChatRequest } from './helpers/openai-chat-mock.js';
import { cacheRoot } from './helpers/install-claude.js';

const droidBin = inject('droidBin');
const observed: Record<string, unknown> = {};

const withWorld = <T>(fn: (world: DroidWorld) => Promise<T>) => inWorld(() => DroidWorld.create(droidBin), observed, fn, (errors) => expect(errors, errors.join('\n')).toEqual([]));

afterAll(async () => {
  await writeFile(path.join(cacheRoot(), 'last-droid-report.json'), JSON.stringify(observed, null, 2) + '\n').catch(() => {});
});

/**
 * How many whole copies of the memory part a request carries: a message that is the part. A later
 * update (`[wmem: your working memory changed …]` and the blocks that changed) is not one.
 */
function memoryCopies(request: ChatRequest): number {
  return chatMessages(request).filter((m) => m.text.startsWith('<working_memory>')).length;
}

const FAILING = `node -e "console.error('AssertionError: expected 1 to be 2'); process.exit(3)"`;
const USER_HOOKS = JSON.stringify({ Notification: [{ hooks: [{ type: 'command', command: 'true', timeout: 5 }] }] }, null, 2) + '\n';

describe('Factory Droid 0.215.0 with wmem hooks', () => {
  it('memory once, the meter as Droid counts, a failing command as an open error, compaction archived, uninstall restores hooks.json', () =>
    withWorld(async (world) => {
      await writeFile(world.hooksPath, USER_HOOKS);
      const install = await world.wmem(['install', 'droid']);
      expect(install.exitCode, String(install.stderr)).toBe(0);
      world.mock.usage = { prompt_tokens: 1500, cached_tokens: 400, completion_tokens: 30 };
      const rpc = world.rpc();
      try {
        const id = await rpc.initialize();
        const first = await rpc.turn(`Run the tests: [[bash: ${FAILING}]]`);
        // The memory part reaches the model with the first request that carries the conversation
        // (SessionStart's answer), once, and stays one copy in every later request of the turn.
        const withMemory = first.filter((r) => memoryCopies(r) > 0);
        observed.memoryArrived = { request: first.indexOf(withMemory[0]!) + 1, of: first.length, copies: first.map(memoryCopies) };
        expect(withMemory.length).toBeGreaterThan(0);
        expect(withMemory.map(memoryCopies)).toEqual(withMemory.map(() => 1));
        // The failing command (Droid fires no hook for it) is read from the transcript at Stop.
        const status = await world.wmemJson(['status']);
        const hot = JSON.parse(await readFile(path.join(status.path, 'state', 'hot.json'), 'utf8'));
        observed.hot = hot;
        expect(hot.errors).toEqual([expect.objectContaining({ category: 'test', summary: 'AssertionError: expected 1 to be 2', command: FAILING })]);
        // The next prompt's meter: the last call's whole prompt as Droid records it
        // (lastCallTokenUsage inputTokens, cached input left out, + cacheReadTokens) = the mock's prompt_tokens.
        const settings = JSON.parse(await readFile(path.join(world.sessionsDir, `${id}.settings.json`), 'utf8'));
        const last = settings.lastCallTokenUsage;
        observed.lastCallTokenUsage = last;
        world.mock.usage = { prompt_tokens: 2100, cached_tokens: 600, completion_tokens: 40 };
        const second = await rpc.turn('And now?');
        const meta = contextMeta(second.find((r) => chatMessages(r).some((m) => m.text.includes('<context_meta>')))!);
        observed.meter = { meta: meta.tokens_used, mock: 1500, droid: last.inputTokens + last.cacheReadTokens, source: meta.tokens_source };
        expect(last).toMatchObject({ inputTokens: 1100, cacheReadTokens: 400 });
        expect(meta).toMatchObject({ tokens_used: 1500, tokens_source: 'usage' });
        expect(second.map(memoryCopies).every((n) => n <= 1)).toBe(true);
        expect((await world.wmemJson(['status'])).tokens_used).toBe(2100);
        // Compaction: PreCompact archives the transcript as it was, byte for byte, before the summary.
        const transcript = path.join(world.sessionsDir, `${id}.jsonl`);
        const before = await readFile(transcript, 'utf8');
        world.mock.script.push({ kind: 'text', text: '<summary>We ran the tests; they failed.</summary>' });
        const compacted = await rpc.request('droid.compact_session', {});
        observed.compact = compacted;
        const archives = (readdirSync(status.path, { recursive: true }) as string[]).filter((f) => /(^|\/)archive\/transcript-.*\.jsonl$/.test(f));
        observed.archives = archives;
        expect(archives.length).toBe(1);
        const archived = await readFile(path.join(status.path, archives[0]!), 'utf8');
        expect(before.startsWith(archived) || archived.startsWith(before)).toBe(true);
        expect(archived.length).toBeGreaterThanOrEqual(before.length);
        expect((await readFile(transcript, 'utf8')).startsWith(archived)).toBe(true);
        // The compacted session goes on under a new id that names its parent: the same wmem
        // session, and the conversation Droid keeps verbatim after its summary still holds the
        // one memory copy, so nothing is given twice.
        await rpc.load(compacted.newSessionId);
        const third = await rpc.turn('Where were we?');
        observed.third = third.map((r) => chatMessages(r).filter((m) => m.role !== 'system').map((m) => `${m.role}: ${m.text.slice(0, 200)}`));
        observed.thirdCopies = third.map(memoryCopies);
        expect(third.length).toBeGreaterThan(0);
        expect(third.map(memoryCopies)).toEqual(third.map(() => 1));
        expect((await world.wmemJson(['status'])).session).toBe(id);
      } finally {
        observed.stderr = rpc.stderr.join('').slice(-3000);
        await rpc.close();
      }
      observed.hooksLog = await readFile(path.join(world.wmemHome, 'logs', 'hooks.log'), 'utf8').catch(() => '');
      const uninstall = await world.wmem(['uninstall', 'droid']);
      expect(uninstall.exitCode, String(uninstall.stderr)).toBe(0);
      expect(await readFile(world.hooksPath, 'utf8')).toBe(USER_HOOKS);
    }));
});
