// The hook driver is agent-neutral: a second agent with its own event names, input and answer
// shape plugs in through an adapter alone, and the same moment handlers serve it (against a real
// temporary home). The adapter here is a test's own; the real ones are held to the contract in
// adapters.test.ts and proven end to end with their clients.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtemp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { eventByName, type AgentAdapter, type AgentEvent } from '../../src/agents/adapter.js';
import { parseHookJson } from '../../src/agents/hook-json.js';
import { toolEventFrom } from '../../src/agents/claude/protocol.js';
import { claudeConfig } from '../../src/agents/claude/config.js';
import { hookWith } from '../../src/app/hook.js';
import type { AppEnv } from '../../src/app/env.js';

const EVENTS: AgentEvent[] = [
  { name: 'Begin', moment: 'session-start' },
  { name: 'Ask', moment: 'prompt' },
  { name: 'ToolDone', moment: 'tool-done' },
  { name: 'Squash', moment: 'before-compact', speculative: true },
  { name: 'Noise', moment: 'ignore' },
  { name: 'Bye', moment: 'session-end' },
];
const eventFor = (name: string) => eventByName(EVENTS, name);

/** An agent whose answer is `{"context": …}` and only at the start and on a prompt. */
const probe: AgentAdapter = {
  id: 'probe',
  aliases: [],
  displayName: 'Probe',
  metaName: 'probe-agent',
  events: EVENTS,
  eventFor,
  parseInput: (text, event) => {
    const { input, raw } = parseHookJson(text, event, { id: 'probe', displayName: 'Probe', eventFor });
    // Token use reported in the input itself (as OpenCode's plugin does: it has no transcript file).
    if (typeof raw.tokens === 'number') input.usage = { lastUsage: raw.tokens, window: 64_000 };
    return input;
  },
  toolEvent: (input, root) => toolEventFrom(input, root),
  answer: {
    contextCap: 20_000,
    answer: (input, text) => (input.moment === 'session-start' || input.moment === 'prompt' ? { context: text } : undefined),
  },
  config: claudeConfig,
};

let root: string;
let env: AppEnv;
const SID = 'probe-1';

beforeEach(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'wmem-driver-'));
  await mkdir(path.join(root, 'project'));
  env = { home: path.join(root, 'home'), cwd: path.join(root, 'project'), env: {}, now: () => new Date('2026-11-25T08:00:00Z') };
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const fire = (event: string, fields: Record<string, unknown> = {}) =>
  hookWith(probe, { event, readInput: async () => JSON.stringify({ session_id: SID, cwd: env.cwd, hook_event_name: event, ...fields }) }, env);

function expectSilentFailure(answer: { ok: boolean; output?: unknown }): void {
  expect(answer.ok).toBe(false);
  expect(answer.output).toBeUndefined();
}

async function sessionDir(): Promise<string> {
  const projects = path.join(env.home, 'sessions');
  const { readdir } = await import('node:fs/promises');
  const [project] = await readdir(projects);
  return path.join(projects, project!, SID);
}

describe('the hook driver with a second agent', () => {
  it('starts the session the agent names, records it as that agent, and answers in its shape', async () => {
    const start = await fire('begin', { source: 'startup' });
    expect(start.ok).toBe(true);
    expect((start.output as { context: string }).context).toMatch(/^<working_memory>/);
    const dir = await sessionDir();
    expect(JSON.parse(await readFile(path.join(dir, 'meta.json'), 'utf8')).agent).toBe('probe-agent');
    expect(JSON.parse(await readFile(path.join(dir, 'state', 'probe-hooks.json'), 'utf8'))).toMatchObject({ started: true });
    const fired = JSON.parse(await readFile(path.join(env.home, 'logs', 'hooks-last', 'probe-Begin.json'), 'utf8'));
    expect(fired).toMatchObject({ event: 'probe-Begin', ok: true, session: SID });
  });

  it('answers a prompt with the meta part (an estimate: this agent has no transcript reader)', async () => {
    await fire('Begin');
    const ask = await fire('Ask', { prompt: 'fix the build' });
    const text = (ask.output as { context: string }).context;
    expect(text).toContain('<context_meta>');
    expect(text).not.toContain('<working_memory>');
    expect(ask.note).toMatch(/tokens_used \d+, estimate/);
  });

  it('takes the token use an agent reports in its input when it has no transcript', async () => {
    await fire('Begin');
    const ask = await fire('Ask', { tokens: 12_345 });
    expect(ask.note).toMatch(/tokens_used 12345, usage; tokens_max 64000, agent/);
  });

  it('tracks a tool event and answers nothing; an ignored event does nothing', async () => {
    await fire('Begin');
    const tool = await fire('ToolDone', { tool_name: 'Edit', tool_input: { file_path: path.join(env.cwd, 'src', 'a.ts') } });
    expect(tool).toMatchObject({ ok: true, output: undefined });
    const hot = JSON.parse(await readFile(path.join(await sessionDir(), 'state', 'hot.json'), 'utf8'));
    expect(JSON.stringify(hot)).toContain('src/a.ts');
    expect(await fire('Noise')).toMatchObject({ ok: true, output: undefined, note: 'Noise: nothing to do' });
  });

  it('archives on a speculative before-compact, but takes it for no compaction', async () => {
    await fire('Begin');
    const transcript = path.join(root, 'chat.jsonl');
    await writeFile(transcript, '{"type":"user","text":"one"}\n{"type":"model","text":"two"}\n');
    const squash = await fire('Squash', { transcript_path: transcript, trigger: 'auto' });
    expect(squash.ok).toBe(true);
    expect(squash.note).toMatch(/archived 2 lines .*speculative: no compaction assumed/);
    const state = JSON.parse(await readFile(path.join(await sessionDir(), 'state', 'probe-hooks.json'), 'utf8'));
    expect(state.lastArchive).toBeUndefined();
    expect((await fire('Squash', { transcript_path: transcript })).note).toMatch(/nothing new to archive/);
  });

  it('fails silently and logs: an unknown agent, an event it does not have, input that is not JSON', async () => {
    const unknown = await hookWith(undefined, { agent: 'nobody', event: 'Begin', readInput: async () => '{}' }, env);
    expectSilentFailure(unknown);
    expectSilentFailure(await fire('Stop'));
    const bad = await hookWith(probe, { event: 'Ask', readInput: async () => '{oops' }, env);
    expectSilentFailure(bad);
    const log = await readFile(path.join(env.home, 'logs', 'hooks.log'), 'utf8');
    expect(log).toMatch(/unsupported hook event "Stop" \(wmem answers Begin, Ask/);
    expect(log).toMatch(/probe-Ask error: hook input is not JSON/);
    expect(log).toMatch(/unknown agent "nobody"/);
  });
});
