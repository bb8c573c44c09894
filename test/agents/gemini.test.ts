// The real Gemini CLI (pinned, installed by the suite's setup) against a loopback mock of the
// Gemini API. First what the client itself does with hooks (probe hooks that record their stdin),
// then wmem's hooks installed by the built wmem: what Gemini sends the model, what `wmem status`
// says, what lands on disk.
import { afterAll, describe, expect, inject, it } from 'vitest';
import { existsSync, readdirSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { GeminiWorld, type GeminiRun } from './helpers/gemini-world.js';
import { allText, contentsOf, unescaped, type GeminiRequest, type GeminiUsage } from './helpers/gemini-mock.js';
import { cacheRoot } from './helpers/install-claude.js';
import { inWorld } from './helpers/agent-world.js';
import { countOf } from './helpers/requests.js';

const geminiEntry = inject('geminiEntry');
const observed: Record<string, unknown> = {};
/** wmem's own time per Gemini event, from its fired records. */
const wmemTimes = new Map<string, number[]>();

async function withWorld<T>(fn: (world: GeminiWorld) => Promise<T>): Promise<T> {
  return inWorld(() => GeminiWorld.create(geminiEntry), observed, fn, (errors) => expect(errors, errors.join('\n')).toEqual([]), collectTimes);
}

async function collectTimes(world: GeminiWorld): Promise<void> {
  const dir = path.join(world.wmemHome, 'logs', 'hooks-last');
  for (const name of existsSync(dir) ? readdirSync(dir) : []) {
    if (!name.startsWith('gemini-')) continue;
    const fired = JSON.parse(await readFile(path.join(dir, name), 'utf8').catch(() => '{}'));
    if (typeof fired.ms === 'number') wmemTimes.set(fired.event, [...(wmemTimes.get(fired.event) ?? []), fired.ms]);
  }
}

afterAll(async () => {
  const times = Object.fromEntries(wmemTimes);
  process.stderr.write(`[gemini] wmem's own time per hook (ms, last firing per world): ${JSON.stringify(times)}\n`);
  await writeFile(path.join(cacheRoot(), 'last-gemini-report.json'), JSON.stringify({ wmemTimes: times, observed }, null, 2) + '\n').catch(() => {});
});

/** The request's text as the hooks wrote it (Gemini HTML-escapes hook text). */
function sent(request: GeminiRequest): string {
  return unescaped(allText(request));
}

function turnsOf(run: GeminiRun): GeminiRequest[] {
  const turns = run.requests.filter((r) => r.kind === 'stream');
  if (!turns.length) throw new Error(`the run sent no main-turn request (exit ${run.exitCode}): ${run.stderr.slice(0, 1500)}`);
  return turns;
}

function metaOf(request: GeminiRequest): { figures: Record<string, any>; text: string } {
  const blocks = [...sent(request).matchAll(/<context_meta>\n?([\s\S]*?)\n?<\/context_meta>/g)];
  if (!blocks.length) throw new Error(`no <context_meta> in the request: ${sent(request).slice(-1500)}`);
  const [first, ...rest] = blocks[blocks.length - 1][1].trim().split('\n');
  return { figures: JSON.parse(first), text: rest.join('\n') };
}

const memoryCopies = (request: GeminiRequest) => countOf(sent(request), '<working_memory>');

async function sessionPath(world: GeminiWorld): Promise<string> {
  return (await world.wmemJson(['status'])).path;
}

async function fired(world: GeminiWorld, event: string): Promise<any> {
  return JSON.parse(await readFile(path.join(world.wmemHome, 'logs', 'hooks-last', `gemini-${event}.json`), 'utf8'));
}

describe('Gemini CLI 0.61.0: the hooks as the client runs them', () => {
  it('fires each event with the fields wmem reads; PreCompress before every model call', () =>
    withWorld(async (world) => {
      await world.probeHooks();
      const run = await world.gemini('List it: [[shell: ls /nonexistent-wmem-dir]]');
      expect(run.exitCode, run.stderr).toBe(0);
      const records = await world.probeRecords();
      const names = records.map((r) => r.input.hook_event_name);
      observed.probeOrder = names;
      expect(names).toEqual(['SessionStart', 'BeforeAgent', 'PreCompress', 'BeforeTool', 'AfterTool', 'PreCompress', 'AfterAgent', 'SessionEnd']);
      // Two model calls, two PreCompress, no compression.
      expect(turnsOf(run).length).toBe(2);
      const [chat] = world.chatFiles();
      const sessionId = records[0].input.session_id;
      for (const r of records) {
        expect(r.input).toMatchObject({ session_id: sessionId, transcript_path: chat, cwd: world.project });
        expect(r.env).toMatchObject({ GEMINI_SESSION_ID: sessionId, GEMINI_PROJECT_DIR: world.project });
      }
      const byEvent = new Map(records.map((r) => [r.input.hook_event_name, r.input]));
      expect(byEvent.get('SessionStart')).toMatchObject({ source: 'startup' });
      expect(byEvent.get('BeforeAgent')).toMatchObject({ prompt: 'List it: [[shell: ls /nonexistent-wmem-dir]]' });
      expect(byEvent.get('PreCompress')).toMatchObject({ trigger: 'auto' });
      // The exit code is only in the text the model gets.
      const after = byEvent.get('AfterTool');
      expect(after).toMatchObject({ tool_name: 'run_shell_command', tool_input: { command: 'ls /nonexistent-wmem-dir' } });
      expect(after.tool_response.llmContent).toMatch(/Exit Code: 2/);
      expect(byEvent.get('SessionEnd')).toMatchObject({ reason: 'exit' });
    }));
});

const FIRST: GeminiUsage = { promptTokenCount: 150_000, candidatesTokenCount: 500, cachedContentTokenCount: 120_000 };
const NEXT: GeminiUsage = { promptTokenCount: 160_000, candidatesTokenCount: 40, cachedContentTokenCount: 150_000 };

describe('Gemini CLI 0.61.0 with wmem hooks', () => {
  it('sends the memory part, then a meter with the usage the mock reported', () =>
    withWorld(async (world) => {
      const installed = await world.installWmem();
      expect(String(installed.stderr)).toContain(world.settingsPath);
      world.mock.usage = FIRST;
      const first = await world.gemini('Start on the task: make the parser accept empty input.');
      expect(first.exitCode, first.stderr).toBe(0);
      const [request] = turnsOf(first);
      expect(memoryCopies(request)).toBe(1);
      // BeforeAgent's text is a part of its own beside the prompt (SessionStart answers nothing).
      const parts: string[] = request.body.contents.flatMap((c: any) => c.parts.map((p: any) => unescaped(String(p.text ?? ''))));
      expect(parts.findIndex((t) => t.startsWith('<hook_context><working_memory>'))).toBe(parts.indexOf('Start on the task: make the parser accept empty input.') + 1);
      observed.firstMeta = metaOf(request).figures;
      expect(metaOf(request).figures.tokens_source).toBe('estimate');

      world.mock.usage = NEXT;
      const second = await world.gemini('Go on with the next step.', { resume: true });
      expect(second.exitCode, second.stderr).toBe(0);
      const [next] = turnsOf(second);
      const meta = metaOf(next);
      observed.secondMeta = meta.figures;
      // tokens_used is the promptTokenCount of the last response (cached tokens are inside it).
      expect(meta.figures.tokens_used).toBe(FIRST.promptTokenCount);
      expect(meta.figures.tokens_source).toBe('usage');
      expect(meta.figures.tokens_max).toBe(1_048_576);
      expect(meta.figures.model).toBe('gemini-2.5-flash');
      expect(meta.text).toContain('/compress');
      // The resumed history keeps the first turn whole, the memory part with it: one copy.
      expect(sent(next)).toContain('Start on the task: make the parser accept empty input.');
      expect(memoryCopies(next)).toBe(1);

      const status = await world.wmemJson(['status']);
      observed.status = { tokens_used: status.tokens_used, tokens_source: status.tokens_source, tokens_max: status.tokens_max, tokens_max_source: status.tokens_max_source };
      expect(status.tokens_used).toBe(NEXT.promptTokenCount);
      expect(status.tokens_source).toBe('usage');
      expect(status.tokens_max).toBe(1_048_576);
    }));

  it('tracks a command; a failing one becomes an open error the next prompt shows', () =>
    withWorld(async (world) => {
      await world.installWmem();
      const ok = await world.gemini('Check: [[shell: ls]]');
      expect(ok.exitCode, ok.stderr).toBe(0);
      const failing = await world.gemini(`Run the tests: [[shell: node -e "console.error('AssertionError: expected 1 to be 2'); process.exit(3)"]]`, { resume: true });
      expect(failing.exitCode, failing.stderr).toBe(0);
      // AfterTool answered nothing: the tool result the model got is Gemini's own.
      const result = contentsOf(turnsOf(failing)[1]).at(-1)!.text;
      expect(result).toMatch(/Exit Code: 3/);
      expect(unescaped(result)).not.toMatch(/<context_meta>|<working_memory>/);
      const hot = JSON.parse(await readFile(path.join(await sessionPath(world), 'state', 'hot.json'), 'utf8'));
      observed.hotState = hot;
      expect(hot.errors).toEqual([expect.objectContaining({ category: 'test', summary: expect.stringContaining('AssertionError: expected 1 to be 2'), command: expect.stringContaining('process.exit(3)') })]);
      expect((await fired(world, 'AfterTool')).note).toMatch(/opened test error/);
      // The next prompt's memory part shows it to the model.
      const next = await world.gemini('What is open?', { resume: true });
      expect(sent(turnsOf(next)[0])).toContain('AssertionError: expected 1 to be 2');
    }));

  it('PreCompress before every model call neither re-injects memory nor archives anything', () =>
    withWorld(async (world) => {
      await world.installWmem();
      const run = await world.gemini('Look: [[shell: echo one]]');
      expect(run.exitCode, run.stderr).toBe(0);
      const turns = turnsOf(run);
      expect(turns.length).toBe(2);
      // The second call carries the same single copy the first one did.
      expect(turns.map(memoryCopies)).toEqual([1, 1]);
      expect((await fired(world, 'PreCompress')).note).toMatch(/nothing archived/);
      const archive = path.join(await sessionPath(world), 'working-memory', 'archive');
      expect(existsSync(archive) ? readdirSync(archive).filter((n) => n.startsWith('transcript-')) : []).toEqual([]);
    }));

  it('a compression: the chat file archived byte for byte, memory given once after it', () =>
    withWorld(async (world) => {
      await world.installWmem();
      const long = (topic: string) => `${topic}: ${'Keep the parser strict about trailing commas and report the line. '.repeat(40)}`;
      expect((await world.gemini(long('First'))).exitCode).toBe(0);
      expect((await world.gemini(long('Second'), { resume: true })).exitCode).toBe(0);
      // The call's usage passes Gemini's threshold (half of 1,048,576): it compresses before the next call.
      world.mock.script.push({ kind: 'call', name: 'run_shell_command', args: { command: 'echo three' }, usage: { promptTokenCount: 600_000, candidatesTokenCount: 20 } });
      const third = await world.gemini('Third: go on.', { resume: true });
      expect(third.exitCode, third.stderr).toBe(0);
      expect(third.requests.filter((r) => r.kind === 'summary').length).toBeGreaterThan(0);
      const chats = world.chatFiles();
      const texts = await Promise.all(chats.map((f) => readFile(f, 'utf8')));
      const compressed = texts.find((t) => t.includes('Got it. Thanks for the additional context!'));
      expect(compressed).toBeDefined();
      const dir = await sessionPath(world);
      const archive = path.join(dir, 'working-memory', 'archive');
      const archives = readdirSync(archive).filter((n) => n.startsWith('transcript-'));
      observed.archives = archives;
      expect(archives.length).toBe(1);
      const archived = await readFile(path.join(archive, archives[0]), 'utf8');
      // Everything up to and including the compression, byte for byte.
      expect(compressed!.startsWith(archived)).toBe(true);
      expect(archived).toContain('Got it. Thanks for the additional context!');
      expect(archived).toContain('Keep the parser strict');
      // The next session after it: one copy of the memory part, and no second archive.
      const fourth = await world.gemini('Fourth: what now?', { resume: true });
      expect(fourth.exitCode, fourth.stderr).toBe(0);
      expect(turnsOf(fourth).map(memoryCopies)).toEqual([1]);
      expect(readdirSync(archive).filter((n) => n.startsWith('transcript-'))).toEqual(archives);
    }));

  it('doctor sees the hooks; uninstall leaves settings.json as it was', () =>
    withWorld(async (world) => {
      const mine = JSON.stringify({ ...JSON.parse(world.baseSettings()), hooks: { AfterAgent: [{ hooks: [{ type: 'command', command: 'true', name: 'mine', timeout: 5000 }] }] } }, null, 2) + '\n';
      await writeFile(world.settingsPath, mine);
      await world.installWmem();
      const again = await world.wmem(['install', 'gemini']);
      expect(String(again.stderr)).toMatch(/already installed/);
      const run = await world.gemini('Hello.');
      expect(memoryCopies(turnsOf(run)[0])).toBe(1);
      const doctor = await world.wmemJson(['doctor']);
      const report = doctor.agents.find((a: any) => a.agent === 'gemini');
      observed.doctor = report;
      expect(report.scopes.find((s: any) => s.scope === 'user').installed).toEqual(['SessionStart', 'BeforeAgent', 'AfterTool', 'PreCompress', 'SessionEnd']);
      const removed = await world.wmem(['uninstall', 'gemini']);
      expect(removed.exitCode).toBe(0);
      expect(await readFile(world.settingsPath, 'utf8')).toBe(mine);
      const after = await world.gemini('Hello.');
      expect(memoryCopies(turnsOf(after)[0])).toBe(0);
    }));
});
