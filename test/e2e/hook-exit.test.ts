// bin/wmem.js ends a hook that has answered with process.exit() when nothing is left to run (so
// that Node's exit does not first run a young-generation collection of a heap about to be
// dropped), and never while anything the process started is still pending: a timer, an immediate,
// a chain of promise callbacks. Each case runs the built wmem with a --require'd probe that
// records whether the process ended through process.exit() and what the pending work wrote.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execa } from 'execa';
import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { BIN, sandbox, type Sandbox } from '../helpers/cli.js';

let box: Sandbox;
// Marks process.exit() calls, and starts the pending work WMEM_TEST_PENDING names.
const PROBE = `const fs = require('node:fs');
const out = process.env.WMEM_TEST_OUT;
const exit = process.exit;
process.exit = function (code) { fs.appendFileSync(out, 'exit() '); return exit.call(process, code); };
process.on('exit', (code) => fs.appendFileSync(out, 'code ' + code));
const pending = process.env.WMEM_TEST_PENDING;
if (pending === 'timer') setTimeout(() => fs.appendFileSync(out, 'timer '), 300);
if (pending === 'promises') {
  // A chain of promise callbacks started before the hook, still running when it has answered.
  let n = 0;
  const step = () => (++n < 20000 ? Promise.resolve().then(step) : fs.appendFileSync(out, 'promises '));
  step();
}
`;

beforeAll(async () => {
  box = await sandbox();
  await writeFile(path.join(box.root, 'probe.cjs'), PROBE);
});
afterAll(async () => box?.cleanup());

async function hook(pending: string, input: string): Promise<{ stdout: string; out: string }> {
  const out = path.join(box.root, `out-${pending}.txt`);
  await rm(out, { force: true });
  const env = { PATH: process.env.PATH ?? '', HOME: box.home, NO_COLOR: '1', WMEM_HOME: box.home, WMEM_TEST_OUT: out, WMEM_TEST_PENDING: pending, NODE_OPTIONS: `--require ${path.join(box.root, 'probe.cjs')}` };
  const r = await execa('node', [BIN, 'hook', '--agent', 'claude', 'UserPromptSubmit'], { cwd: box.project, input, reject: false, extendEnv: false, timeout: 60_000, env });
  expect(r.exitCode).toBe(0);
  return { stdout: r.stdout, out: await readFile(out, 'utf8') };
}

describe('a hook ends as soon as it has answered, never before its pending work', () => {
  const input = JSON.stringify({ session_id: 'exit-0001', cwd: '/tmp', hook_event_name: 'UserPromptSubmit', prompt: 'hello' });
  // A session's first prompt creates it and leaves a handle's close pending (Node's own exit ends
  // that one): the cases below are the prompts after it.
  beforeAll(async () => {
    await hook('first', input);
  });

  it('idle: through process.exit(), with its exit code', async () => {
    expect((await hook('none', input)).out).toBe('exit() code 0');
  });

  it('a timer pending: Node ends it as before, after the timer ran', async () => {
    expect((await hook('timer', input)).out).toBe('timer code 0');
  });

  it('promise callbacks still chained: they all run first', async () => {
    const { out } = await hook('promises', input);
    expect(out.startsWith('promises ')).toBe(true);
    expect(out.endsWith('code 0')).toBe(true);
  });

  it('answers the same with and without pending work', async () => {
    expect((await hook('timer', input)).stdout).toBe((await hook('none', input)).stdout);
  });
});
