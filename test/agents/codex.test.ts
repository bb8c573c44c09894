// The real Codex CLI (pinned, installed by the suite's setup) against a loopback mock of the
// Responses API. First what the client itself does with hooks (probe hooks that record their
// stdin), then wmem's hooks installed by the built wmem: what Codex sends the model, what
// `wmem status` says, what lands on disk.
import { afterAll, describe, expect, inject, it } from 'vitest';
import { existsSync, readdirSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { CodexWorld, ROOT, type CodexRun } from './helpers/codex-world.js';
import { allText, messagesOf, toolNames, type RecordedRequest, type ResponsesUsage } from './helpers/responses-mock.js';
import { cacheRoot } from './helpers/install-claude.js';
import { inWorld } from './helpers/agent-world.js';

const codexBin = inject('codexBin');
const observed: Record<string, unknown> = {};
/** wmem's own time per Codex event, from its fired records. */
const wmemTimes = new Map<string, number[]>();

async function withWorld<T>(fn: (world: CodexWorld) => Promise<T>): Promise<T> {
  return inWorld(() => CodexWorld.create(codexBin), observed, fn, (errors) => expect(errors, errors.join('\n')).toEqual([]), collectTimes);
}

async function collectTimes(world: CodexWorld): Promise<void> {
  const dir = path.join(world.wmemHome, 'logs', 'hooks-last');
  for (const name of existsSync(dir) ? readdirSync(dir) : []) {
    if (!name.startsWith('codex-')) continue;
    const fired = JSON.parse(await readFile(path.join(dir, name), 'utf8').catch(() => '{}'));
    if (typeof fired.ms === 'number') wmemTimes.set(fired.event, [...(wmemTimes.get(fired.event) ?? []), fired.ms]);
  }
}

afterAll(async () => {
  const times = Object.fromEntries([...wmemTimes].map(([event, ms]) => [event, ms]));
  process.stderr.write(`[codex] wmem's own time per hook (ms, last firing per world): ${JSON.stringify(times)}\n`);
  await writeFile(path.join(cacheRoot(), 'last-codex-report.json'), JSON.stringify({ wmemTimes: times, observed }, null, 2) + '\n').catch(() => {});
});

/** Developer messages that carry wmem's text, in order. */
function wmemDeveloperTexts(request: RecordedRequest): string[] {
  return messagesOf(request)
    .filter((m) => m.role === 'developer' && /<working_memory>|<context_meta>/.test(m.text))
    .map((m) => m.text);
}

function metaOf(request: RecordedRequest): { figures: Record<string, any>; text: string } {
  const all = allText(request);
  const blocks = [...all.matchAll(/<context_meta>\n?([\s\S]*?)\n?<\/context_meta>/g)];
  if (!blocks.length) throw new Error(`no <context_meta> in the request: ${all.slice(-1500)}`);
  const [first, ...rest] = blocks[blocks.length - 1][1].trim().split('\n');
  return { figures: JSON.parse(first), text: rest.join('\n') };
}

function firstRequest(run: CodexRun): RecordedRequest {
  const [first] = run.requests.filter((r) => r.path.endsWith('/responses'));
  if (!first) throw new Error(`the run sent no request (exit ${run.exitCode}): ${run.stderr.slice(0, 800)}`);
  return first;
}

/** The context in use as Codex counts it (and compares with its auto-compact limit): input + output. */
function used(u: ResponsesUsage): number {
  return u.input_tokens + u.output_tokens;
}

async function sessionStatus(world: CodexWorld): Promise<any> {
  return world.wmemJson(['status']);
}

describe('Codex CLI 0.169.0: the hooks as the client runs them', () => {
  it('fires each event with the fields wmem reads; a failed command shows only in the rollout', () =>
    withWorld(async (world) => {
      await world.probeHooks();
      const run = await world.codex('List it: [[exec: ls /nonexistent-wmem-dir]]');
      expect(run.exitCode).toBe(0);
      const records = await world.probeRecords();
      const byEvent = new Map(records.map((r) => [r.input.hook_event_name, r.input]));
      expect(records.map((r) => r.input.hook_event_name)).toEqual(['SessionStart', 'UserPromptSubmit', 'PreToolUse', 'PostToolUse', 'Stop', 'SessionEnd']);
      const rollout = world.rolloutPath(run.threadId);
      for (const r of records) {
        expect(r.input).toMatchObject({ session_id: run.threadId, transcript_path: rollout, cwd: world.project });
        // No session id in the environment: the hook learns it from stdin only.
        expect(Object.keys(r.env).sort()).toEqual(['CODEX_HOME']);
      }
      expect(byEvent.get('SessionStart')).toMatchObject({ source: 'startup' });
      expect(byEvent.get('UserPromptSubmit')).toMatchObject({ prompt: 'List it: [[exec: ls /nonexistent-wmem-dir]]' });
      const post = byEvent.get('PostToolUse');
      expect(post).toMatchObject({ tool_name: 'Bash', tool_input: { command: 'ls /nonexistent-wmem-dir' } });
      // The tool response is the output only: nothing says the command failed...
      expect(typeof post.tool_response).toBe('string');
      expect(post.tool_response).toMatch(/No such file or directory/);
      expect(post.tool_response).not.toMatch(/exit/i);
      // ...but the rollout already holds the finished command, keyed by the hook's tool_use_id.
      const lines = await world.rollout(run.threadId);
      const done = lines.find((l) => l.type === 'event_msg' && l.payload?.type === 'item_completed' && l.payload.item?.id === post.tool_use_id);
      expect(done?.payload.item).toMatchObject({ type: 'CommandExecution', status: 'failed', exit_code: 2 });
      expect(byEvent.get('SessionEnd')).toMatchObject({ reason: 'other' });
    }));

  it('offers an MCP server\'s tools in a namespace; a call reaches the server and fires the tool hooks as mcp__<server>__<tool>', () =>
    withWorld(async (world) => {
      await world.probeHooks(['PostToolUse']);
      const server = path.join(ROOT, 'test', 'agents', 'helpers', 'probe-mcp-server.mjs');
      const log = path.join(world.root, 'mcp.jsonl');
      await world.appendConfig(`[mcp_servers.probe]\ncommand = "node"\nargs = [${JSON.stringify(server)}, ${JSON.stringify(log)}]`);
      const run = await world.codex('Keep it: [[call: mcp__probe/note {"text":"the build needs Node 20"}]]');
      expect(run.exitCode).toBe(0);
      expect(toolNames(firstRequest(run))).toContain('mcp__probe/note');
      const calls = (await readFile(log, 'utf8')).split('\n').filter((l) => l.includes('"tools/call"')).map((l) => JSON.parse(l));
      expect(calls.map((c) => c.params.arguments)).toEqual([{ text: 'the build needs Node 20' }]);
      const [post] = (await world.probeRecords()).map((r) => r.input);
      // An MCP tool's response is an object (the MCP result), not a string like a command's.
      expect(post).toMatchObject({ tool_name: 'mcp__probe__note', tool_input: { text: 'the build needs Node 20' }, tool_response: { content: [{ type: 'text', text: 'noted: the build needs Node 20' }] } });
    }));

  it('runs no hook without trust', () =>
    withWorld(async (world) => {
      await world.probeHooks();
      const run = await world.codex('Hello.', { trusted: false });
      expect(run.exitCode).toBe(0);
      expect(await world.probeRecords()).toEqual([]);
      expect(world.mock.responseRequests().length).toBe(1);
    }));
});

const BIG: ResponsesUsage = { input_tokens: 150_000, cached_tokens: 120_000, output_tokens: 500 };
const NEXT: ResponsesUsage = { input_tokens: 160_000, cached_tokens: 150_000, output_tokens: 40 };

describe('Codex CLI 0.169.0 with wmem hooks', () => {
  it('sends the memory part as a developer message, then a meter with the usage the mock reported against the window Codex reported', () =>
    withWorld(async (world) => {
      await world.installWmem();
      world.mock.usage = BIG;
      const first = await world.codex('Start on the task: make the parser accept empty input.');
      expect(first.exitCode).toBe(0);
      const texts = wmemDeveloperTexts(firstRequest(first));
      expect(texts.some((t) => t.includes('<working_memory>'))).toBe(true);
      const firstMeta = metaOf(firstRequest(first)).figures;
      observed.firstMeta = firstMeta;
      // Before any response: an estimate, but already in the window the turn started with.
      expect(firstMeta.tokens_source).toBe('estimate');
      const started = (await world.rollout(first.threadId)).find((l) => l.payload?.type === 'task_started');
      expect(firstMeta.tokens_max).toBe(started.payload.model_context_window);

      world.mock.usage = NEXT;
      const second = await world.codex('Go on with the next step.', { resume: first.threadId });
      expect(second.exitCode).toBe(0);
      const meta = metaOf(firstRequest(second));
      observed.secondMeta = meta.figures;
      observed.secondHint = meta.text;
      expect(meta.figures.tokens_used).toBe(used(BIG));
      expect(meta.figures.tokens_source).toBe('usage');
      // The window is the one Codex itself reported with the usage (model_context_window).
      const rollout = await world.rollout(first.threadId);
      const windows = rollout.filter((l) => l.payload?.type === 'token_count').map((l) => l.payload.info.model_context_window);
      expect(meta.figures.tokens_max).toBe(windows.at(-1));
      expect(meta.figures.model).toBe('gpt-5.1');
      expect(meta.text).toContain('/compact');
      const overview = meta.text.match(/(\/\S*\/working-memory\/overview\.md)/)?.[1];
      expect(overview && overview.startsWith(world.wmemHome + path.sep)).toBe(true);
      expect(existsSync(overview!)).toBe(true);

      // `wmem status` in the project: the last response's usage, read from the rollout.
      const status = await sessionStatus(world);
      observed.status = { tokens_used: status.tokens_used, tokens_source: status.tokens_source, tokens_max: status.tokens_max, tokens_max_source: status.tokens_max_source };
      expect(status.session).toBe(first.threadId);
      expect(status.tokens_used).toBe(used(NEXT));
      expect(status.tokens_source).toBe('usage');
      expect(status.tokens_max).toBe(windows.at(-1));
    }));

  it('tracks a command; a failing one becomes an open error, from the exit code in the rollout', () =>
    withWorld(async (world) => {
      await world.installWmem();
      const ok = await world.codex('Check: [[exec: ls]]');
      expect(ok.exitCode).toBe(0);
      const failing = await world.codex('Run the tests: [[exec: node -e "console.error(\'AssertionError: expected 1 to be 2\'); process.exit(3)"]]', { resume: ok.threadId });
      expect(failing.exitCode).toBe(0);
      const status = await sessionStatus(world);
      const hot = JSON.parse(await readFile(path.join(status.path, 'state', 'hot.json'), 'utf8'));
      observed.hotState = hot;
      expect(hot.seq).toBeGreaterThanOrEqual(2);
      expect(hot.errors).toEqual([expect.objectContaining({ summary: expect.stringContaining('AssertionError: expected 1 to be 2'), command: expect.stringContaining('process.exit(3)') })]);
      // The next prompt's memory part shows it to the model.
      const next = await world.codex('What is open?', { resume: ok.threadId });
      expect(allText(firstRequest(next))).toContain('AssertionError: expected 1 to be 2');
    }));

  it('on an auto-compaction archives the rollout byte for byte, keeps the summary and gives the memory back', () =>
    withWorld(async (world) => {
      await world.installWmem();
      world.mock.usage = { input_tokens: 250_000, cached_tokens: 1000, output_tokens: 30 };
      world.mock.replyText = 'Summary: the user asked for echo; it ran. Nothing pending.';
      const run = await world.codex('Run it: [[exec: echo hi]]', { config: ['model_auto_compact_token_limit=1500'] });
      expect(run.exitCode).toBe(0);
      const rollout = await readFile(world.rolloutPath(run.threadId), 'utf8');
      const lines = rollout.split('\n');
      expect(lines.some((l) => l.includes('"type":"compacted"'))).toBe(true);
      const status = await sessionStatus(world);
      // PreCompact archived what the rollout held then: a byte-for-byte prefix of it.
      const archiveDir = path.join(status.path, 'working-memory', 'archive');
      const archives = readdirSync(archiveDir).filter((n) => n.endsWith('.jsonl'));
      observed.archives = readdirSync(archiveDir);
      expect(archives.length).toBeGreaterThan(0);
      const archived = await readFile(path.join(archiveDir, archives[0]), 'utf8');
      expect(archived.length).toBeGreaterThan(0);
      expect(rollout.startsWith(archived)).toBe(true);
      // PostCompact kept Codex's summary (read from the compacted line) in detail/.
      const overview = await readFile(path.join(status.path, 'working-memory', 'overview.md'), 'utf8');
      observed.recent = overview.split('\n').filter((l) => /compacted the conversation/.test(l));
      expect(overview).toMatch(/Codex CLI compacted the conversation \(auto\)/);
      const detailDir = path.join(status.path, 'working-memory', 'detail');
      const details = readdirSync(detailDir).filter((n) => n.includes('compact-summary'));
      expect(details.length).toBe(1);
      expect(await readFile(path.join(detailDir, details[0]), 'utf8')).toContain('Summary: the user asked for echo');
      // SessionStart(compact) gave the memory back: the request after the compaction carries it.
      const requests = run.requests.filter((r) => r.path.endsWith('/responses'));
      const summaryRequest = requests.findIndex((r) => /CONTEXT CHECKPOINT COMPACTION/.test(allText(r)));
      expect(summaryRequest).toBeGreaterThan(0);
      const after = requests[summaryRequest + 1];
      expect(after).toBeDefined();
      expect(wmemDeveloperTexts(after).some((t) => t.includes('<working_memory>'))).toBe(true);
    }));

  it('on a compaction before the next turn (a resume over the limit) archives, then gives the memory back in the request', () =>
    withWorld(async (world) => {
      await world.installWmem();
      world.mock.usage = { input_tokens: 250_000, cached_tokens: 1000, output_tokens: 30 };
      const config = ['model_auto_compact_token_limit=1500'];
      const first = await world.codex('Hello.', { config });
      expect(first.exitCode).toBe(0);
      const second = await world.codex('Again.', { resume: first.threadId, config });
      expect(second.exitCode).toBe(0);
      const requests = second.requests.filter((r) => r.path.endsWith('/responses'));
      const summary = requests.findIndex((r) => /CONTEXT CHECKPOINT COMPACTION/.test(allText(r)));
      expect(summary).toBe(0);
      const status = await sessionStatus(world);
      const archives = readdirSync(path.join(status.path, 'working-memory', 'archive')).filter((n) => n.endsWith('.jsonl'));
      expect(archives).toHaveLength(1);
      const rollout = await readFile(world.rolloutPath(first.threadId), 'utf8');
      expect(rollout.startsWith(await readFile(path.join(status.path, 'working-memory', 'archive', archives[0]), 'utf8'))).toBe(true);
      // The prompt's request after the compaction carries the memory part again.
      const texts = wmemDeveloperTexts(requests[1]);
      observed.afterPreTurnCompaction = texts.map((t) => t.slice(0, 80));
      expect(texts.some((t) => t.includes('<working_memory>'))).toBe(true);
    }));

  it('runs no wmem hook until trusted; doctor says so; trusted as the TUI records it, they run without the bypass flag', () =>
    withWorld(async (world) => {
      await world.installWmem();
      const untrusted = await world.codex('Hello.', { trusted: false });
      expect(untrusted.exitCode).toBe(0);
      expect(wmemDeveloperTexts(firstRequest(untrusted))).toEqual([]);
      const doctor = await world.wmem(['doctor']);
      observed.doctorUntrusted = String(doctor.stdout).split('\n').filter((l) => /trust/.test(l));
      expect(String(doctor.stdout)).toMatch(/installed, not trusted: .*hooks\.json/);

      // The keys Codex reports are the ones doctor computes; trusting them all lets the hooks run.
      const listed = await world.hooksList();
      observed.hookKeys = listed.map((h) => `${h.key} ${h.trustStatus}`);
      expect(listed.map((h) => h.trustStatus)).toEqual(listed.map(() => 'untrusted'));
      await world.trustAllHooks();
      expect((await world.hooksList()).map((h) => h.trustStatus)).toEqual(listed.map(() => 'trusted'));
      const trusted = await world.codex('Hello again.', { trusted: false });
      expect(wmemDeveloperTexts(firstRequest(trusted)).some((t) => t.includes('<working_memory>'))).toBe(true);
      const after = await world.wmem(['doctor']);
      expect(String(after.stdout)).not.toMatch(/not trusted/);
    }));

  it("runs wmem's trusted hooks in an app-server turn (the TUI's and IDEs' path) and reports each one's duration", () =>
    withWorld(async (world) => {
      await world.installWmem();
      await world.trustAllHooks();
      const turn = await world.appServerTurn('Check: [[exec: ls]]');
      const ours = turn.hookRuns.filter((r) => r.sourcePath === world.hooksPath);
      observed.appServerHookRuns = ours.map((r) => ({ event: r.eventName, status: r.status, durationMs: r.durationMs }));
      for (const r of ours) ((observed.codexDurations ??= {}) as Record<string, number[]>)[r.eventName] = [...((observed.codexDurations as Record<string, number[]>)[r.eventName] ?? []), Number(r.durationMs)];
      expect(ours.map((r) => r.eventName)).toEqual(expect.arrayContaining(['sessionStart', 'userPromptSubmit', 'postToolUse']));
      expect(ours.filter((r) => r.status !== 'completed')).toEqual([]);
      const [first] = turn.requests.filter((r) => r.path.endsWith('/responses'));
      expect(wmemDeveloperTexts(first).some((t) => t.includes('<working_memory>'))).toBe(true);
      process.stderr.write(`[codex] hook durations as Codex reports them (app-server hook/completed, ms): ${JSON.stringify(observed.appServerHookRuns)}\n`);
    }));

  it("reads project hooks only in a project Codex trusts; doctor says so until `codex exec --trust`", () =>
    withWorld(async (world) => {
      await world.installWmem(['--scope', 'project']);
      const before = await world.codex('Hello.');
      expect(wmemDeveloperTexts(firstRequest(before))).toEqual([]);
      const doctor = String((await world.wmem(['doctor'])).stdout);
      observed.doctorUntrustedProject = doctor.split('\n').filter((l) => /trusted project/.test(l));
      expect(doctor).toContain(`${world.project} is not a trusted project in Codex`);
      const trusted = await world.codex('Hello again.', { args: ['--trust'] });
      expect(wmemDeveloperTexts(firstRequest(trusted)).some((t) => t.includes('<working_memory>'))).toBe(true);
      expect(String((await world.wmem(['doctor'])).stdout)).not.toContain('is not a trusted project');
    }));

  it('uninstall leaves hooks.json as it was', () =>
    withWorld(async (world) => {
      const mine = JSON.stringify({ hooks: { Stop: [{ hooks: [{ type: 'command', command: 'true', timeout: 5 }] }] } }, null, 2) + '\n';
      await writeFile(world.hooksPath, mine);
      await world.installWmem();
      expect(await readFile(world.hooksPath, 'utf8')).not.toBe(mine);
      const run = await world.codex('Hello.');
      expect(wmemDeveloperTexts(firstRequest(run)).length).toBeGreaterThan(0);
      const removed = await world.wmem(['uninstall', 'codex']);
      expect(removed.exitCode).toBe(0);
      expect(await readFile(world.hooksPath, 'utf8')).toBe(mine);
      const again = await world.codex('Hello.');
      expect(wmemDeveloperTexts(firstRequest(again))).toEqual([]);
    }));
});
