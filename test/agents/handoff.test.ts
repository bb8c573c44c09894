// Continuity across sessions with the real clients (issue 22, SPEC §14): run 1 is a session that
// got a task, a progress line and a decision (set with wmem from outside, as a person or the agent
// would); run 2 is a NEW session (not a resume) in the same project. Its first model request, as
// the mock recorded it, must hold the previous task, progress and decision, once each, inside the
// <previous_session> block. The block each client sent is kept in <cache>/last-handoff-report.json.
import { afterAll, describe, expect, inject, it } from 'vitest';
import { readdirSync, statSync, utimesSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { World } from './helpers/claude-world.js';
import { CodexWorld } from './helpers/codex-world.js';
import { GeminiWorld } from './helpers/gemini-world.js';
import { OpenCodeWorld } from './helpers/opencode-world.js';
import { allText as claudeText, conversationRequests } from './helpers/requests.js';
import { allText as codexText } from './helpers/responses-mock.js';
import { allText as geminiText, unescaped } from './helpers/gemini-mock.js';
import { chatMessages } from './helpers/openai-chat-mock.js';
import { countOf } from './helpers/requests.js';
import { cacheRoot } from './helpers/install-claude.js';
import type { Result } from 'execa';

const TASK = 'Port the billing API to v2; done when the contract tests pass';
const PROGRESS = 'invoices endpoint ported, charges next';
const DECISION = 'idempotency keys on every POST to charges, because clients retry';
const HOURS_AGO = 14;

const blocks: Record<string, string> = {};

afterAll(async () => {
  await writeFile(path.join(cacheRoot(), 'last-handoff-report.json'), JSON.stringify(blocks, null, 2) + '\n').catch(() => {});
});

interface Wmem {
  wmem(args: string[]): Promise<Result>;
  wmemHome: string;
}

async function ok(world: Wmem, args: string[]): Promise<string> {
  const result = await world.wmem(args);
  expect(result.exitCode, `wmem ${args.join(' ')}: ${result.stderr}`).toBe(0);
  return String(result.stdout);
}

/** Every file of a folder dated `ms` back: the session looks as it would the next morning. */
function backdate(dir: string, ms: number): void {
  const when = new Date(Date.now() - ms);
  for (const name of readdirSync(dir)) {
    const file = path.join(dir, name);
    if (statSync(file).isDirectory()) backdate(file, ms);
    utimesSync(file, when, when);
  }
}

/** After run 1: its session gets the task, progress and decision, and is dated 14 h back. */
async function fillFirstSession(world: Wmem): Promise<string> {
  const status = JSON.parse(await ok(world, ['status', '--json']));
  const id = String(status.session);
  await ok(world, ['--session', id, 'set', 'task', TASK]);
  await ok(world, ['--session', id, 'append', 'progress', `- ${PROGRESS}`]);
  await ok(world, ['--session', id, 'note', '--importance', '0.9', '--tag', 'decisions', DECISION]);
  backdate(String(status.path), HOURS_AGO * 3_600_000);
  return id;
}

function handoffBlock(text: string): string {
  const found = [...text.matchAll(/<previous_session>\n([\s\S]*?)\n<\/previous_session>/g)];
  expect(found.length, `one <previous_session> block in: ${text.slice(0, 3000)}`).toBe(1);
  return found[0][1];
}

/** The previous session's state is in the new session's first request, once each, in the block. */
function checkFirstRequest(agent: string, text: string, firstId: string, secondId: string): void {
  expect(secondId).not.toBe(firstId);
  const block = handoffBlock(text);
  blocks[agent] = block;
  expect(block).toContain(firstId);
  expect(block).toContain(`last active ${HOURS_AGO} h ago`);
  for (const needle of [TASK, PROGRESS, DECISION]) {
    expect(countOf(block, needle), `${needle} in the block`).toBe(1);
    expect(countOf(text, needle), `${needle} in the whole request`).toBe(1);
  }
}

async function hookErrors(world: Wmem): Promise<string[]> {
  const log = await readFile(path.join(world.wmemHome, 'logs', 'hooks.log'), 'utf8').catch(() => '');
  return log.split('\n').filter((l) => / error: /.test(l));
}

/** One agent's run: its exit, its session id when the client says it, the first request's text. */
interface Turn {
  exitCode: number | undefined;
  stderr: string;
  id?: string;
  firstRequest: () => string;
}

/** Run 1, its session filled from outside, then run 2 as a new session: the check on run 2's first request. */
async function twoSessions(agent: string, world: Wmem & { cleanup(): Promise<void> }, turn: (prompt: string) => Promise<Turn>): Promise<void> {
  try {
    const first = await turn('Start on the billing port.');
    expect(first.exitCode, first.stderr.slice(-1500)).toBe(0);
    const firstId = await fillFirstSession(world);
    if (first.id) expect(firstId).toBe(first.id);
    const second = await turn('Carry on where we stopped.');
    expect(second.exitCode, second.stderr.slice(-1500)).toBe(0);
    const secondId = second.id ?? String(JSON.parse(await ok(world, ['status', '--json'])).session);
    checkFirstRequest(agent, second.firstRequest(), firstId, secondId);
    expect(await hookErrors(world)).toEqual([]);
  } finally {
    await world.cleanup();
  }
}

// Two real runs each, on a loaded 2-core box: generous room beyond the suite's default.
describe('a new session starts with a handoff from the previous one, on every agent', { timeout: 900_000 }, () => {
  it('Claude Code 2.1.328', async () => {
    const world = await World.create(inject('claudeBin'));
    await twoSessions('claude', world, async (prompt) => {
      const run = await world.claude(prompt);
      return { ...run, id: run.sessionId, firstRequest: () => claudeText(conversationRequests(run.requests)[0]) };
    });
  });

  it('Codex CLI 0.169.0', async () => {
    const world = await CodexWorld.create(inject('codexBin'));
    await world.installWmem();
    await twoSessions('codex', world, async (prompt) => {
      const run = await world.codex(prompt);
      return { ...run, id: run.threadId, firstRequest: () => codexText(run.requests.filter((r) => r.path.endsWith('/responses'))[0]) };
    });
  });

  it('Gemini CLI 0.61.0', async () => {
    const world = await GeminiWorld.create(inject('geminiEntry'));
    await world.installWmem();
    await twoSessions('gemini', world, async (prompt) => {
      const run = await world.gemini(prompt);
      return { ...run, firstRequest: () => unescaped(geminiText(run.requests.filter((r) => r.kind === 'stream')[0])) };
    });
  });

  it('OpenCode 1.18.33', async () => {
    const world = await OpenCodeWorld.create(inject('opencodeBin'));
    await world.installWmem();
    await twoSessions('opencode', world, async (prompt) => {
      const run = await world.opencode(prompt);
      // The first request that carries the memory part (a title request, if any, carries none).
      const texts = run.requests.map((r) => chatMessages(r).map((m) => m.text).join('\n'));
      return { ...run, firstRequest: () => texts.find((t) => t.includes('<working_memory>')) ?? texts.join('\n') };
    });
  });
});
