// The real GitHub Copilot CLI (pinned, installed by the suite's setup) offline against a loopback
// Chat Completions mock. First what the client itself does with hooks (probe hooks that record
// their stdin), then wmem's hooks installed by the built wmem: what Copilot sends the model, what
// `wmem status` says, what lands on disk.
import { afterAll, describe, expect, inject, it } from 'vitest';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { expectMeter, inWorld, lastMeta } from './helpers/agent-world.js';
import { CopilotWorld, type CopilotRun, type ProbeRecord } from './helpers/copilot-world.js';
import { chatMessages, chatText, type ChatRequest, type ChatUsage } from './helpers/openai-chat-mock.js';
import { cacheRoot } from './helpers/install-claude.js';
import { countOf } from './helpers/requests.js';

const copilotBin = inject('copilotBin');
const observed: Record<string, unknown> = {};

const withWorld = <T>(fn: (world: CopilotWorld) => Promise<T>) => inWorld(() => CopilotWorld.create(copilotBin), observed, fn, (errors) => expect(errors, errors.join('\n')).toEqual([]));

afterAll(async () => {
  await writeFile(path.join(cacheRoot(), 'last-copilot-report.json'), JSON.stringify({ observed }, null, 2) + '\n').catch(() => {});
});

function requestsOf(run: CopilotRun): ChatRequest[] {
  if (!run.requests.length) throw new Error(`the run sent no request (exit ${run.exitCode}): ${run.stderr.slice(0, 1500)}`);
  return run.requests;
}

const memoryCopies = (request: ChatRequest) => countOf(chatText(request), '<working_memory>');

const metaOf = (request: ChatRequest) => lastMeta(chatText(request));

const FAILING = `node -e "console.error('AssertionError: expected 1 to be 2'); process.exit(3)"`;

describe('GitHub Copilot CLI 1.0.102: the hooks as the client runs them', () => {
  it('fires each event with the fields wmem reads; a failing command is a postToolUse', () =>
    withWorld(async (world) => {
      await world.probeHooks();
      const run = await world.copilot('List it: [[bash: ls /nonexistent-wmem-dir]]');
      expect(run.exitCode, run.stderr).toBe(0);
      const records = await world.probeRecords<ProbeRecord>();
      observed.probeOrder = records.map((r) => r.event);
      // Copilot starts sessionStart and the first userPromptSubmitted together: either may log first.
      const order = records.map((r) => r.event);
      expect([...order.slice(0, 2)].sort()).toEqual(['sessionStart', 'userPromptSubmitted']);
      expect(order.slice(2)).toEqual(['preToolUse', 'postToolUse', 'agentStop', 'sessionEnd']);
      const [id] = world.sessionIds();
      for (const r of records) {
        expect(r.input).toMatchObject({ sessionId: id, cwd: world.project });
        expect(r.env).toMatchObject({ COPILOT_PROJECT_DIR: world.project });
      }
      const byEvent = new Map(records.map((r) => [r.event, r.input]));
      expect(byEvent.get('sessionStart')).toMatchObject({ source: 'new' });
      expect(byEvent.get('sessionStart').transcriptPath).toBeUndefined();
      expect(byEvent.get('userPromptSubmitted')).toMatchObject({ prompt: 'List it: [[bash: ls /nonexistent-wmem-dir]]' });
      // The exit code is only in the result's last line; agentStop names events.jsonl.
      expect(byEvent.get('postToolUse')).toMatchObject({ toolName: 'bash', toolArgs: { command: 'ls /nonexistent-wmem-dir' }, toolResult: { resultType: 'success' } });
      expect(byEvent.get('postToolUse').toolResult.textResultForLlm).toMatch(/<shellId: \d+ completed with exit code 2>$/);
      expect(byEvent.get('agentStop').transcriptPath).toBe(world.eventsFile(id));
    }));
});

const FIRST: ChatUsage = { prompt_tokens: 23_456, cached_tokens: 20_000, completion_tokens: 120 };
const NEXT: ChatUsage = { prompt_tokens: 31_000, cached_tokens: 30_000, completion_tokens: 40 };

describe('GitHub Copilot CLI 1.0.102 with wmem hooks', () => {
  it('memory once, a failing command an open error, the meter the mock figure, /compact archived byte for byte', () =>
    withWorld(async (world) => {
      const installed = await world.installWmem();
      expect(String(installed.stderr)).toContain(path.join(world.copilotDir, 'hooks', 'wmem.json'));
      world.mock.usage = FIRST;
      const first = await world.copilot(`Run the tests: [[bash: ${FAILING}]]`);
      expect(first.exitCode, first.stderr).toBe(0);
      const [start, afterTool] = requestsOf(first);
      // The memory part and the meter ride with the prompt (a reminder appended to it).
      const messages = chatMessages(start);
      const memoryAt = messages.findIndex((m) => m.text.includes('<working_memory>'));
      const promptAt = messages.findIndex((m) => m.text.includes('Run the tests:'));
      observed.firstRequest = { memoryAt, promptAt, roles: messages.map((m) => m.role) };
      expect(memoryCopies(start)).toBe(1);
      expect(memoryAt).toBe(promptAt);
      expect(messages[promptAt].role).toBe('user');
      expect(messages[promptAt].text).toContain('<context_meta>');
      expect(metaOf(start).tokens_source).toBe('estimate');
      // The call after the tool: the same single copy; the tool result is Copilot's own.
      expect(memoryCopies(afterTool)).toBe(1);
      const result = messages.length && chatMessages(afterTool).filter((m) => m.role === 'tool').at(-1)!.text;
      expect(result).toMatch(/completed with exit code 3/);
      expect(result).not.toMatch(/<context_meta>|<working_memory>/);
      const hot = JSON.parse(await readFile(path.join(await world.sessionPath(), 'state', 'hot.json'), 'utf8'));
      observed.hotErrors = hot.errors;
      expect(hot.errors).toEqual([expect.objectContaining({ category: 'test', summary: expect.stringContaining('AssertionError: expected 1 to be 2'), command: expect.stringContaining('process.exit(3)') })]);
      expect((await world.fired('postToolUse')).note).toMatch(/opened test error/);

      // A resume: the first prompt's copy is still in the history; only what changed (the error) is sent.
      const [id] = world.sessionIds();
      world.mock.usage = NEXT;
      const second = await world.copilot('Go on with the next step.', { resume: id });
      expect(second.exitCode, second.stderr).toBe(0);
      const [next] = requestsOf(second);
      expect(memoryCopies(next)).toBe(1);
      expect(chatText(next)).toContain('AssertionError: expected 1 to be 2');
      // tokens_used is the last call's inputTokens in events.jsonl: the mock's prompt_tokens (cached
      // inside); tokens_max Copilot's maxPromptTokens for gpt-4.1.
      await expectMeter(world, metaOf(next), { used: FIRST.prompt_tokens, now: NEXT.prompt_tokens, max: 64_000, model: 'gpt-4.1' }, observed);

      // /compact headless: preCompact archives events.jsonl before the compaction is written.
      // Copilot sometimes waits ~60 s before exiting after it: the run ends once the log is complete.
      // Done once the log holds the compaction and, after it, the session's shutdown.
      const compacted = () => {
        const log = existsSync(world.eventsFile(id)) ? readFileSync(world.eventsFile(id), 'utf8') : '';
        const at = log.indexOf('"session.compaction_complete"');
        return at !== -1 && log.includes('"session.shutdown"', at);
      };
      const compact = await world.copilot('/compact', { resume: id, timeout: 150_000, doneWhen: compacted });
      observed.compactExit = compact.exitCode ?? 'killed';
      const log = await readFile(world.eventsFile(id), 'utf8');
      expect(log).toContain('"session.compaction_complete"');
      const archive = path.join(await world.sessionPath(), 'working-memory', 'archive');
      const archives = readdirSync(archive).filter((n) => n.startsWith('transcript-'));
      observed.archives = archives;
      expect(archives.length).toBe(1);
      const archived = await readFile(path.join(archive, archives[0]), 'utf8');
      expect(log.startsWith(archived)).toBe(true);
      expect(archived).toContain('Go on with the next step.');
      expect(archived).not.toContain('"session.compaction_complete"');
      // Copilot appends to events.jsonl asynchronously: on a loaded machine the /compact run's own
      // records (its session.resume, the compaction's start) may not be written yet when
      // preCompact reads the file (CI, 2026-11-27: the archive ended at the run before's shutdown).
      // What such a gap may hold is the run's bookkeeping, never a message of the conversation;
      // the next archive takes it from where this one ended (only new complete lines).
      const compactionAt = log.lastIndexOf('\n', log.indexOf('"session.compaction_start"')) + 1;
      expect(compactionAt).toBeGreaterThan(0);
      const gap = log.slice(archived.length, Math.max(archived.length, compactionAt)).split('\n').filter((line) => !line.includes('"content":"/compact"'));
      expect(gap.filter((line) => /"type":"(user|assistant)\.message"|"type":"tool\.execution_complete"/.test(line))).toEqual([]);
      // After it: one copy of the memory part, and no second archive.
      const after = await world.copilot('What is open?', { resume: id });
      expect(after.exitCode, after.stderr).toBe(0);
      expect(requestsOf(after).map(memoryCopies)).toEqual([1, ...requestsOf(after).slice(1).map(() => 1)]);
      expect(readdirSync(archive).filter((n) => n.startsWith('transcript-'))).toEqual(archives);
    }),
    // Four runs of the client, each up to a minute on a loaded box (Copilot's /compact may wait a minute more).
    900_000);

  it('doctor sees the hooks; uninstall leaves the hooks folder as it was', () =>
    withWorld(async (world) => {
      const hooksDir = path.join(world.copilotDir, 'hooks');
      await mkdir(hooksDir, { recursive: true });
      const mine = JSON.stringify({ version: 1, hooks: { agentStop: [{ type: 'command', bash: 'true', timeoutSec: 5 }] } }, null, 2) + '\n';
      await writeFile(path.join(hooksDir, 'mine.json'), mine);
      await world.installWmem();
      const again = await world.wmem(['install', 'copilot']);
      expect(String(again.stderr)).toMatch(/already installed/);
      const run = await world.copilot('Hello.');
      expect(memoryCopies(requestsOf(run)[0])).toBe(1);
      const doctor = await world.wmemJson(['doctor']);
      const report = doctor.agents.find((a: any) => a.agent === 'copilot');
      observed.doctor = report;
      expect(report.scopes.find((s: any) => s.scope === 'user').installed).toEqual(['sessionStart', 'userPromptSubmitted', 'postToolUse', 'postToolUseFailure', 'preCompact', 'sessionEnd']);
      const removed = await world.wmem(['uninstall', 'copilot']);
      expect(removed.exitCode).toBe(0);
      expect(readdirSync(hooksDir)).toEqual(['mine.json']);
      expect(await readFile(path.join(hooksDir, 'mine.json'), 'utf8')).toBe(mine);
      const after = await world.copilot('Hello.');
      expect(memoryCopies(requestsOf(after)[0])).toBe(0);
      expect(existsSync(path.join(hooksDir, 'wmem.json'))).toBe(false);
    }));
});
