// A hook remembers which memory part it gave the agent (state/<agent>-hooks.json `delivered`), so
// that the next prompt sends only what changed. That record follows the answer's write: a hook
// whose answer cannot reach the agent (its pipe closed, a timeout) leaves no record that it
// delivered, and the next prompt sends the memory part (app/hook-moments.ts handOver).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { execa } from 'execa';
import { copyFile, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { BIN, FIXTURES, sandbox, type Sandbox } from '../helpers/cli.js';

const SID = 'hook-delivered-7c1e04b2';
let box: Sandbox;

beforeAll(async () => {
  box = await sandbox();
  await copyFile(path.join(FIXTURES, 'claude-code-log', 'ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl'), path.join(box.root, 'transcript.jsonl'));
});
afterAll(async () => box?.cleanup());

function inputOf(event: string, fields: Record<string, unknown>): string {
  return JSON.stringify({ session_id: SID, transcript_path: path.join(box.root, 'transcript.jsonl'), cwd: box.project, hook_event_name: event, ...fields });
}

const env = () => ({ PATH: process.env.PATH ?? '', HOME: box.home, NO_COLOR: '1', WMEM_HOME: box.home });

/**
 * The hook with its stdout on a pipe whose reader is gone before it starts (every write: EPIPE).
 * A closed descriptor would not do: Node opens /dev/null in its place at startup.
 */
async function hookIntoClosedPipe(event: string, fields: Record<string, unknown>) {
  const fifo = path.join(box.root, 'out.fifo');
  const script = 'rm -f "$1"; mkfifo "$1" && exec 3<>"$1" 4>"$1" 3<&- && exec node "$2" hook "$3" >&4 4>&-';
  return execa('bash', ['-c', script, 'bash', fifo, BIN, event], { cwd: box.project, input: inputOf(event, fields), reject: false, extendEnv: false, timeout: 60_000, env: env() });
}

async function hook(event: string, fields: Record<string, unknown>) {
  return execa('node', [BIN, 'hook', event], { cwd: box.project, input: inputOf(event, fields), reject: false, extendEnv: false, timeout: 60_000, env: env() });
}

/** The session's hook state as saved (undefined: none yet). */
async function hookState(): Promise<Record<string, unknown> | undefined> {
  const files = (await readdir(box.home, { recursive: true })).filter((f) => f.endsWith(path.join(SID, 'state', 'claude-hooks.json')));
  return files.length ? JSON.parse(await readFile(path.join(box.home, files[0]!), 'utf8')) : undefined;
}

it('records no delivery for an answer that could not be written, and the next prompt sends the memory part', async () => {
  const start = await hookIntoClosedPipe('SessionStart', { source: 'startup' });
  expect(start.exitCode).toBe(0);
  expect(start.stderr).toBe('');
  expect((await hookState())?.delivered).toBeUndefined();
  const prompt = await hook('UserPromptSubmit', { prompt: 'hello' });
  expect(prompt.exitCode).toBe(0);
  expect(JSON.parse(String(prompt.stdout)).hookSpecificOutput.additionalContext).toContain('<working_memory');
  expect((await hookState())?.delivered).toBeDefined();
  const log = await readFile(path.join(box.home, 'logs', 'hooks.log'), 'utf8');
  expect(log).toContain('could not be written to stdout (EPIPE)');
});


it('a prompt whose answer could not be written records no delivery either: the next prompt sends what it held', async () => {
  // The session delivered above: an overview change makes the next prompt answer with the memory part.
  const overview = (await readdir(box.home, { recursive: true })).find((f) => f.endsWith(path.join(SID, 'working-memory', 'overview.md')))!;
  const file = path.join(box.home, overview);
  await writeFile(file, (await readFile(file, 'utf8')).replace('## Open Questions\n', '## Open Questions\n- does the lost answer come again?\n'));
  const before = JSON.stringify((await hookState())?.delivered);
  const lost = await hookIntoClosedPipe('UserPromptSubmit', { prompt: 'into a closed pipe' });
  expect(lost.exitCode).toBe(0);
  expect(lost.stderr).toBe('');
  expect(JSON.stringify((await hookState())?.delivered)).toBe(before);
  const next = await hook('UserPromptSubmit', { prompt: 'again' });
  expect(JSON.parse(String(next.stdout)).hookSpecificOutput.additionalContext).toContain('does the lost answer come again?');
});
