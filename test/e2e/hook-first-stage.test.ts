// The hook's first stage (dist/fast/first-hook.cjs, src/entries/first-hook.ts) answers exactly as
// the whole hook path (dist/fast/fast-hook.cjs) does: two sandboxes, the same sequence of hooks
// (a new session, prompts, tool calls, an overview edit, a resume, another agent, a compaction,
// a session's end), one through
// `wmem hook`, the other through the full entry alone; every answer, every fired record and every
// file of the memory tree after each hook must be the same (the files normalised for the clock,
// the sandbox's path and file stamps). Some hooks name the agent by an alias and the event in
// another spelling, as an agent's config may: they must be routed and answered the same. The
// common events of an existing session must not load the full entry at all, and whatever the first
// stage leaves out (a new session) must reach the full path, not an error.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execa } from 'execa';
import { copyFile, mkdir, readFile, readdir, appendFile, writeFile } from 'node:fs/promises';
import { firedKey } from '../../src/app/hook.js';
import path from 'node:path';
import { BIN, FIXTURES, ROOT, sandbox, type Sandbox } from '../helpers/cli.js';
import { eventKey } from '../../src/agents/adapter.js';
import { AGENTS, findAgent } from '../../src/agents/registry.js';
import { SERVED_MOMENTS } from '../../src/entries/first-hook.js';

const FULL = path.join(ROOT, 'dist', 'fast', 'fast-hook.cjs');
const SID = 'first-stage-5e0c1d2a';
let staged: Sandbox;
let full: Sandbox;

// Records, as the process exits, whether the full entry was loaded (a --require'd file).
const PROBE = `process.on('exit', () => require('node:fs').writeFileSync(process.env.WMEM_TEST_LOADED, String(Object.keys(require.cache).some((f) => f.endsWith('fast-hook.cjs')))));`;

beforeAll(async () => {
  [staged, full] = await Promise.all([sandbox(), sandbox()]);
  for (const box of [staged, full]) {
    await copyFile(path.join(FIXTURES, 'claude-code-log', 'ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl'), path.join(box.root, 'transcript.jsonl'));
    await writeFile(path.join(box.root, 'probe.cjs'), PROBE);
    await copyFile(path.join(FIXTURES, '..', 'codex', 'rollout-failed-command.jsonl'), path.join(box.root, 'rollout.jsonl'));
    await copyFile(path.join(FIXTURES, '..', 'gemini', 'chat-failed-command.jsonl'), path.join(box.root, 'gemini-chat.jsonl'));
    await copyFile(path.join(FIXTURES, '..', 'qwen', 'chat.jsonl'), path.join(box.root, 'qwen-chat.jsonl'));
    // Copilot CLI's events log, where its hook part finds it (its preCompact archives it).
    const copilotState = path.join(box.home, '.copilot', 'session-state', 'first-stage-copilot-7c1e');
    await mkdir(copilotState, { recursive: true });
    await copyFile(path.join(FIXTURES, '..', 'copilot', 'events.jsonl'), path.join(copilotState, 'events.jsonl'));
  }
});
afterAll(async () => Promise.all([staged?.cleanup(), full?.cleanup()]));

/** One hook through `wmem hook` or through the full entry alone; its answer with the sandbox's root as `<root>`. */
async function hook(box: Sandbox, args: string[], payload: Record<string, unknown>) {
  const input = JSON.stringify(payload);
  const loaded = path.join(box.root, 'loaded');
  const env = { PATH: process.env.PATH ?? '', HOME: box.home, NO_COLOR: '1', WMEM_HOME: box.home, WMEM_TEST_LOADED: loaded, NODE_OPTIONS: `--require ${path.join(box.root, 'probe.cjs')}` };
  const command = box === staged ? [BIN, 'hook', ...args] : ['-e', `require(${JSON.stringify(FULL)}).runFast(['node', 'wmem', 'hook', ...process.argv.slice(1)])`, '--', ...args];
  const r = await execa('node', command, { cwd: box.project, input, reject: false, extendEnv: false, timeout: 60_000, env });
  expect(r.exitCode).toBe(0);
  expect(r.stderr).toBe('');
  // The record of the event under its own name, another agent's as `<agent>-<event>.json` (recordFired).
  const named = args.find((a, i) => a.startsWith('--agent=') || args[i - 1] === '--agent')?.replace('--agent=', '');
  const agent = findAgent(named ?? 'claude')!;
  const key = firedKey(agent, agent.eventFor(args[args.length - 1]!)!.name);
  const last = (await readdir(path.join(box.home, 'logs', 'hooks-last'))).find((f) => f === `${key}.json`);
  const fired = JSON.parse(await readFile(path.join(box.home, 'logs', 'hooks-last', last!), 'utf8'));
  const toolCall = ['tool-done', 'tool-failed'].includes(agent.eventFor(args[args.length - 1]!)!.moment);
  return { stdout: norm(box, String(r.stdout)), fired: norm(box, JSON.stringify({ ok: fired.ok, note: fired.note })), fullLoaded: (await readFile(loaded, 'utf8')) === 'true', toolCall };
}

/**
 * The root's own path, and as the project's folder name spells it (store/names.ts encodeCwd); the
 * clock's readings: an archive's name and time, a time to the minute (a compaction's line in the
 * overview), and a handoff's age ("active just now", "3 min ago"). The two sandboxes run the same
 * step a moment apart, so a reading may fall on either side of a minute (more often on a busy machine).
 */
const norm = (box: Sandbox, text: string) =>
  text
    .split(box.root)
    .join('<root>')
    .split(box.root.slice(1).replace(/[/\\:]/g, '-'))
    .join('<root>')
    .replace(/\d{8}T\d{9}Z/g, '<stamp>')
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d(?::\d\d\.\d{3})?Z/g, '<time>')
    .replace(/\b(?:just now|\d+ (?:min|h|d) ago)\b/g, '<age>');

// What differs between two sandboxes however the hook ran: a file's stamp in a key, a cursor or
// the render cache's recall (its files' signatures, kept once they have stood still: app/context.ts)
// (its inode, size and times), a duration; a block's digest, which covers the sandbox's own path
// (the block's text, normalised, is compared instead).
const VOLATILE = new Set(['key', 'recall', 'mtimeMs', 'ctimeMs', 'ino', 'dev', 'ms']);
const stable = (value: unknown): unknown =>
  Array.isArray(value)
    ? value.map(stable)
    : value && typeof value === 'object'
      ? Object.fromEntries(Object.entries(value).filter(([k]) => !VOLATILE.has(k)).map(([k, v]) => [k, stable(v)]))
      : typeof value === 'string' && /^[0-9a-f]{28}$/.test(value)
        ? '<digest>'
        : value;

/**
 * Every file of the sandbox's home but its logs (compared apart), by path, its text normalised.
 * `renders`: with the render cache (state/context-cache.json), which a tool call's first stage
 * leaves to the next prompt to write where the full path renders ahead (docs/context.md).
 */
async function memoryTree(box: Sandbox, renders: boolean, dir = box.home): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory() && full !== path.join(box.home, 'logs')) Object.assign(files, await memoryTree(box, renders, full));
    if (!entry.isFile() || (!renders && entry.name === 'context-cache.json')) continue;
    let text = await readFile(full, 'utf8');
    if (entry.name.endsWith('.json')) text = JSON.stringify(stable(JSON.parse(text)), null, 1);
    files[norm(box, path.relative(box.home, full))] = norm(box, text);
  }
  return files;
}

async function overviewOf(box: Sandbox, sid = SID): Promise<string> {
  const [project] = await readdir(path.join(box.home, 'sessions'));
  return path.join(box.home, 'sessions', project!, sid, 'working-memory', 'overview.md');
}

/** Claude Code's input: the event's own fields besides the session's. */
const claudeInput = (box: Sandbox, fields: Record<string, unknown>) => ({ session_id: SID, transcript_path: path.join(box.root, 'transcript.jsonl'), cwd: box.project, ...fields });

const edit = (box: Sandbox) => ({ tool_name: 'Edit', tool_input: { file_path: path.join(box.project, 'src', 'a.ts'), old_string: 'a', new_string: 'b' }, tool_response: { success: true }, tool_use_id: 't1' });
const failure = { tool_name: 'Bash', tool_input: { command: 'npm test' }, tool_use_id: 't2', error: 'Exit code 1\nFAIL src/a.test.ts', is_interrupt: false };

/** [args, payload, whether the first stage answers it alone] */
type Step = [string[], (box: Sandbox) => Promise<Record<string, unknown>> | Record<string, unknown>, boolean];
const claude = (args: string[], fields: (box: Sandbox) => Promise<Record<string, unknown>> | Record<string, unknown>, alone: boolean): Step => [args, async (box) => claudeInput(box, await fields(box)), alone];
const steps: Step[] = [
  // A new session: the session starts' first stage creates it (the handoff loaded beside it).
  claude(['SessionStart'], () => ({ hook_event_name: 'SessionStart', source: 'startup' }), true),
  claude(['UserPromptSubmit'], () => ({ hook_event_name: 'UserPromptSubmit', prompt: 'first' }), true),
  // The agent and the event as a config may spell them (an alias, `post-tool-use`, `--agent=x`).
  claude(['post-tool-use'], (box) => ({ hook_event_name: 'PostToolUse', ...edit(box) }), true),
  claude(['--agent', 'Claude-Code', 'post_tool_use_failure'], () => ({ hook_event_name: 'PostToolUseFailure', ...failure }), true),
  claude(['--agent=claude-code', 'userpromptsubmit'], () => ({ hook_event_name: 'UserPromptSubmit', prompt: 'after tool calls' }), true),
  // The agent edits its overview by hand, then PostToolUse renders it again.
  claude(
    ['PostToolUse'],
    async (box) => {
      const overview = await overviewOf(box);
      await appendFile(overview, '\n- a line the agent wrote\n');
      return { hook_event_name: 'PostToolUse', tool_name: 'Edit', tool_input: { file_path: overview, old_string: 'x', new_string: 'y' }, tool_response: { success: true }, tool_use_id: 't3' };
    },
    true,
  ),
  claude(['UserPromptSubmit'], () => ({ hook_event_name: 'UserPromptSubmit', prompt: 'after the overview edit' }), true),
  claude(['SessionStart'], () => ({ hook_event_name: 'SessionStart', source: 'resume' }), true),
  // A compaction and a session's end: the stage of their own (first-end.cjs), the consolidation
  // beside it.
  claude(['PreCompact'], () => ({ hook_event_name: 'PreCompact', trigger: 'manual', custom_instructions: '' }), true),
  claude(['pre-compact'], () => ({ hook_event_name: 'PreCompact', trigger: 'auto', custom_instructions: '' }), true),
  claude(['PostCompact'], () => ({ hook_event_name: 'PostCompact', trigger: 'manual', compact_summary: 'Summary: the first stage served the compaction.' }), true),
  // Another agent's prompt in a session Claude Code started: its context reads Claude Code's
  // transcript, whose hook part only Claude Code's first stage holds (each agent's holds its
  // own), so the full path answers.
  claude(['--agent', 'codex', 'UserPromptSubmit'], () => ({ hook_event_name: 'UserPromptSubmit', prompt: 'codex', model: 'gpt-5', turn_id: 'x' }), false),
  claude(['UserPromptSubmit'], () => ({ hook_event_name: 'UserPromptSubmit', prompt: 'after a compaction was archived' }), true),
  claude(['SessionEnd'], () => ({ hook_event_name: 'SessionEnd', reason: 'other' }), true),
  claude(['SessionEnd'], () => ({ hook_event_name: 'SessionEnd', reason: 'other' }), true),
];

/** Each step on both sides: the same answers and records, the full entry loaded only where the step is not served alone. */
async function runSteps(steps: Step[]) {
  for (const [args, payload, alone] of steps) {
    const a = await hook(staged, args, await payload(staged));
    const b = await hook(full, args, await payload(full));
    expect({ step: args, stdout: a.stdout, fired: a.fired }).toEqual({ step: args, stdout: b.stdout, fired: b.fired });
    expect({ step: args, fullLoaded: a.fullLoaded }).toEqual({ step: args, fullLoaded: !alone });
    const files = await memoryTree(staged, !a.toolCall);
    expect(Object.keys(files).filter((f) => /working-memory[/\\]overview\.md$/.test(f)).length).toBeGreaterThan(0);
    expect({ step: args, files }).toEqual({ step: args, files: await memoryTree(full, !a.toolCall) });
  }
  // Nothing went wrong on either side (a miss is never logged as an error).
  for (const box of [staged, full]) await expect(readFile(path.join(box.home, 'logs', 'hooks.log'), 'utf8')).rejects.toThrow();
}

it('answers every hook as the full path does, and alone where it serves the event', { timeout: 300_000 }, async () => {
  await mkdir(path.join(staged.project, 'src'), { recursive: true });
  await runSteps(steps);
});

// Every other agent with hooks: its session's start (new: the full path), its prompts, its tool
// calls (done and failed), the events wmem ignores, and a resume, each answered as the full path
// answers it; every event of it the first stage serves must be among them, so that a new agent
// (or a new event) cannot be left to the full path unnoticed.
const sid = (agent: string) => `first-stage-${agent}-7c1e`;
/** An event's name as a config may spell it instead: `post-tool-use` for PostToolUse, upper case for `tool.execute.after`. */
const otherSpelling = (event: string) => (/[a-z][A-Z]/.test(event) ? event.replace(/([a-z])([A-Z])/g, '$1-$2').toLowerCase() : event.toUpperCase());
/** A tool call's input in the agent's own shape, `ok` or failed. */
type Inputs = { args: (event: string) => string[]; input: (box: Sandbox, event: string, fields: Record<string, unknown>) => Record<string, unknown>; start: string; startFields: (source: 'startup' | 'resume') => Record<string, unknown>; prompt: [string, Record<string, unknown>]; tools: [string, Record<string, unknown>][]; others?: [string, Record<string, unknown>][]; ends: [string, Record<string, unknown>][] };
const snake = (agent: string, transcript: string) => (box: Sandbox, event: string, fields: Record<string, unknown>) => ({ session_id: sid(agent), transcript_path: path.join(box.root, transcript), cwd: box.project, hook_event_name: event, ...fields });
const opencodeLike = (agent: string): Inputs => ({
  args: (event) => ['--agent', agent, event],
  input: (box, event, fields) => ({ event, sessionID: sid(agent), directory: box.project, model: { providerID: 'anthropic', modelID: 'claude-sonnet-4-5', limit: { context: 200000, output: 64000 } }, ...fields }),
  start: 'system.transform',
  startFields: () => ({}),
  prompt: ['chat.message', { messages: [{ info: { id: 'msg_000001', sessionID: sid(agent), role: 'assistant', modelID: 'claude-sonnet-4-5', providerID: 'anthropic', tokens: { total: 60000, input: 9000, output: 100, reasoning: 0, cache: { read: 50900, write: 0 } }, time: { created: 1 } } }] }],
  tools: [0, 1].map((exit) => ['tool.execute.after', { tool: { tool: 'bash', callID: `call_${exit}`, args: { command: 'npm test' }, title: 'npm test', output: exit ? 'FAIL src/a.test.ts\n' : 'ok\n', metadata: { exit, truncated: false } } }]),
  ends: ['session.compacting', 'session.compacted', 'session.idle', 'session.deleted'].map((event) => [event, { messages: [{ info: { id: 'msg_000001', sessionID: sid(agent), role: 'assistant', modelID: 'claude-sonnet-4-5', providerID: 'anthropic', tokens: { total: 60000, input: 9000, output: 100, reasoning: 0, cache: { read: 50900, write: 0 } }, time: { created: 1 } } }] }]),
});
/** Claude Code's compaction and session-end events, as those that took its hook model fire them. */
const CLAUDE_ENDS: Record<string, [string, Record<string, unknown>]> = {
  PreCompact: ['PreCompact', { trigger: 'manual', custom_instructions: '' }],
  PostCompact: ['PostCompact', { trigger: 'manual', compact_summary: 'Summary: the first stage served the compaction.' }],
  SessionEnd: ['SessionEnd', { reason: 'other' }],
};
const claudeLike = (agent: string, transcript: string, failed: string, ends: string[]): Inputs => ({
  ends: ends.map((event) => CLAUDE_ENDS[event]!),
  args: (event) => ['--agent', agent, event],
  input: snake(agent, transcript),
  start: 'SessionStart',
  startFields: (source) => ({ source }),
  prompt: ['UserPromptSubmit', { prompt: 'next step' }],
  tools: [
    ['PostToolUse', { tool_name: 'Bash', tool_input: { command: 'ls' }, tool_response: { stdout: 'a.ts' }, tool_use_id: 'c1' }],
    [failed, { tool_name: 'run_shell_command', tool_input: { command: 'npm test' }, error: 'Exit Code: 1\nFAIL src/a.test.ts', is_interrupt: false, tool_use_id: 'c2' }],
  ],
});
const INPUTS: Record<string, Inputs> = {
  codex: {
    args: (event) => ['--agent', 'codex', event],
    input: (box, event, fields) => ({ ...snake('codex', 'rollout.jsonl')(box, event, fields), model: 'gpt-5.1', turn_id: 't' }),
    start: 'SessionStart',
    startFields: (source) => ({ source }),
    prompt: ['UserPromptSubmit', { prompt: 'next step' }],
    tools: [['PostToolUse', { tool_name: 'Bash', tool_input: { command: 'npm test' }, tool_response: 'output', tool_use_id: 'call_1' }]],
    // PostCompact without a summary: Codex's hook part reads it from the rollout.
    ends: [CLAUDE_ENDS.PreCompact!, ['PostCompact', { trigger: 'manual' }], CLAUDE_ENDS.SessionEnd!],
  },
  gemini: {
    args: (event) => ['--agent', 'gemini', event],
    input: (box, event, fields) => ({ ...snake('gemini', 'gemini-chat.jsonl')(box, event, fields), timestamp: '2026-11-25T08:00:00.000Z' }),
    start: 'SessionStart',
    startFields: (source) => ({ source }),
    prompt: ['BeforeAgent', { prompt: 'next step' }],
    tools: [0, 1].map((code) => ['AfterTool', { tool_name: 'run_shell_command', tool_input: { command: 'npm test' }, tool_response: { llmContent: `Output: ${code ? 'FAIL' : 'ok'}\nExit Code: ${code}\nProcess Group PGID: 1`, returnDisplay: '' } }]),
    // PreCompress fires before every model call (speculative), and once with the user's /compress.
    ends: [['PreCompress', { trigger: 'auto' }], ['PreCompress', { trigger: 'manual' }], ['SessionEnd', { reason: 'exit' }]],
  },
  opencode: opencodeLike('opencode'),
  kilo: opencodeLike('kilo'),
  copilot: {
    args: (event) => ['--agent', 'copilot', event],
    input: (box, _event, fields) => ({ sessionId: sid('copilot'), timestamp: 1795712906217, cwd: box.project, ...fields }),
    start: 'sessionStart',
    startFields: (source) => ({ source: source === 'startup' ? 'new' : 'resume', initialPrompt: 'Run the tests.' }),
    prompt: ['userPromptSubmitted', { prompt: 'Run the tests.' }],
    tools: [
      ['postToolUse', { toolName: 'bash', toolArgs: { command: 'npm test' }, toolResult: { resultType: 'success', textResultForLlm: 'FAIL src/a.test.ts\n<shellId: 0 completed with exit code 1>' } }],
      ['postToolUseFailure', { toolName: 'bash', toolArgs: { command: 'npm test' }, error: 'the command failed' }],
    ],
    ends: [['preCompact', { trigger: 'manual' }], ['sessionEnd', { reason: 'complete' }]],
  },
  qwen: { ...claudeLike('qwen', 'qwen-chat.jsonl', 'PostToolUseFailure', ['PreCompact', 'PostCompact', 'SessionEnd']), others: [['UserPromptSubmit', { prompt: '' }]] },
  droid: claudeLike('droid', 'transcript.jsonl', 'Stop', ['PreCompact', 'SessionEnd']),
};

describe.each(AGENTS.filter((a) => a.id !== 'claude' && a.events.length))('$id', (agent) => {
  it('is served by the first stage at every event it serves, answering as the full path does', { timeout: 300_000 }, async () => {
    const inputs = INPUTS[agent.id];
    expect(inputs, `add ${agent.id}'s hook inputs to INPUTS`).toBeDefined();
    const served = agent.events.filter((e) => e.moment in SERVED_MOMENTS);
    const ignored = served.filter((e) => e.moment === 'ignore').map((e): [string, Record<string, unknown>] => [e.name, {}]);
    const run = [inputs.prompt, ...inputs.tools, ...(inputs.others ?? []), ...ignored, ...inputs.ends, inputs.prompt];
    // Every event it serves is stepped through, and bin/wmem.js routes each to the first stage.
    const routes = JSON.parse(await readFile(path.join(ROOT, 'dist', 'fast', 'first-routes.json'), 'utf8'));
    expect(new Set([inputs.start, ...run.map(([event]) => event)])).toEqual(new Set(served.map((e) => e.name)));
    expect(Object.keys(routes.agents[agent.id]).sort()).toEqual(served.map((e) => eventKey(e.name)).sort());
    // Every other hook names the agent by an alias and the event in another spelling (`post-tool-use`).
    const spelled = (event: string, i: number) => (i % 2 ? ['--agent', (agent.aliases[0] ?? agent.id).toUpperCase(), otherSpelling(event)] : inputs.args(event));
    const steps: Step[] = [
      // A new session: the session starts' first stage creates it.
      [inputs.args(inputs.start), (box) => inputs.input(box, inputs.start, inputs.startFields('startup')), true],
      ...run.map(([event, fields], i): Step => [spelled(event, i), (box) => inputs.input(box, event, fields), true]),
      [inputs.args(inputs.start), (box) => inputs.input(box, inputs.start, inputs.startFields('resume')), true],
    ];
    await runSteps(steps);
  });
});
