// The incremental transcript reader against lines it must not read into memory (over MAX_LINE):
// they are skipped, read backward or forward, and the usage lines around them still count.
// And what it refuses to open: a FIFO (it would block), a folder.
import { afterEach, beforeEach, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { appendFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { MAX_LINE, readTranscriptUsage } from '../../src/agents/claude/transcript-file.js';

const assistant = (id: string, input: number) => JSON.stringify({ type: 'assistant', isSidechain: false, uuid: `u-${id}`, message: { id, model: 'claude-opus-4', role: 'assistant', content: [{ type: 'text', text: 'ok' }], usage: { input_tokens: input, output_tokens: 1 } } });
const huge = () => JSON.stringify({ type: 'user', message: { role: 'user', content: 'x'.repeat(MAX_LINE + 1024) } });

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'wmem-long-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

it('read backward, a line over the limit is skipped and the usage before or after it counts', async () => {
  const file = path.join(dir, 'after.jsonl');
  await writeFile(file, `${huge()}\n${assistant('m1', 700)}\n`);
  expect((await readTranscriptUsage(file)).view.lastUsage).toBe(700);
  const before = path.join(dir, 'before.jsonl');
  await writeFile(before, `${assistant('m1', 500)}\n${huge()}\n`);
  expect((await readTranscriptUsage(before)).view.lastUsage).toBe(500);
});

it('read forward from a cursor, a line over the limit is skipped and the next line counts', async () => {
  const file = path.join(dir, 't.jsonl');
  await writeFile(file, `${assistant('m1', 100)}\n`);
  const first = await readTranscriptUsage(file);
  await appendFile(file, `${huge()}\n${assistant('m2', 900)}\n`);
  const next = await readTranscriptUsage(file, first.cursor);
  expect(next.view.lastUsage).toBe(900);
  expect(next.cursor.consumed).toBeGreaterThan(MAX_LINE);
});

it('an unfinished last line over the limit is not read', async () => {
  const file = path.join(dir, 'open.jsonl');
  await writeFile(file, `${assistant('m1', 300)}\n${huge()}`);
  expect((await readTranscriptUsage(file)).view.lastUsage).toBe(300);
});

it('a FIFO or a folder is refused, not waited on', async () => {
  const fifo = path.join(dir, 'fifo.jsonl');
  execFileSync('mkfifo', [fifo]);
  await expect(readTranscriptUsage(fifo)).rejects.toMatchObject({ code: 'ENOTREG' });
  const folder = path.join(dir, 'folder.jsonl');
  await mkdir(folder);
  await expect(readTranscriptUsage(folder)).rejects.toMatchObject({ code: 'EISDIR' });
});
