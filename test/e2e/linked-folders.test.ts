// A symbolic link planted where wmem keeps a folder of its own (a session's state/, working-memory/,
// detail/, archive/, state/search/, the session folder itself, the project's cache/ and
// cache/tool-outputs/): every door that reads or writes there refuses it instead of following it.
// The hooks of every agent exit 0, print nothing and log the refusal naming the link; a command
// fails naming the link and the commands that put a real folder in its place. Nothing is written
// where the link points (names, sizes and times of everything there are compared after each run).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { appendFile, chmod, copyFile, mkdir, readdir, readFile, rename, stat, symlink } from 'node:fs/promises';
import path from 'node:path';
import { execa } from 'execa';
import { FIXTURES, sandbox, type Sandbox } from '../helpers/cli.js';

let box: Sandbox;
let transcript: string;
let session: string;
const SID = '5c3e8a10-cccc-4ddd-8eee-0123456789ab';
const SENTINEL = 'OUTSIDE-THE-HOME-4b7d1e';

beforeEach(async () => {
  box = await sandbox();
  transcript = path.join(box.root, `${SID}.jsonl`);
  await copyFile(path.join(FIXTURES, 'claude-code-log', 'ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl'), transcript);
  for (const [event, extra] of [['SessionStart', { source: 'startup' }], ['UserPromptSubmit', { prompt: 'hi' }], ['PostToolUse', TOOL]] as const) {
    expect((await box.run(['hook', event], { input: input(event, extra) })).exitCode).toBe(0);
  }
  const sessions = path.join(box.home, 'sessions');
  session = path.join(sessions, (await readdir(sessions)).find((n) => n.startsWith('--'))!, SID);
  // A history to compact, and every folder a session and its project have once they are used.
  await copyFile(transcript, path.join(session, 'messages.jsonl'));
  for (const dir of ['state/search', 'working-memory/detail', 'working-memory/archive', '../cache/tool-outputs']) await mkdir(path.join(session, dir), { recursive: true });
});
afterEach(() => box.cleanup());

const TOOL = { tool_name: 'Edit', tool_input: { file_path: 'src/a.ts', old_string: 'a', new_string: 'b' }, tool_response: { success: true }, tool_use_id: 't1' };
function input(event: string, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ session_id: SID, transcript_path: transcript, cwd: box.project, hook_event_name: event, ...extra });
}

/** Moves the folder at `rel` (from the session folder) out of the home and leaves a link to it in its place. */
async function plant(rel: string): Promise<{ link: string; target: string }> {
  const link = path.join(session, rel);
  const target = path.join(box.root, 'outside', rel.replace(/[./]+/g, '-') || 'session');
  await mkdir(path.dirname(target), { recursive: true });
  await rename(link, target);
  await symlink(target, link);
  return { link, target };
}

/** Every name under `dir` with its size and modification time. */
async function snapshot(dir: string): Promise<string[]> {
  const names = (await readdir(dir, { recursive: true })).sort();
  return Promise.all(names.map(async (name) => `${name} ${(await stat(path.join(dir, name))).size} ${(await stat(path.join(dir, name))).mtimeMs}`));
}

const logText = () => readFile(path.join(box.home, 'logs', 'hooks.log'), 'utf8').catch(() => '');

/** Each agent's hooks that read or write a session's state/ (a prompt, a tool call, a start, the compaction and end moments). */
function hookDoors(): { agent: string; event: string; stdin: string }[] {
  const opencode = (event: string, extra: Record<string, unknown>) => JSON.stringify({ event, sessionID: SID, directory: box.project, ...extra });
  const message = { info: { id: 'm1', role: 'user' }, parts: [{ type: 'text', text: 'hi' }] };
  return [
    ...['SessionStart', 'UserPromptSubmit', 'PostToolUse', 'PostToolUseFailure', 'PreCompact', 'PostCompact', 'SessionEnd'].map((event) => ({
      agent: 'claude',
      event,
      stdin: input(event, { source: 'resume', prompt: 'hi', ...TOOL, error: 'Exit code 1', trigger: 'auto', compact_summary: 'what was done', reason: 'other' }),
    })),
    ...['codex', 'qwen', 'droid'].flatMap((agent) => ['UserPromptSubmit', 'PostToolUse'].map((event) => ({ agent, event, stdin: input(event, { prompt: 'hi', ...TOOL }) }))),
    ...['BeforeAgent', 'AfterTool', 'PreCompress'].map((event) => ({ agent: 'gemini', event, stdin: input(event, { prompt: 'hi', ...TOOL, trigger: 'auto' }) })),
    { agent: 'copilot', event: 'userPromptSubmitted', stdin: JSON.stringify({ sessionId: SID, cwd: box.project, prompt: 'hi', timestamp: Date.now() }) },
    { agent: 'opencode', event: 'chat.message', stdin: opencode('chat.message', { messages: [message] }) },
    { agent: 'opencode', event: 'session.compacting', stdin: opencode('session.compacting', { messages: [message] }) },
    { agent: 'opencode', event: 'session.idle', stdin: opencode('session.idle', {}) },
  ];
}

describe('a session folder of wmem planted as a symbolic link', () => {
  it("state/: every agent's hooks exit 0, print nothing and log the refusal; nothing is read or written through it", async () => {
    const { link, target } = await plant('state');
    const before = await snapshot(target);
    for (const door of hookDoors()) {
      const r = await box.run(['hook', '--agent', door.agent, door.event], { input: door.stdin });
      expect({ ...door, stdin: undefined, exitCode: r.exitCode, stdout: String(r.stdout), stderr: String(r.stderr) }).toEqual({ ...door, stdin: undefined, exitCode: 0, stdout: '', stderr: '' });
      expect(await snapshot(target), `${door.agent} ${door.event}`).toEqual(before);
    }
    expect(await logText()).toContain(`${link} is a symbolic link to ${target}`);
  });

  it('state/: note, track, prune, context, search, compact, the finishing and the MCP server refuse it, naming the link and what to run', async () => {
    const { link, target } = await plant('state');
    const before = await snapshot(target);
    const doors: { args: string[]; stdin?: string }[] = [
      { args: ['note', 'a note'] },
      { args: ['track'], stdin: JSON.stringify(TOOL) },
      { args: ['prune'], stdin: 'line\n'.repeat(5000) },
      { args: ['context'] },
      { args: ['search', 'the'] },
      { args: ['consolidate'] },
      { args: ['compact', '--keep-recent', '2', '--wait'] },
    ];
    for (const { args, stdin } of doors) {
      const r = await box.run(['--session', SID, ...args], { input: stdin });
      expect({ args, exitCode: r.exitCode }).toEqual({ args, exitCode: 2 });
      expect(String(r.stderr)).toContain(`${link} is a symbolic link to ${target}`);
      expect(String(r.stderr)).toContain(`rm ${link} && mv ${target} ${link}`);
      expect(String(r.stderr)).not.toMatch(/\n\s+at .+:\d+:\d+/);
      expect(await snapshot(target), args.join(' ')).toEqual(before);
    }
    // The finishing a quick cut leaves to the background is quiet: it fails (exit 1) and logs why.
    const finish = await box.run(['--session', SID, 'compact', '--finish']);
    expect({ exitCode: finish.exitCode, stderr: String(finish.stderr) }).toEqual({ exitCode: 1, stderr: '' });
    expect(await logText()).toContain(`compact --finish error: ${link} is a symbolic link to ${target}`);
    const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } };
    const call = (id: number, name: string, args: Record<string, unknown>) => JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });
    const mcp = await box.run(['mcp'], { input: [JSON.stringify(init), '{"jsonrpc":"2.0","method":"notifications/initialized"}', call(2, 'note', { text: 'from mcp' }), call(3, 'search', { query: 'the' })].join('\n') + '\n', env: { WMEM_SESSION: SID } });
    const answers = String(mcp.stdout).trim().split('\n').map((line) => JSON.parse(line)).filter((a) => a.id === 2 || a.id === 3);
    expect(answers.map((a) => a.result?.isError)).toEqual([true, true]);
    for (const a of answers) expect(JSON.stringify(a.result.content)).toContain(`${link} is a symbolic link`);
    expect(await snapshot(target)).toEqual(before);
    // sweep leaves the folder where the link points alone.
    expect((await box.run(['sweep', '--ttl', '0s'])).exitCode).toBe(0);
    expect(await snapshot(target)).toEqual(before);
  });

  const OTHERS = ['.', 'working-memory', 'working-memory/detail', 'working-memory/archive', 'state/search', '../cache', '../cache/tool-outputs'];
  for (const rel of OTHERS) {
    it(`${rel === '.' ? 'the session folder' : rel}: the hooks, prune, compact and its finishing, and search read and write nothing through it`, async () => {
      const { target } = await plant(rel);
      // What the memory shows, read through the link, would reach the agent's prompt.
      const overview = path.join(target, rel === '.' ? 'working-memory/overview.md' : 'overview.md');
      if (rel === '.' || rel === 'working-memory') await appendFile(overview, `\n- ${SENTINEL}\n`);
      const before = await snapshot(target);
      const doors: { args: string[]; stdin?: string; hook?: boolean }[] = [
        ...['UserPromptSubmit', 'PostToolUse', 'PreCompact', 'PostCompact', 'SessionEnd'].map((event) => ({
          args: ['hook', event],
          stdin: input(event, { prompt: 'hi', ...TOOL, trigger: 'auto', compact_summary: 'what was done', reason: 'other' }),
          hook: true,
        })),
        { args: ['--session', SID, 'prune'], stdin: 'line\n'.repeat(5000) },
        { args: ['--session', SID, 'compact', '--keep-recent', '2', '--wait'] },
        { args: ['--session', SID, 'compact', '--finish'] },
        { args: ['--session', SID, 'search', 'the'] },
      ];
      for (const { args, stdin, hook } of doors) {
        const r = await box.run(args, { input: stdin });
        if (hook) expect({ args, exitCode: r.exitCode, stderr: String(r.stderr) }).toEqual({ args, exitCode: 0, stderr: '' });
        expect(String(r.stderr)).not.toMatch(/\n\s+at .+:\d+:\d+/);
        expect(`${r.stdout}${r.stderr}`, args.join(' ')).not.toContain(SENTINEL);
        expect(await snapshot(target), args.join(' ')).toEqual(before);
      }
    });
  }
});

describe('a state file planted as a link, or one others may write', () => {
  it('hot.json is not read (its files never reach the session state shown), through a link or writable by others', async () => {
    const track = await box.run(['--session', SID, 'track'], { input: JSON.stringify({ ...TOOL, tool_input: { file_path: `src/${SENTINEL}.ts` } }) });
    expect(track.exitCode).toBe(0);
    const context = async () => String((await box.run(['--session', SID, 'context'])).stdout);
    expect(await context()).toContain(SENTINEL);
    const hot = path.join(session, 'state', 'hot.json');
    // Writable by the group and others: anyone could have put those lines there.
    await chmod(hot, 0o666);
    expect(await context()).not.toContain(SENTINEL);
    // A link to a file outside the home: read as none.
    await chmod(hot, 0o600);
    const outside = path.join(box.root, 'outside-hot.json');
    await rename(hot, outside);
    await symlink(outside, hot);
    expect(await context()).not.toContain(SENTINEL);
  });
});


describe("the user's own folders behind links (dotfiles, another disk) work as real ones", () => {
  it("a linked home, agent settings folders, a project's .claude/ and its .wmem/: install, init, hooks, note, search, share and report write through them", async () => {
    // Everything the user keeps elsewhere and links in: wmem's home itself, each agent's settings
    // folder, the project's Claude settings folder and its team memory.
    const disk = path.join(box.root, 'disk');
    const linked = async (link: string, name: string) => {
      const target = path.join(disk, name);
      await mkdir(target, { recursive: true });
      await symlink(target, link);
      return target;
    };
    const user = path.join(box.root, 'user');
    await mkdir(user, { recursive: true });
    const home = path.join(box.root, 'ai-link');
    const realHome = await linked(home, 'ai');
    const codex = await linked(path.join(user, '.codex'), 'codex');
    const gemini = await linked(path.join(user, '.gemini'), 'gemini');
    const claudeProject = await linked(path.join(box.project, '.claude'), 'claude-project');
    // Team memory is committed with the code, so its link must stay inside the project (one that
    // leads out is refused, as before).
    await execa('git', ['init', '-q'], { cwd: box.project, env: { PATH: process.env.PATH ?? '', HOME: box.root, GIT_CONFIG_NOSYSTEM: '1' } });
    const team = path.join(box.project, 'memory', 'team');
    await mkdir(team, { recursive: true });
    await symlink(team, path.join(box.project, '.wmem'));
    const env = { HOME: user, WMEM_HOME: home, CODEX_HOME: path.join(user, '.codex'), GEMINI_CLI_HOME: user };
    const run = async (args: string[], stdin?: string) => {
      const r = await box.run(args, { input: stdin, env });
      expect({ args, exitCode: r.exitCode, stderr: r.exitCode ? String(r.stderr) : "" }).toEqual({ args, exitCode: 0, stderr: "" });
      return r;
    };
    await run(['install', 'claude']);
    await run(['install', 'codex']);
    await run(['install', 'gemini']);
    expect(await readdir(claudeProject)).toContain('settings.json');
    expect(await readdir(codex)).toContain('hooks.json');
    expect(await readdir(gemini)).toContain('settings.json');
    await run(['init']);
    await run(['note', 'kept behind a linked home']);
    const hook = await run(['hook', 'UserPromptSubmit'], input('UserPromptSubmit', { prompt: 'hi', session_id: 'linked-home-session' }));
    expect(String(hook.stdout)).toContain('wmem');
    expect(String((await run(['search', 'linked'])).stdout)).toContain('kept behind a linked home');
    await run(['share', '--init']);
    expect((await readdir(team, { recursive: true })).length).toBeGreaterThan(0);
    await run(['report', '--out', path.join(box.project, '.claude', 'report.md')]);
    expect(await readdir(claudeProject)).toContain('report.md');
    expect((await readdir(path.join(realHome, 'sessions'))).length).toBeGreaterThan(0);
  });

  it("a link inside a linked home is named by where it really leads (the kernel's resolution, not readlink's text)", async () => {
    // The home is a link into another disk; state/ is moved beside it and linked back relatively,
    // so path arithmetic on the link's text from the home's name lands somewhere else.
    const realHome = path.join(box.root, 'disk', 'ai');
    await mkdir(path.dirname(realHome), { recursive: true });
    await rename(box.home, realHome);
    await symlink(realHome, box.home);
    const state = path.join(session, 'state');
    const elsewhere = path.join(box.root, 'disk', 'elsewhere', 'state');
    await mkdir(path.dirname(elsewhere), { recursive: true });
    await rename(state, elsewhere);
    await symlink(path.relative(path.dirname(path.join(realHome, path.relative(box.home, state))), elsewhere), state);
    const r = await box.run(['--session', SID, 'note', 'hi there']);
    expect(r.exitCode).toBe(2);
    expect(String(r.stderr)).toContain(`${state} is a symbolic link to ${elsewhere}`);
    expect(String(r.stderr)).toContain(`test -d ${elsewhere} && rm ${state} && mv ${elsewhere} ${state}`);
  });
});
