// The real Claude Code (pinned, installed by the suite's setup) against a loopback mock of the
// Messages API, with wmem's hooks installed by the built wmem. Each check is what a user would
// see: what the client sends the model, what `wmem status` says, what lands on disk.
import { afterAll, describe, expect, inject, it } from 'vitest';
import { existsSync, readdirSync } from 'node:fs';
import { readFile, writeFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { World, type ClaudeRun } from './helpers/claude-world.js';
import type { Usage } from './helpers/anthropic-mock.js';
import { allText, contextMetas, conversationRequests, copiesByHook, countOf, sentMessages, type ContextMeta } from './helpers/requests.js';
import type { HookTiming } from './helpers/debug-log.js';
import { cacheRoot } from './helpers/install-claude.js';
import { inWorld } from './helpers/agent-world.js';

const claudeBin = inject('claudeBin');
const timings: HookTiming[] = [];
/** wmem's own time per event (PreCompact, PostCompact and SessionEnd have no client-side figure). */
const wmemTimes = new Map<string, number[]>();
const observed: Record<string, unknown> = {};

function used(u: Usage): number {
  return u.input_tokens + u.cache_creation_input_tokens + u.cache_read_input_tokens;
}

function keep(run: ClaudeRun): ClaudeRun {
  const ours = run.hookTimings.filter((t) => /wmem/.test(t.command));
  timings.push(...ours);
  // The client ran wmem's hooks and each exited 0 (a hook must never block or break the agent).
  expect(ours.length).toBeGreaterThan(0);
  expect(ours.filter((t) => t.status !== 0)).toEqual([]);
  for (const fired of run.wmemFired) wmemTimes.set(fired.event, [...(wmemTimes.get(fired.event) ?? []), fired.ms]);
  return run;
}

async function withWorld<T>(fn: (world: World) => Promise<T>, options?: { tokensMax?: number }): Promise<T> {
  // Every hook answered: none failed inside wmem (a failure is silent to the client, logged by wmem).
  return inWorld(() => World.create(claudeBin, options), observed, fn, (errors) => expect(errors, errors.join('\n')).toEqual([]), async (world) => {
    // Anything the client asked the mock besides messages (none was seen with nonessential traffic off).
    for (const r of world.mock.requests) if (r.path !== '/v1/messages') ((observed.otherRequests ??= []) as string[]).push(`${r.method} ${r.path} → ${r.answered}`);
  });
}

/** The first conversation request of a run: the one the current prompt's hooks fed. */
function promptRequest(run: ClaudeRun) {
  const [first] = conversationRequests(run.requests);
  if (!first) throw new Error(`the run sent no request to the mock (exit ${run.exitCode}): ${run.stderr.slice(0, 500)}`);
  return first;
}

/** The context_meta of the current prompt: the last one in the run's first request. */
function currentMeta(run: ClaudeRun): ContextMeta {
  const metas = contextMetas(promptRequest(run));
  if (!metas.length) throw new Error(`no <context_meta> in the request; system entries: ${sentMessages(promptRequest(run)).filter((m) => m.role === 'system').map((m) => m.text.slice(0, 300)).join(' | ')}`);
  return metas[metas.length - 1];
}

/** The window the client itself uses for the model it ran: its JSON result's modelUsage. */
function clientWindow(run: ClaudeRun): { model: string; contextWindow: number } {
  const usage = run.result.modelUsage as Record<string, { contextWindow: number }>;
  const model = String(promptRequest(run).body.model);
  const entry = usage[model] ?? Object.values(usage)[0];
  return { model: usage[model] ? model : Object.keys(usage)[0], contextWindow: entry.contextWindow };
}

function resultModel(run: ClaudeRun): string {
  return Object.keys(run.result.modelUsage ?? {})[0];
}

// 250,000 tokens in use: the case, shown as 125 % and "compact now" against an assumed 200,000
// while the client's default model has 1,000,000 (and compacts only near its 980,000 effective window).
const BIG: Usage = { input_tokens: 52_000, cache_creation_input_tokens: 3_100, cache_read_input_tokens: 194_900, output_tokens: 80 };
const MEDIUM: Usage = { input_tokens: 31_000, cache_creation_input_tokens: 2_000, cache_read_input_tokens: 117_000, output_tokens: 60 };
const NEXT: Usage = { input_tokens: 3_000, cache_creation_input_tokens: 500, cache_read_input_tokens: 120_000, output_tokens: 40 };

describe('Claude Code 2.1.328 with wmem hooks', () => {
  it('sends the memory part, then a meter that reads the mock usage against the client window, with /compact and real paths', () =>
    withWorld(async (world) => {
      world.mock.usage = BIG;
      const first = keep(await world.claude('Start on the task: make the parser accept empty input.'));
      expect(first.exitCode).toBe(0);
      const firstRequest = promptRequest(first);
      const systemEntries = sentMessages(firstRequest).filter((m) => m.role === 'system');
      // The hook's additional context reaches the model as a role:"system" entry of messages.
      expect(systemEntries.some((m) => m.text.includes('<working_memory>'))).toBe(true);
      const firstMeta = currentMeta(first);
      observed.firstPromptMeta = firstMeta.figures;
      // Before any response there is no usage to read: a count there is an estimate and says so.
      expect(firstMeta.figures.tokens_source).toBe('estimate');

      world.mock.usage = NEXT;
      const second = keep(await world.claude('Go on with the next step.', { resume: first.sessionId }));
      expect(second.exitCode).toBe(0);
      const meta = currentMeta(second);
      observed.secondPromptMeta = meta.figures;
      observed.secondPromptHint = meta.text;
      const window = clientWindow(first);
      observed.clientWindow = window;
      expect(meta.figures.tokens_used).toBe(used(BIG));
      expect(meta.figures.tokens_source).toBe('usage');
      expect(meta.figures.tokens_max).toBe(window.contextWindow);
      expect(meta.figures.tokens_max_source).toBe('model');
      expect(meta.figures.model).toBe(resultModel(first));
      expect(meta.figures.tokens_percent).toBe(Math.round((used(BIG) / window.contextWindow) * 100));
      expect(meta.text).not.toMatch(/compact now/i);

      // The hint names what compacts a Claude Code session and where the overview really is.
      expect(meta.text).toContain('/compact');
      expect(meta.text).not.toMatch(/wmem compact/);
      const overview = meta.text.match(/(\/\S*\/working-memory\/overview\.md)/)?.[1];
      expect(overview, meta.text).toBeDefined();
      expect(overview!.startsWith(world.wmemHome + path.sep)).toBe(true);
      expect(existsSync(overview!)).toBe(true);

      // `wmem status` in the project gives the figure the hook would give now: the last response's usage.
      const status = await world.wmemJson(['status']);
      observed.status = { tokens_used: status.tokens_used, tokens_source: status.tokens_source, tokens_max: status.tokens_max, tokens_max_source: status.tokens_max_source, model: status.model };
      expect(status.session).toBe(first.sessionId);
      expect(status.tokens_used).toBe(used(NEXT));
      expect(status.tokens_source).toBe('usage');
      expect(status.tokens_max).toBe(window.contextWindow);

      // A resume with unchanged memory: the request holds the first copy of the memory part only.
      const resumed = allText(promptRequest(second));
      observed.workingMemoryCopiesAfterResume = copiesByHook(promptRequest(second), '<working_memory>');
      const resumeSystem = sentMessages(promptRequest(second)).filter((m) => m.role === 'system').at(-1)?.text ?? '';
      const pointer = resumeSystem.match(/SessionStart hook additional context: ([\s\S]*?)(?:\n\n|$)/)?.[1];
      observed.resumeSessionStartContext = pointer?.slice(0, 600);
      // wmem answered the resume with a short pointer naming the real files. (The client drops a
      // SessionStart text identical to an earlier one by itself, so the count above alone would not
      // tell wmem's pointer from that.)
      expect(pointer, 'the resume request has no SessionStart context of its own').toBeDefined();
      expect(pointer!.length).toBeLessThan(1000);
      expect(pointer).toContain(overview!);
      expect(countOf(resumed, '<working_memory>')).toBe(1);
    }));

  const MODELS = ['claude-sonnet-4-5', 'claude-haiku-4-5', 'claude-opus-4-5', 'claude-opus-4-6', 'claude-sonnet-4-5[1m]', 'haiku'];
  it.each(MODELS)('tokens_max is the window the client uses for --model %s', (model) =>
    withWorld(async (world) => {
      // A real 200K model never reports more than 200K in use (more would prove the [1m] variant).
      const usage = /\[1m\]$|^(?:opus|sonnet|haiku)$/.test(model) ? BIG : MEDIUM;
      world.mock.usage = usage;
      const first = keep(await world.claude('Say hello.', { model }));
      const second = keep(await world.claude('And again.', { resume: first.sessionId, model }));
      const meta = currentMeta(second).figures;
      const window = clientWindow(first);
      (observed.models ??= {}) as Record<string, unknown>;
      (observed.models as Record<string, unknown>)[model] = { client: window, requestModel: promptRequest(first).body.model, meta };
      expect(meta.tokens_used).toBe(used(usage));
      expect(meta.tokens_max).toBe(window.contextWindow);
      expect(meta.tokens_max_source).toBe('model');
    }),
  );

  it('a [1m] session is measured against 1,000,000 before its context outgrows the base window', () =>
    withWorld(async (world) => {
      // The client sends the base id to the API (and the transcript's message.model lacks the suffix);
      // the transcript keeps the asked-for id in each assistant line's requestedModel.
      world.mock.usage = MEDIUM;
      const model = 'claude-sonnet-4-5[1m]';
      const first = keep(await world.claude('Say hello.', { model }));
      const second = keep(await world.claude('And again.', { resume: first.sessionId, model }));
      const meta = currentMeta(second).figures;
      const window = clientWindow(first);
      observed.oneMillionUnder200k = { client: window, meta };
      expect(window.contextWindow).toBe(1_000_000);
      expect(meta.tokens_used).toBe(used(MEDIUM));
      expect(meta.tokens_max).toBe(1_000_000);
    }));

  it('install --tokens-max N sets the window for the sessions the hooks serve', () =>
    withWorld(
      async (world) => {
        world.mock.usage = BIG;
        const first = keep(await world.claude('Say hello.'));
        const second = keep(await world.claude('And again.', { resume: first.sessionId }));
        const meta = currentMeta(second).figures;
        observed.tokensMaxSetting = meta;
        expect(meta.tokens_max).toBe(150_000);
        expect(meta.tokens_max_source).toBe('setting');
        expect(meta.tokens_used).toBe(used(BIG));
      },
      { tokensMax: 150_000 },
    ));

  it('a failed Bash command is an open error keyed by its real first line; different failures stay apart', () =>
    withWorld(async (world) => {
      // A test run by its command (`vitest`, a no-op here) whose output has no line a summary pattern
      // knows: only skipping the client's "Exit code 1" header tells the two failures apart.
      const alpha = ": vitest run src/alpha.test.ts; printf 'src/alpha.test.ts > parses empty input: expected 1 to be 0\\n' >&2; exit 1";
      const beta = ": vitest run src/beta.test.ts; printf 'src/beta.test.ts > keeps the order: expected [2,1] to equal [1,2]\\n' >&2; exit 1";
      const first = keep(await world.claude(`Run the alpha test. [[bash: ${alpha}]]`));
      keep(await world.claude(`Now the beta test. [[bash: ${beta}]]`, { resume: first.sessionId }));
      keep(await world.claude(`Alpha once more. [[bash: ${alpha}]]`, { resume: first.sessionId }));

      // The premise: the client reports a failed Bash call with an "Exit code 1" header.
      const results = (await readFile(world.transcriptPath(first.sessionId), 'utf8'))
        .split('\n')
        .filter((l) => l.includes('tool_result'))
        .flatMap((l) => JSON.parse(l).message?.content ?? [])
        .filter((b: any) => b?.type === 'tool_result' && b.is_error)
        .map((b: any) => String(b.content));
      expect(results.length).toBe(3);
      expect(results.every((r) => r.startsWith('Exit code 1\nsrc/'))).toBe(true);

      // What the agent is shown: the open errors in the memory part, one line per error.
      const context = await world.wmemJson(['context']);
      const errorLines = String(context.memory).split('\n').filter((l) => /^- \[(?:test|typecheck|lint|build|runtime)\] /.test(l));
      observed.openErrors = errorLines;
      expect(errorLines).toHaveLength(2);
      expect(errorLines.some((l) => /Exit code/i.test(l))).toBe(false);
      const alphaLine = errorLines.find((l) => l.startsWith('- [test] src/alpha.test.ts > parses empty input: expected 1 to be 0'));
      const betaLine = errorLines.find((l) => l.startsWith('- [test] src/beta.test.ts > keeps the order'));
      expect(alphaLine).toMatch(/\b2×/);
      expect(betaLine).toBeDefined();
      expect(betaLine).not.toMatch(/\d×/);
    }));

  it('/compact: PreCompact archives the transcript byte for byte, PostCompact adds a Recent Actions line, the memory comes back whole', () =>
    withWorld(async (world) => {
      const first = keep(await world.claude('List the files. [[bash: echo one two three]]'));
      const transcriptFile = world.transcriptPath(first.sessionId);
      const before = await readFile(transcriptFile);
      const status = await world.wmemJson(['status']);
      const overviewFile = path.join(status.path, 'working-memory', 'overview.md');
      const overviewBefore = await readFile(overviewFile, 'utf8');

      const compact = keep(await world.claude('/compact', { resume: first.sessionId }));
      expect(compact.exitCode).toBe(0);
      expect(compact.requests.some((r) => r.answered === 'summary')).toBe(true);
      const after = await readFile(transcriptFile);
      const boundaryAt = after.indexOf('"subtype":"compact_boundary"');
      expect(boundaryAt).toBeGreaterThan(before.length);

      const archiveDir = path.join(status.path, 'working-memory', 'archive');
      const archives = readdirSync(archiveDir).filter((n) => n.startsWith('transcript-') && n.endsWith('.jsonl'));
      expect(archives).toHaveLength(1);
      const archived = await readFile(path.join(archiveDir, archives[0]));
      observed.archive = { transcriptBytesBefore: before.length, archivedBytes: archived.length, boundaryOffset: after.lastIndexOf(10, boundaryAt) + 1 };
      // Every byte the transcript had before /compact, in order, and nothing that is not in it.
      expect(archived.length).toBeGreaterThanOrEqual(before.length);
      expect(archived.subarray(0, before.length).equals(before)).toBe(true);
      expect(archived.equals(after.subarray(0, archived.length))).toBe(true);

      const overviewAfter = await readFile(overviewFile, 'utf8');
      // The section's lines, its guidance comment aside.
      const recent = (text: string) =>
        (text.split('## Recent Actions')[1] ?? '')
          .split('\n## ')[0]
          .split('\n')
          .filter((l) => l.trim() && !/^\s*<!--.*-->\s*$/.test(l));
      observed.recentActionsAfterCompact = (overviewAfter.split('## Recent Actions')[1] ?? '').split('\n## ')[0].trim();
      expect(recent(overviewAfter).length).toBe(recent(overviewBefore).length + 1);
      expect(recent(overviewAfter).at(-1)).toMatch(/compact/i);

      // PostCompact keeps the client's summary in detail/.
      const detailDir = path.join(status.path, 'working-memory', 'detail');
      const details = await Promise.all(readdirSync(detailDir).map((n) => readFile(path.join(detailDir, n), 'utf8')));
      expect(details.some((d) => d.includes(world.mock.summaryText))).toBe(true);

      // After the compaction the memory part is sent whole again, after the summary.
      const next = keep(await world.claude('Carry on.', { resume: first.sessionId }));
      const messages = sentMessages(promptRequest(next));
      const summaryAt = messages.findIndex((m) => m.text.includes(world.mock.summaryText));
      expect(summaryAt).toBeGreaterThanOrEqual(0);
      const sinceSummary = messages.slice(summaryAt).map((m) => m.text).join('\n');
      observed.memoryCopiesAfterCompact = copiesByHook(promptRequest(next), '<working_memory>');
      const blocks = [...sinceSummary.matchAll(/<working_memory>[\s\S]*?<\/working_memory>/g)].map((m) => m[0]);
      if (blocks.length > 1) observed.memoryCopiesDiffer = blocks[1].split('\n').filter((l) => !blocks[0].includes(l));
      // (A second copy may follow: SessionStart(compact) runs before PostCompact, whose Recent Actions
      // line changes the memory, so the next resume's memory differs from the copy sent. Reported.)
      expect(countOf(sinceSummary, '<working_memory>')).toBeGreaterThanOrEqual(1);
      // Right after a compaction there is no usage yet: the client's own post-compaction figure
      // (compact_boundary's compactMetadata.postTokens) is what the transcript knows (issue point 4).
      const boundaryLine = after.toString('utf8').split('\n').find((l) => l.includes('"subtype":"compact_boundary"'));
      const compactMetadata = JSON.parse(boundaryLine!).compactMetadata;
      const afterMeta = currentMeta(next).figures;
      observed.compactMetadata = { preTokens: compactMetadata.preTokens, postTokens: compactMetadata.postTokens };
      observed.metaAfterCompact = afterMeta;
      expect(afterMeta.tokens_source).not.toBe('usage');
      expect(afterMeta.tokens_used).toBeGreaterThanOrEqual(compactMetadata.postTokens);
    }));
});

afterAll(async () => {
  // The hook times as the client's debug log reports them, and what the checks saw: printed, and
  // kept beside the cached client for the report.
  const byEvent = new Map<string, number[]>();
  const unreported = new Map<string, number>();
  for (const t of timings) {
    const key = t.qualifier ? `${t.event}:${t.qualifier}` : t.event;
    if (t.ms === undefined) unreported.set(key, (unreported.get(key) ?? 0) + 1);
    else byEvent.set(key, [...(byEvent.get(key) ?? []), t.ms]);
  }
  const rows = [...byEvent].map(([key, ms]) => {
    const sorted = [...ms].sort((a, b) => a - b);
    return `${key.padEnd(28)} n=${String(sorted.length).padStart(2)} min=${sorted[0]}ms median=${sorted[Math.floor(sorted.length / 2)]}ms max=${sorted.at(-1)}ms`;
  });
  for (const [key, n] of unreported) rows.push(`${key.padEnd(28)} n=${String(n).padStart(2)} (the client logs no duration for this event)`);
  rows.push('wmem\'s own time inside the hook (its hooks-last record, the last per event and run):');
  for (const [event, ms] of wmemTimes) {
    const sorted = [...ms].sort((a, b) => a - b);
    rows.push(`  ${event.padEnd(26)} n=${String(sorted.length).padStart(2)} min=${sorted[0]}ms median=${sorted[Math.floor(sorted.length / 2)]}ms max=${sorted.at(-1)}ms`);
  }
  const report = { at: new Date().toISOString(), hookTimings: rows, observed };
  console.log(`wmem hooks as Claude Code's debug log times them:\n${rows.join('\n')}\nobserved: ${JSON.stringify(observed, null, 1)}`);
  await mkdir(cacheRoot(), { recursive: true });
  await writeFile(path.join(cacheRoot(), 'last-claude-report.json'), JSON.stringify(report, null, 2) + '\n');
});
