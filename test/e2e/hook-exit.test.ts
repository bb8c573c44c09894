// A hook's process ends as soon as it has answered when nothing is left to run (bin/wmem.js
// endIfIdle): it does not turn its event loop once more, where V8 would run the scavenge it posted
// near the end of a prompt after a tool call (bench/README.md, after13). Node's 'beforeExit' is
// emitted only when the loop has emptied by itself, so a probe listening for it tells the two
// ends apart; the 'exit' listeners still run and the exit code is the hook's. Work still pending
// (here a timer the probe leaves) is waited for, as before.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { execa } from 'execa';
import { copyFile, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { BIN, FIXTURES, sandbox, type Sandbox } from '../helpers/cli.js';

const SID = 'hook-exit-5d0c2a91';
let box: Sandbox;

const PROBE = `const fs = require('node:fs');
const mark = (what) => fs.appendFileSync(process.env.WMEM_TEST_MARKS, what + '\\n');
process.on('beforeExit', () => mark('loop emptied'));
process.on('exit', (code) => mark('exit ' + code));
if (process.env.WMEM_TEST_PENDING) setTimeout(() => mark('timer ran'), 200);`;

beforeAll(async () => {
  box = await sandbox();
  await copyFile(path.join(FIXTURES, 'claude-code-log', 'ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl'), path.join(box.root, 'transcript.jsonl'));
  await writeFile(path.join(box.root, 'probe.cjs'), PROBE);
});
afterAll(async () => box?.cleanup());

/** One Claude Code hook through `wmem hook`: its stdout, exit code and the probe's marks. */
async function hook(event: string, fields: Record<string, unknown>, extra: Record<string, string> = {}) {
  const marks = path.join(box.root, 'marks.txt');
  await rm(marks, { force: true });
  const input = JSON.stringify({ session_id: SID, transcript_path: path.join(box.root, 'transcript.jsonl'), cwd: box.project, hook_event_name: event, ...fields });
  const env = { PATH: process.env.PATH ?? '', HOME: box.home, NO_COLOR: '1', WMEM_HOME: box.home, WMEM_TEST_MARKS: marks, NODE_OPTIONS: `--require ${path.join(box.root, 'probe.cjs')}`, ...extra };
  const r = await execa('node', [BIN, 'hook', event], { cwd: box.project, input, reject: false, extendEnv: false, timeout: 60_000, env });
  return { stdout: String(r.stdout), exitCode: r.exitCode, stderr: r.stderr, marks: (await readFile(marks, 'utf8')).trim().split('\n') };
}

it('ends as soon as the hook answered: no further turn of the event loop, the exit listeners run', async () => {
  await hook('SessionStart', { source: 'startup' });
  await hook('PostToolUseFailure', { tool_name: 'Bash', tool_input: { command: 'npm run lint' }, tool_use_id: 'u', error: 'Exit code 2\nlint: 3 problems', is_interrupt: false });
  const prompt = await hook('UserPromptSubmit', { prompt: 'after a tool call' });
  expect(prompt).toMatchObject({ exitCode: 0, stderr: '', marks: ['exit 0'] });
  expect(JSON.parse(prompt.stdout).hookSpecificOutput.additionalContext).toContain('lint: 3 problems');
});

it('waits for work still pending, as a process left to end by itself', async () => {
  const r = await hook('UserPromptSubmit', { prompt: 'next' }, { WMEM_TEST_PENDING: '1' });
  expect(r).toMatchObject({ exitCode: 0, stderr: '' });
  // The timer runs before the exit. Then the loop empties by itself ('beforeExit'), or, on a
  // machine slow enough that the timer is due before endIfIdle's second look (one turn later),
  // that look finds nothing left and ends it: both wait for the work, which is what matters.
  expect([['timer ran', 'loop emptied', 'exit 0'], ['timer ran', 'exit 0']]).toContainEqual(r.marks);
});

it('`wmem context` answered from its answer cache ends the same way', async () => {
  const marks = path.join(box.root, 'marks.txt');
  const env = { PATH: process.env.PATH ?? '', HOME: box.home, NO_COLOR: '1', WMEM_HOME: box.home, WMEM_SETTLE_MS: '0', WMEM_TEST_MARKS: marks, NODE_OPTIONS: `--require ${path.join(box.root, 'probe.cjs')}` };
  const context = async () => {
    await rm(marks, { force: true });
    const r = await execa('node', [BIN, 'context'], { cwd: box.project, reject: false, extendEnv: false, timeout: 60_000, env });
    return { stdout: String(r.stdout), exitCode: r.exitCode, marks: (await readFile(marks, 'utf8')).trim().split('\n') };
  };
  await execa('node', [BIN, 'init'], { cwd: box.project, extendEnv: false, env });
  await context(); // the full path: answers, keeps the answer (and the render cache it reads)
  const full = await context();
  const hit = await context();
  expect(hit.exitCode).toBe(0);
  expect(hit.stdout).toBe(full.stdout);
  expect(hit.stdout).not.toBe('');
  expect(hit.marks).toEqual(['exit 0']);
});

it('`wmem search` ends the same way once it has printed its results', async () => {
  const marks = path.join(box.root, 'marks.txt');
  await rm(marks, { force: true });
  const env = { PATH: process.env.PATH ?? '', HOME: box.home, NO_COLOR: '1', WMEM_HOME: box.home, WMEM_TEST_MARKS: marks, NODE_OPTIONS: `--require ${path.join(box.root, 'probe.cjs')}` };
  const r = await execa('node', [BIN, 'search', 'Open Questions', '--json'], { cwd: box.project, reject: false, extendEnv: false, timeout: 60_000, env });
  expect({ exitCode: r.exitCode, stderr: r.stderr }).toEqual({ exitCode: 0, stderr: '' });
  expect(JSON.parse(String(r.stdout)).query).toBe('Open Questions');
  expect((await readFile(marks, 'utf8')).trim().split('\n')).toEqual(['exit 0']);
});
