// bin/wmem.js without its build (dist/ not built yet, removed by a build under way, a partial
// copy): a command says what is wrong and what to do, and exits non-zero; a hook answers nothing,
// exits 0 (a hook never breaks the agent) and logs why where the home has its log folder.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { execa } from 'execa';
import { copyFile, mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { ROOT, sandbox, type Sandbox } from '../helpers/cli.js';

let box: Sandbox;
let bin: string;

beforeAll(async () => {
  box = await sandbox();
  const copy = path.join(box.root, 'wmem');
  await mkdir(path.join(copy, 'bin'), { recursive: true });
  for (const file of ['bin/wmem.js', 'bin/no-build.js', 'bin/package.json', 'package.json']) await copyFile(path.join(ROOT, file), path.join(copy, file));
  bin = path.join(copy, 'bin', 'wmem.js');
  await mkdir(path.join(box.home, 'logs'), { recursive: true });
});
afterAll(async () => box?.cleanup());

const run = (args: string[], input = '') =>
  execa('node', [bin, ...args], { cwd: box.project, input, reject: false, extendEnv: false, timeout: 60_000, env: { PATH: process.env.PATH ?? '', HOME: box.home, NO_COLOR: '1', WMEM_HOME: box.home } });

it.each([['status'], ['context'], ['search', 'x'], ['compact'], ['init']])('wmem %s: one line saying to build or reinstall, exit 1, no stack trace', async (...args) => {
  const r = await run(args);
  expect(r.exitCode).toBe(1);
  expect(String(r.stderr)).toMatch(/^wmem: wmem is not built: .*dist.*Run `npm run build` in .*, or reinstall wmem/);
  expect(String(r.stderr)).not.toMatch(/internal error|\n\s+at /);
  expect(String(r.stderr).trim().split('\n')).toHaveLength(1);
});

it.each([[['hook', 'UserPromptSubmit']], [['--home', '/nowhere', 'hook', '--agent', 'codex', 'PostToolUse']]])('wmem %j: silent, exit 0, logged when the log folder is there', async (args) => {
  const r = await run(args, '{"session_id":"s"}');
  expect(r).toMatchObject({ exitCode: 0, stdout: '', stderr: '' });
});

it('a hook without its build leaves a line in the hook log', async () => {
  await run(['hook', 'UserPromptSubmit'], '{}');
  expect(await readFile(path.join(box.home, 'logs', 'hooks.log'), 'utf8')).toMatch(/hook error: wmem is not built: .*npm run build/);
});

it("reads a hook's whole input, as the built hook does: the agent never writes into a closed pipe", async () => {
  const child = spawn(process.execPath, [bin, 'hook', 'PostToolUse'], { cwd: box.project, env: { PATH: process.env.PATH ?? '', HOME: box.home, WMEM_HOME: box.home }, stdio: ['pipe', 'ignore', 'ignore'] });
  const errors: string[] = [];
  child.stdin.on('error', (err: NodeJS.ErrnoException) => errors.push(err.code ?? err.message));
  // 2 MB: far past a pipe's buffer, so a hook that did not read it would leave the writer on EPIPE.
  child.stdin.end(JSON.stringify({ session_id: 's', tool_response: 'x'.repeat(2_000_000) }));
  const code = await new Promise((resolve) => child.on('close', resolve));
  expect({ code, errors }).toEqual({ code: 0, errors: [] });
});

it('moves a hook log past 1 MiB aside before adding its line, as the hook log does', async () => {
  const log = path.join(box.home, 'logs', 'hooks.log');
  await writeFile(log, 'x'.repeat(1_200_000) + '\n');
  await run(['hook', 'UserPromptSubmit'], '{}');
  expect((await stat(`${log}.1`)).size).toBe(1_200_001);
  expect((await stat(log)).size).toBeLessThan(10_000);
});

it('a package that is missing (not the build) is not reported as a missing build', () => {
  const { reportMissingBuild } = createRequire(import.meta.url)(path.join(ROOT, 'bin', 'no-build.js'));
  const err = Object.assign(new Error(`Cannot find module 'gray-matter'\nRequire stack:\n- ${path.join(ROOT, 'dist', 'fast', 'fast.cjs')}`), { code: 'MODULE_NOT_FOUND' });
  expect(reportMissingBuild(err, ['status'])).toBe(false);
  const missing = Object.assign(new Error(`Cannot find module '${path.join(ROOT, 'dist', 'fast', 'fast.cjs')}'\nRequire stack:\n- ${path.join(ROOT, 'bin', 'wmem.js')}`), { code: 'MODULE_NOT_FOUND' });
  const stderr = process.stderr.write;
  process.stderr.write = () => true;
  try {
    expect(reportMissingBuild(missing, ['status'])).toBe(true);
  } finally {
    process.stderr.write = stderr;
    process.exitCode = 0;
  }
});
