// The hook's first stage (dist/fast/first-hook.cjs, src/entries/first-hook.ts) answers exactly as
// the whole hook path (dist/fast/fast-hook.cjs) does: two sandboxes, the same sequence of hooks
// (a new session, prompts, tool calls, an overview edit, a resume, another agent), one through
// `wmem hook`, the other through the full entry alone; every answer and every fired record must
// be the same. The common events of an existing session must not load the full entry at all, and
// whatever the first stage leaves out (a new session) must reach the full path, not an error.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { execa } from 'execa';
import { copyFile, mkdir, readFile, readdir, appendFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { BIN, FIXTURES, ROOT, sandbox, type Sandbox } from '../helpers/cli.js';

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
  }
});
afterAll(async () => Promise.all([staged?.cleanup(), full?.cleanup()]));

/** One hook through `wmem hook` or through the full entry alone; its answer with the sandbox's root as `<root>`. */
async function hook(box: Sandbox, args: string[], payload: Record<string, unknown>) {
  const input = JSON.stringify({ session_id: SID, transcript_path: path.join(box.root, 'transcript.jsonl'), cwd: box.project, ...payload });
  const loaded = path.join(box.root, 'loaded');
  const env = { PATH: process.env.PATH ?? '', HOME: box.home, NO_COLOR: '1', WMEM_HOME: box.home, WMEM_TEST_LOADED: loaded, NODE_OPTIONS: `--require ${path.join(box.root, 'probe.cjs')}` };
  const command = box === staged ? [BIN, 'hook', ...args] : ['-e', `require(${JSON.stringify(FULL)}).runFast(['node', 'wmem', 'hook', ...process.argv.slice(1)])`, '--', ...args];
  const r = await execa('node', command, { cwd: box.project, input, reject: false, extendEnv: false, timeout: 60_000, env });
  expect(r.exitCode).toBe(0);
  expect(r.stderr).toBe('');
  const event = args[args.length - 1]!;
  // Another agent's record of the same event is `<agent>-<event>.json` (recordFired).
  const agent = args.includes('--agent') ? args[args.indexOf('--agent') + 1] : undefined;
  const key = agent ? `${agent}-${event}` : event;
  const last = (await readdir(path.join(box.home, 'logs', 'hooks-last'))).find((f) => f === `${key}.json`);
  const fired = JSON.parse(await readFile(path.join(box.home, 'logs', 'hooks-last', last!), 'utf8'));
  // The root's own path, and as the project's folder name spells it (store/names.ts encodeCwd);
  // the clock's stamps (an archive's name and time).
  const norm = (text: string) =>
    text
      .split(box.root)
      .join('<root>')
      .split(box.root.slice(1).replace(/[/\\:]/g, '-'))
      .join('<root>')
      .replace(/\d{8}T\d{9}Z/g, '<stamp>')
      .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/g, '<time>');
  return { stdout: norm(String(r.stdout)), fired: norm(JSON.stringify({ ok: fired.ok, note: fired.note })), fullLoaded: (await readFile(loaded, 'utf8')) === 'true' };
}

async function overviewOf(box: Sandbox): Promise<string> {
  const [project] = await readdir(path.join(box.home, 'sessions'));
  return path.join(box.home, 'sessions', project!, SID, 'working-memory', 'overview.md');
}

const edit = (box: Sandbox) => ({ tool_name: 'Edit', tool_input: { file_path: path.join(box.project, 'src', 'a.ts'), old_string: 'a', new_string: 'b' }, tool_response: { success: true }, tool_use_id: 't1' });
const failure = { tool_name: 'Bash', tool_input: { command: 'npm test' }, tool_use_id: 't2', error: 'Exit code 1\nFAIL src/a.test.ts', is_interrupt: false };

/** [args, payload, whether the first stage answers it alone] */
type Step = [string[], (box: Sandbox) => Promise<Record<string, unknown>> | Record<string, unknown>, boolean];
const steps: Step[] = [
  // A new session: its tree is left out of the first stage, so the full path creates it.
  [['SessionStart'], () => ({ hook_event_name: 'SessionStart', source: 'startup' }), false],
  [['UserPromptSubmit'], () => ({ hook_event_name: 'UserPromptSubmit', prompt: 'first' }), true],
  [['PostToolUse'], (box) => ({ hook_event_name: 'PostToolUse', ...edit(box) }), true],
  [['PostToolUseFailure'], () => ({ hook_event_name: 'PostToolUseFailure', ...failure }), true],
  [['UserPromptSubmit'], () => ({ hook_event_name: 'UserPromptSubmit', prompt: 'after tool calls' }), true],
  // The agent edits its overview by hand, then PostToolUse renders it again.
  [
    ['PostToolUse'],
    async (box) => {
      const overview = await overviewOf(box);
      await appendFile(overview, '\n- a line the agent wrote\n');
      return { hook_event_name: 'PostToolUse', tool_name: 'Edit', tool_input: { file_path: overview, old_string: 'x', new_string: 'y' }, tool_response: { success: true }, tool_use_id: 't3' };
    },
    true,
  ],
  [['UserPromptSubmit'], () => ({ hook_event_name: 'UserPromptSubmit', prompt: 'after the overview edit' }), true],
  [['SessionStart'], () => ({ hook_event_name: 'SessionStart', source: 'resume' }), true],
  // Events the first stage does not serve, and another agent: straight to the full path.
  [['PreCompact'], () => ({ hook_event_name: 'PreCompact', trigger: 'manual', custom_instructions: '' }), false],
  [['--agent', 'codex', 'UserPromptSubmit'], () => ({ hook_event_name: 'UserPromptSubmit', prompt: 'codex', model: 'gpt-5', turn_id: 'x' }), false],
  [['UserPromptSubmit'], () => ({ hook_event_name: 'UserPromptSubmit', prompt: 'after a compaction was archived' }), true],
];

it('answers every hook as the full path does, and alone where it serves the event', { timeout: 300_000 }, async () => {
  await mkdir(path.join(staged.project, 'src'), { recursive: true });
  for (const [args, payload, alone] of steps) {
    const a = await hook(staged, args, await payload(staged));
    const b = await hook(full, args, await payload(full));
    expect({ step: args, stdout: a.stdout, fired: a.fired }).toEqual({ step: args, stdout: b.stdout, fired: b.fired });
    expect({ step: args, fullLoaded: a.fullLoaded }).toEqual({ step: args, fullLoaded: !alone });
  }
  // Nothing went wrong on either side (a miss is never logged as an error).
  for (const box of [staged, full]) await expect(readFile(path.join(box.home, 'logs', 'hooks.log'), 'utf8')).rejects.toThrow();
});
