// End-to-end with the built CLI: the switches users expect (WMEM_DISABLED=1, `wmem off` / `wmem
// on`) and subagent events. "Nothing written" is checked by listing every file under the home,
// with its bytes, before and after: a hook that is switched off leaves the tree as it was.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdir, readFile, readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { runJson, sandbox, type Sandbox } from '../helpers/cli.js';

let box: Sandbox;
const SID = '7a1d2c3b-aaaa-4bbb-8ccc-0123456789ab';

beforeEach(async () => {
  box = await sandbox();
});
afterEach(async () => {
  await box.cleanup();
});

/** Every file and folder under `dir`, with the bytes of each file. */
async function tree(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const walk = async (at: string): Promise<void> => {
    for (const entry of await readdir(at, { withFileTypes: true }).catch(() => [])) {
      const full = path.join(at, entry.name);
      const key = path.relative(dir, full);
      if (entry.isDirectory()) {
        out[`${key}/`] = '';
        await walk(full);
      } else out[key] = (await readFile(full)).toString('base64');
    }
  };
  await walk(dir);
  return out;
}

const claudeInput = (event: string, extra: Record<string, unknown> = {}) => JSON.stringify({ session_id: SID, cwd: box.project, hook_event_name: event, ...extra });

/** Every hook wmem installs, for each agent, with input of that agent's shape. */
function everyHook(): { args: string[]; input: string }[] {
  const claude = ['SessionStart', 'UserPromptSubmit', 'PostToolUse', 'PostToolUseFailure', 'PreCompact', 'PostCompact', 'SessionEnd'].map((e) => ({
    args: ['hook', e],
    input: claudeInput(e, e === 'SessionStart' ? { source: 'startup' } : e.startsWith('PostTool') ? { tool_name: 'Bash', tool_input: { command: 'ls' }, tool_response: 'x', error: 'boom' } : { prompt: 'hi' }),
  }));
  const codex = ['SessionStart', 'UserPromptSubmit', 'PostToolUse', 'SessionEnd'].map((e) => ({ args: ['hook', '--agent', 'codex', e], input: claudeInput(e, { source: 'startup', prompt: 'hi', tool_name: 'Bash', tool_input: { command: 'ls' }, tool_response: 'x' }) }));
  const gemini = ['SessionStart', 'BeforeAgent', 'AfterTool', 'PreCompress', 'SessionEnd'].map((e) => ({ args: ['hook', '--agent', 'gemini', e], input: claudeInput(e, { source: 'startup', prompt: 'hi', tool_name: 'run_shell_command', tool_input: { command: 'ls' }, tool_response: { llmContent: 'Output: x' } }) }));
  const opencode = ['system.transform', 'chat.message', 'tool.execute.after', 'session.idle'].map((e) => ({ args: ['hook', '--agent', 'opencode', e], input: JSON.stringify({ event: e, sessionID: SID, directory: box.project, messages: [], tool: { tool: 'bash', args: { command: 'ls' }, output: 'x' } }) }));
  // Events wmem ignores, and a subagent's, must not leave a record in a project that is off either.
  const quiet = [
    { args: ['hook', '--agent', 'codex', 'PreToolUse'], input: claudeInput('PreToolUse', { tool_name: 'Bash', tool_input: { command: 'ls' } }) },
    { args: ['hook', '--agent', 'gemini', 'AfterAgent'], input: claudeInput('AfterAgent', { prompt: 'hi', prompt_response: 'ok' }) },
    { args: ['hook', 'SessionStart'], input: claudeInput('SessionStart', { source: 'startup', agent_id: 'agent-1' }) },
  ];
  return [...claude, ...codex, ...gemini, ...opencode, ...quiet];
}

async function expectSilentNoOp(env: Record<string, string>): Promise<void> {
  const before = await tree(box.home);
  for (const { args, input } of everyHook()) {
    const result = await box.run(args, { input, env });
    expect(result.exitCode, args.join(' ')).toBe(0);
    expect(String(result.stdout), args.join(' ')).toBe('');
    expect(String(result.stderr), args.join(' ')).toBe('');
  }
  expect(await tree(box.home)).toEqual(before);
}

describe('WMEM_DISABLED=1', () => {
  it('makes every hook of every agent a silent no-op that writes nothing, in a home with nothing yet', () => expectSilentNoOp({ WMEM_DISABLED: '1' }));

  it('and in a project with a session: nothing injected, nothing written; wmem context prints nothing', async () => {
    expect((await box.run(['init'])).exitCode).toBe(0);
    await expectSilentNoOp({ WMEM_DISABLED: '1' });
    const context = await box.run(['context'], { env: { WMEM_DISABLED: '1' } });
    expect(context.exitCode).toBe(0);
    expect(String(context.stdout)).toBe('');
    expect(String(context.stderr)).toMatch(/WMEM_DISABLED is set: nothing injected/);
    // Set to 0, it is not set.
    expect(String((await box.run(['context'], { env: { WMEM_DISABLED: '0' } })).stdout)).toContain('<working_memory>');
  });
});

describe('wmem off / wmem on', () => {
  it('off on a project with no sessions works and creates the flag; every hook is then a no-op that writes nothing', async () => {
    const off = await runJson(box, ['off']);
    expect(off).toMatchObject({ off: true, changed: true, project: box.project });
    expect((await stat(off.file)).mode & 0o777).toBe(0o600);
    await expectSilentNoOp({});
    // No session was started by any of those hooks.
    expect((await readdir(path.dirname(off.file))).sort()).toEqual(['off', 'project.json']);
    expect(await runJson(box, ['off'])).toMatchObject({ off: true, changed: false });
  });

  it('wmem context, status and doctor honour and show it; wmem on undoes it', async () => {
    expect((await box.run(['init'])).exitCode).toBe(0);
    expect((await box.run(['off'])).exitCode).toBe(0);
    const context = await box.run(['context']);
    expect(context.exitCode).toBe(0);
    expect(String(context.stdout)).toBe('');
    expect(String(context.stderr)).toMatch(/switched off for this project .*'wmem on' turns it back on/);
    expect((await runJson(box, ['context'])).off).toMatch(/switched off/);
    expect((await runJson(box, ['status'])).switchedOff).toMatch(/wmem is off for this project/);
    expect(String((await box.run(['status'])).stdout)).toMatch(/^switched +off: wmem is off for this project/m);
    const doctor = await box.run(['doctor', '--json']);
    expect(JSON.parse(String(doctor.stdout)).switches).toMatchObject({ disabledByEnv: false, projectOff: expect.stringMatching(/\/off$/) });
    expect(String((await box.run(['doctor'])).stdout)).toMatch(/^switched off: wmem is off for this project/m);

    expect(await runJson(box, ['on'])).toMatchObject({ off: false, changed: true });
    expect(String((await box.run(['context'])).stdout)).toContain('<working_memory>');
    expect((await runJson(box, ['status'])).switchedOff).toBeUndefined();
    const start = await box.run(['hook', 'SessionStart'], { input: claudeInput('SessionStart', { source: 'startup' }) });
    expect(JSON.parse(String(start.stdout)).hookSpecificOutput.additionalContext).toMatch(/^<working_memory>/);
  });

  it('holds for the project only: another project keeps its hooks', async () => {
    expect((await box.run(['off'])).exitCode).toBe(0);
    const other = path.join(box.root, 'other');
    await mkdir(other);
    const start = await box.run(['hook', 'SessionStart'], { input: JSON.stringify({ session_id: SID, cwd: other, hook_event_name: 'SessionStart', source: 'startup' }), cwd: other });
    expect(JSON.parse(String(start.stdout)).hookSpecificOutput.additionalContext).toMatch(/^<working_memory>/);
  });
});

describe('subagent and side-chain events', () => {
  it('never start a session of their own nor get a memory part; the main session gets one copy', async () => {
    const sub = (event: string, extra: Record<string, unknown>) => box.run(['hook', event], { input: claudeInput(event, { agent_id: 'agent-7', agent_type: 'Explore', ...extra }) });
    for (const [event, extra] of [
      ['SessionStart', { source: 'startup' }],
      ['UserPromptSubmit', { prompt: 'look around' }],
      ['SessionEnd', { reason: 'other' }],
    ] as const) {
      const result = await sub(event, extra);
      expect(result.exitCode).toBe(0);
      expect(String(result.stdout)).toBe('');
    }
    expect(await readdir(path.join(box.home, 'sessions')).catch(() => [])).toEqual([]);

    const main = await box.run(['hook', 'SessionStart'], { input: claudeInput('SessionStart', { source: 'startup' }) });
    expect(JSON.parse(String(main.stdout)).hookSpecificOutput.additionalContext).toMatch(/^<working_memory>/);
    // A side chain's prompt (isSidechain) gets nothing; the main chain's next prompt gets the meter only.
    const side = await box.run(['hook', 'UserPromptSubmit'], { input: claudeInput('UserPromptSubmit', { prompt: 'x', isSidechain: true }) });
    expect(String(side.stdout)).toBe('');
    const prompt = await box.run(['hook', 'UserPromptSubmit'], { input: claudeInput('UserPromptSubmit', { prompt: 'go on' }) });
    expect(JSON.parse(String(prompt.stdout)).hookSpecificOutput.additionalContext).toMatch(/^<context_meta>/);
    // A subagent's tool call counts for the session it belongs to.
    await sub('PostToolUse', { tool_name: 'Edit', tool_input: { file_path: path.join(box.project, 'src', 'parser.ts') }, tool_response: {} });
    expect(String((await box.run(['context', '--part', 'memory'])).stdout)).toContain('src/parser.ts');
  });

  it("Kilo's title call (its session `title-<id>`) is its session's side call: no session of its own, no memory part, never the current session", async () => {
    const transform = (sessionID: string) => box.run(['hook', '--agent', 'kilo', 'system.transform'], { input: JSON.stringify({ event: 'system.transform', sessionID, directory: box.project }) });
    const title = await transform('title-ses_0a1b2c3dKilo');
    expect([title.exitCode, String(title.stdout), String(title.stderr)]).toEqual([0, '', '']);
    expect(await readdir(path.join(box.home, 'sessions')).catch(() => [])).toEqual([]);
    const main = await transform('ses_0a1b2c3dKilo');
    expect(JSON.parse(String(main.stdout)).context).toMatch(/^<working_memory>/);
    // Its hook may run after the session's last one: the session stays the project's current one.
    expect(String((await transform('title-ses_0a1b2c3dKilo')).stdout)).toBe('');
    const status = await runJson<{ session: string }>(box, ['status']);
    expect(status.session).toBe('ses_0a1b2c3dKilo');
    const [project] = await readdir(path.join(box.home, 'sessions'));
    expect((await readdir(path.join(box.home, 'sessions', project!))).filter((n) => n.startsWith('ses_') || n.startsWith('title-'))).toEqual(['ses_0a1b2c3dKilo']);
  });
});
