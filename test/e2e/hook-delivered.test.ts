// A hook remembers which memory part it gave the agent (state/<agent>-hooks.json `delivered`), so
// that the next prompt sends only what changed. That record follows the answer's write: a hook
// whose answer cannot reach the agent (its pipe closed, a timeout) leaves no record that it
// delivered, and the next prompt sends the memory part (app/hook-moments.ts handOver).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { execa } from 'execa';
import { spawn, execFileSync } from 'node:child_process';
import { closeSync, constants as fsc, existsSync, openSync, readdirSync, readFileSync, readSync, writeSync } from 'node:fs';
import { copyFile, readdir, readFile, writeFile } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { BIN, FIXTURES, sandbox, type Sandbox } from '../helpers/cli.js';
import { copyOf, digestOf } from '../../src/render/memory-resend.js';

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
async function hookState(sid = SID): Promise<Record<string, unknown> | undefined> {
  const files = (await readdir(box.home, { recursive: true })).filter((f) => f.endsWith(path.join(sid, 'state', 'claude-hooks.json')));
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

/**
 * A FIFO whose two ends the test holds, both non-blocking, the pipe filled up: a hook given the
 * write end as fd 1 gets EAGAIN on its first write, and its answer goes out through the stream
 * (entries/stdout.ts), whatever its size.
 */
function fullPipe(name: string): { reader: number; writer: number; filled: number } {
  const fifo = path.join(box.root, `${name}.fifo`);
  execFileSync('mkfifo', [fifo]);
  const reader = openSync(fifo, fsc.O_RDONLY | fsc.O_NONBLOCK);
  const writer = openSync(fifo, fsc.O_WRONLY | fsc.O_NONBLOCK);
  let filled = 0;
  for (const page = Buffer.alloc(4096, 'x'); ; ) {
    try {
      filled += writeSync(writer, page);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EAGAIN') return { reader, writer, filled };
      throw err;
    }
  }
}

/** Whether process `pid` waits for fd 1 to take more (its epoll set watches fd 1 for EPOLLOUT). */
function waitsToWrite(pid: number): boolean {
  for (const fd of fdsOf(pid)) {
    const events = /^tfd:\s+1\s+events:\s+([0-9a-f]+)/m.exec(fdInfo(pid, fd))?.[1];
    if (events && (parseInt(events, 16) & 0x4) !== 0) return true;
  }
  return false;
}

/** The fds /proc lists for `pid`: none once it has exited. */
function fdsOf(pid: number): string[] {
  try {
    return readdirSync(`/proc/${pid}/fdinfo`);
  } catch {
    return [];
  }
}

/** An fd's /proc record; empty for one the process closed since it was listed (it runs on meanwhile). */
function fdInfo(pid: number, fd: string): string {
  try {
    return readFileSync(`/proc/${pid}/fdinfo/${fd}`, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return '';
    throw err;
  }
}

/** A SessionStart whose stdout is the full pipe's write end, once it waits to write its answer. */
async function startIntoFullPipe(sid: string, pipe: { writer: number }) {
  const child = spawn('node', [BIN, 'hook', 'SessionStart'], { cwd: box.project, env: env(), stdio: ['pipe', pipe.writer, 'pipe'] });
  // libuv makes a child's fds 0-2 blocking before its exec: O_NONBLOCK is the open file's, shared
  // with the child, and a pipe handle on it (uv_pipe_open) sets it again; destroying the handle
  // closes the test's copy. The hook reads its whole input before it writes: given after this.
  new net.Socket({ fd: pipe.writer, readable: false, writable: true }).destroy();
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  child.stdin!.end(inputOf('SessionStart', { session_id: sid, source: 'startup' }));
  let done = false;
  void exited.then(() => (done = true));
  while (!done && !waitsToWrite(child.pid!)) await new Promise((r) => setTimeout(r, 20));
  expect(done).toBe(false);
  return { exited, stderr: () => stderr };
}

/** Everything left in the pipe, read as it comes, until its last writer (the hook) is gone. */
async function drain(reader: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for (const buf = Buffer.alloc(65536); ; ) {
    try {
      const n = readSync(reader, buf);
      if (n === 0) return Buffer.concat(chunks);
      chunks.push(Buffer.from(buf.subarray(0, n)));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EAGAIN') throw err;
      await new Promise((r) => setTimeout(r, 10));
    }
  }
}

const onLinux = existsSync('/proc/self/fdinfo');

it.runIf(onLinux)('an answer that waits for a slow reader is recorded as delivered only once it is in the pipe', async () => {
  const sid = 'hook-delivered-slow-5d2e9a01';
  const pipe = fullPipe('slow');
  const hook = await startIntoFullPipe(sid, pipe);
  // The answer is not in the pipe yet: nothing may say it was delivered.
  expect((await hookState(sid))?.delivered).toBeUndefined();
  const out = await drain(pipe.reader);
  closeSync(pipe.reader);
  expect(await hook.exited).toBe(0);
  expect(hook.stderr()).toBe('');
  expect(out.subarray(0, pipe.filled).every((b) => b === 0x78)).toBe(true);
  const answer = JSON.parse(out.subarray(pipe.filled).toString('utf8'));
  expect(answer.hookSpecificOutput.additionalContext).toContain('<working_memory');
  expect((await hookState(sid))?.delivered).toBeDefined();
});

it.runIf(onLinux)('an answer whose reader goes away while it waits is not recorded as delivered', async () => {
  const sid = 'hook-delivered-gone-83b0c6f4';
  const pipe = fullPipe('gone');
  const hook = await startIntoFullPipe(sid, pipe);
  closeSync(pipe.reader);
  expect(await hook.exited).toBe(0);
  expect(hook.stderr()).toBe('');
  const state = await hookState(sid);
  expect(state?.delivered).toBeUndefined();
  expect(state?.started).toBeUndefined();
  const log = await readFile(path.join(box.home, 'logs', 'hooks.log'), 'utf8');
  expect(log.split('\n').filter((l) => l.includes(sid)).join('\n')).toContain('could not be written to stdout (EPIPE)');
});

it('a copy recorded under the part digest of a build before 2026-11-29 night (the part digested whole) is read by its blocks: nothing sent again, the record takes the digest now; a block changed since is sent', async () => {
  const sid = 'hook-delivered-older-5d2e8a17';
  const prompt = async () => JSON.parse(String((await hook('UserPromptSubmit', { session_id: sid, prompt: 'next' })).stdout || '{}')).hookSpecificOutput?.additionalContext as string | undefined;
  expect((await hook('SessionStart', { session_id: sid, source: 'startup' })).exitCode).toBe(0);
  const overview = (await readdir(box.home, { recursive: true })).find((f) => f.endsWith(path.join(sid, 'working-memory', 'overview.md')))!;
  const file = path.join(box.home, overview);
  const facts = Array.from({ length: 40 }, (_, i) => `- decision ${i}: the importer keeps its own retry loop`).join('\n');
  await writeFile(file, (await readFile(file, 'utf8')).replace('## Open Questions\n', `## Open Questions\n${facts}\n`));
  // The conversation holds no copy (as after a compaction): the prompt sends the part whole.
  const statePath = path.join(path.dirname(path.dirname(file)), 'state', 'claude-hooks.json');
  const stateNow = async () => JSON.parse(await readFile(statePath, 'utf8'));
  const state = await stateNow();
  delete state.delivered;
  await writeFile(statePath, JSON.stringify(state));
  const answer = (await prompt())!;
  // The memory part, without the context figures the answer adds after it.
  const part = answer.slice(0, answer.indexOf('\n<context_meta>'));
  expect(part.length).toBeGreaterThan(2048);
  const recorded = await stateNow();
  expect(recorded.delivered).toMatchObject(copyOf(part));
  expect(recorded.delivered.digest).not.toBe(digestOf(part));
  // The record an older build kept of the same copy: the part's text digested whole, each block as now.
  const older = async () => {
    const now = await stateNow();
    await writeFile(statePath, JSON.stringify({ ...now, delivered: { ...now.delivered, digest: digestOf(part) } }));
  };
  await older();
  expect(await prompt()).toMatch(/^<context_meta>\n[^]*<\/context_meta>$/);
  expect((await stateNow()).delivered.digest).toBe(copyOf(part).digest);
  // Under the older record again, a block changed since: that block is sent, whole.
  await older();
  await writeFile(file, (await readFile(file, 'utf8')).replace('## Open Questions\n', '## Open Questions\n- asked after the update\n'));
  const again = (await prompt())!;
  expect(again).toMatch(/^\[wmem: your working memory changed since the copy given earlier in this conversation \(working_memory\)/);
  expect(again).toContain('- asked after the update');
  expect(await prompt()).toMatch(/^<context_meta>\n[^]*<\/context_meta>$/);
});
