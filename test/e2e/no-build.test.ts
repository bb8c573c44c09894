// bin/wmem.js without its build (dist/ not built yet, removed by a build under way, a partial
// copy): a command says what is wrong and what to do, and exits non-zero; a hook answers nothing,
// exits 0 (a hook never breaks the agent) and logs why where the home has its log folder.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { execa } from 'execa';
import { copyFile, mkdir, readFile } from 'node:fs/promises';
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
