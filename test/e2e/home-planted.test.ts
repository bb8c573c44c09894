// FIFOs and links planted under the home, where wmem keeps its own files. A FIFO's open blocks
// until a writer comes (a hook that never returns, and SIGTERM does not stop it): every read of a
// kept file opens without blocking and refuses what is not a regular file. A hook exits 0 (and
// logs); a command answers or fails naming the file, never with a stack trace. Links at logs/,
// logs/hooks-last/ or a project folder are never written through.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { copyFile, mkdir, readdir, readFile, rename, rm, symlink } from 'node:fs/promises';
import path from 'node:path';
import { FIXTURES, sandbox, type Sandbox } from '../helpers/cli.js';

let box: Sandbox;
let transcript: string;
const SID = '7e2a91c4-bbbb-4ccc-8ddd-0123456789ab';
// Generous: a run that takes this long is one that blocked (execa then kills it).
const BLOCKED = 60_000;

beforeEach(async () => {
  box = await sandbox();
  const folder = path.join(box.root, 'claude');
  await mkdir(folder, { recursive: true });
  transcript = path.join(folder, `${SID}.jsonl`);
  await copyFile(path.join(FIXTURES, 'claude-code-log', 'ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl'), transcript);
});
afterEach(() => box.cleanup());

const input = (event: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ session_id: SID, transcript_path: transcript, cwd: box.project, hook_event_name: event, ...extra });
const TOOL = { tool_name: 'Bash', tool_input: { command: 'npm test' }, tool_response: { stdout: 'ok' }, tool_use_id: 't1' };

async function run(args: string[], stdin?: string) {
  const r = await box.run(args, { input: stdin, timeout: BLOCKED });
  return { args: args.join(' '), timedOut: r.timedOut, exitCode: r.exitCode, stdout: String(r.stdout), stderr: String(r.stderr) };
}

/** The project folder and the session folder the hooks made. */
async function started(): Promise<{ project: string; session: string }> {
  expect((await run(['hook', 'SessionStart'], input('SessionStart', { source: 'startup' }))).exitCode).toBe(0);
  expect((await run(['hook', 'UserPromptSubmit'], input('UserPromptSubmit', { prompt: 'hi' }))).exitCode).toBe(0);
  expect((await run(['hook', 'PostToolUse'], input('PostToolUse', TOOL))).exitCode).toBe(0);
  const sessions = path.join(box.home, 'sessions');
  const project = path.join(sessions, (await readdir(sessions)).find((n) => n.startsWith('--'))!);
  return { project, session: path.join(project, SID) };
}

const logText = () => readFile(path.join(box.home, 'logs', 'hooks.log'), 'utf8').catch(() => '');

describe('a FIFO planted at a file wmem keeps', () => {
  const PLANTS: [string, (p: { project: string; session: string }) => string][] = [
    ['claude-hooks.json', (p) => path.join(p.session, 'state', 'claude-hooks.json')],
    ['hot.json', (p) => path.join(p.session, 'state', 'hot.json')],
    ['meta.json', (p) => path.join(p.session, 'meta.json')],
    ['scratch.md', (p) => path.join(p.session, 'working-memory', 'scratch.md')],
    ['overview.md', (p) => path.join(p.session, 'working-memory', 'overview.md')],
    ['workspace-memory.json', (p) => path.join(p.project, 'workspace-memory.json')],
    ['current', (p) => path.join(p.project, 'current')],
    ['project.json', (p) => path.join(p.project, 'project.json')],
    ['messages.jsonl', (p) => path.join(p.session, 'messages.jsonl')],
    // The locks' owner tokens: written when a lock is taken, read when it is checked and released.
    ['.lock.owner', (p) => path.join(p.session, '.lock.owner')],
    ['.lock.owner', (p) => path.join(p.project, '.lock.owner')],
  ];

  it.each(PLANTS)('%s: hooks exit 0 and log, commands answer or name the file; none blocks', async (name, where) => {
    const fifo = where(await started());
    await rm(fifo, { force: true });
    execFileSync('mkfifo', [fifo]);
    const runs = [
      await run(['hook', 'UserPromptSubmit'], input('UserPromptSubmit', { prompt: 'again' })),
      await run(['hook', 'PostToolUse'], input('PostToolUse', TOOL)),
      await run(['context']),
      await run(['status']),
      await run(['note', 'a note beside a FIFO']),
      await run(['show', 'messages']),
      await run(['report']),
    ];
    for (const r of runs) {
      expect({ ...r, timedOut: r.timedOut }, r.args).toMatchObject({ timedOut: false });
      expect(r.stderr, r.args).not.toMatch(/\n\s+at .+:\d+:\d+/);
      if (r.args.startsWith('hook')) expect({ args: r.args, exitCode: r.exitCode, stderr: r.stderr }).toEqual({ args: r.args, exitCode: 0, stderr: '' });
      else if (r.exitCode !== 0) expect(r.stderr, r.args).toContain(`${name}: it is not a regular file`);
    }
  }, 8 * BLOCKED);

  it('scratch.md: a note is refused naming the file (its append would wait for a reader)', async () => {
    const { session } = await started();
    const scratch = path.join(session, 'working-memory', 'scratch.md');
    await rm(scratch);
    execFileSync('mkfifo', [scratch]);
    const r = await run(['note', 'lost?', '--session', SID]);
    expect(r.timedOut).toBe(false);
    expect(r.exitCode).not.toBe(0);
    expect(r.stderr).toContain(`${scratch}: it is not a regular file`);
  }, 2 * BLOCKED);
});

describe('links planted under logs/', () => {
  it.each([
    ['logs/hooks-last', ['logs', 'hooks-last']],
    ['logs', ['logs']],
  ])('%s that is a link: no hook writes where it points', async (_label, parts) => {
    await started();
    const planted = path.join(box.home, ...parts);
    const target = path.join(box.root, 'outside');
    await mkdir(target, { recursive: true });
    await rename(planted, path.join(box.root, 'moved-away'));
    await symlink(target, planted);
    for (const event of ['UserPromptSubmit', 'PostToolUse']) {
      const r = await run(['hook', event], input(event, event === 'PostToolUse' ? TOOL : { prompt: 'again' }));
      expect({ event, exitCode: r.exitCode, stderr: r.stderr, timedOut: r.timedOut }).toEqual({ event, exitCode: 0, stderr: '', timedOut: false });
    }
    // A hook that fails (bad input) would log: not there either.
    expect((await run(['hook', 'UserPromptSubmit'], 'not json')).exitCode).toBe(0);
    expect(await readdir(target, { recursive: true })).toEqual([]);
  }, 6 * BLOCKED);
});

describe('a project folder that is a link', () => {
  it('is refused by init, note and context naming the link, by hooks (exit 0, logged), and reported by sweep; nothing is written where it points', async () => {
    const { project } = await started();
    const target = path.join(box.root, 'elsewhere');
    await rename(project, target);
    await symlink(target, project);
    const before = await readdir(target, { recursive: true });
    for (const args of [['init'], ['note', 'into the link?'], ['context']]) {
      const r = await run(args);
      expect({ args, exitCode: r.exitCode, timedOut: r.timedOut }).toEqual({ args, exitCode: 2, timedOut: false });
      expect(r.stderr).toContain(`the project folder ${project} is a symbolic link`);
      expect(r.stderr).not.toMatch(/\n\s+at .+:\d+:\d+/);
    }
    for (const event of ['SessionStart', 'UserPromptSubmit', 'PostToolUse']) {
      const extra = event === 'PostToolUse' ? TOOL : event === 'SessionStart' ? { source: 'resume' } : { prompt: 'again' };
      const r = await run(['hook', event], input(event, extra));
      expect({ event, exitCode: r.exitCode, stdout: r.stdout, stderr: r.stderr }).toEqual({ event, exitCode: 0, stdout: '', stderr: '' });
    }
    expect(await logText()).toContain(`${project} is a symbolic link`);
    expect(await readdir(target, { recursive: true })).toEqual(before);
    const sweep = await run(['sweep', '--json']);
    expect(sweep.stdout).toContain(project);
    expect(sweep.stdout).toContain('is a symbolic link; skipped');
    expect(await readdir(target, { recursive: true })).toEqual(before);
  }, 12 * BLOCKED);
});
