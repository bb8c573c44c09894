// A real full disk (a 2 MB tmpfs; root is needed to mount it, elsewhere the test says why it did
// not run): every command that writes fails with a clear "no space" message and leaves each file
// whole, old or new, never torn; once space is freed, everything works again and nothing is lost.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { runWmem } from '../helpers/cli.js';
import { smallDisk, type SmallDisk } from '../helpers/small-disk.js';
import { listTree } from './helpers.js';

let disk: SmallDisk;
const tally = { tried: 0, refusedCleanly: 0, tornFiles: 0 };

beforeAll(async () => {
  disk = await smallDisk('2m');
});
afterAll(async () => {
  console.log(`full disk: ${tally.tried} writing commands run on a full disk, ${tally.refusedCleanly} failed cleanly, torn files ${tally.tornFiles}`);
  await disk.unmount();
});

it('every writing command on a full disk fails cleanly, and nothing is torn or lost', async (ctx) => {
  if (!disk.mounted) {
    console.log(`skipped: ${disk.why}`);
    ctx.skip();
  }
  const home = path.join(disk.mountPoint, 'home');
  const project = path.join(disk.mountPoint, 'project');
  await mkdir(project, { recursive: true });
  const run = (args: string[], input?: string) => runWmem(args, { home, cwd: project, input });
  expect((await run(['init', '--session', 'full'])).exitCode).toBe(0);
  for (let i = 0; i < 30; i++) expect((await run(['note', `kept note ${i}: the worker pool size is ${i}`])).exitCode).toBe(0);
  const messages = JSON.parse(String((await run(['show', 'messages', '--json'])).stdout)).file as string;
  const turns = Array.from({ length: 40 }, (_, t) => [
    JSON.stringify({ type: 'user', message: { role: 'user', content: `turn ${t} ${'x'.repeat(300)}` } }),
    JSON.stringify({ type: 'assistant', message: { id: `m${t}`, role: 'assistant', content: [{ type: 'text', text: `answer ${t} ${'y'.repeat(300)}` }] } }),
  ]).flat();
  const history = turns.join('\n') + '\n';
  await writeFile(messages, history);
  const session = path.dirname(messages);
  const files = ['messages.jsonl', 'working-memory/overview.md', 'working-memory/scratch.md', 'meta.json'];
  const before = Object.fromEntries(await Promise.all(files.map(async (f) => [f, await readFile(path.join(session, f), 'utf8')])));

  await disk.fill();
  const commands: string[][] = [
    ['note', `a note that should not fit ${'z'.repeat(4000)}`],
    ['remember', '--type', 'project', `The deploy script needs the VPN up before it runs ${'w'.repeat(200)}`],
    ['set', 'context', `new context ${'c'.repeat(800)}`],
    ['append', 'progress', `more progress ${'p'.repeat(800)}`],
    ['compact', '--keep-recent', '2'],
    ['consolidate'],
  ];
  for (const args of commands) {
    const r = await run(args);
    tally.tried++;
    const said = `${r.stdout}\n${r.stderr}`;
    expect(said, args[0]).not.toMatch(/\n\s+at .+:\d+:\d+/);
    if (r.exitCode !== 0) {
      expect(String(r.stderr), args[0]).toMatch(/disk full|no space left/);
      tally.refusedCleanly++;
    }
    // Each file is its old self or a whole new one: the overview parses, scratch lines are notes,
    // and the history plus its archives still hold every line.
    expect((await run(['context'])).exitCode, `context after ${args[0]}`).toBe(0);
    const scratch = await readFile(path.join(session, 'working-memory/scratch.md'), 'utf8');
    const torn = scratch.split('\n').filter((l) => l.trim() && !/^- \[/.test(l) && !l.startsWith('<!--'));
    tally.tornFiles += torn.length;
    expect(torn, `scratch.md after ${args[0]}`).toEqual([]);
  }
  expect(await readFile(path.join(session, 'messages.jsonl'), 'utf8')).toBe(before['messages.jsonl']);

  await disk.free();
  // Space again: the notes are all there, the compaction runs and restores byte for byte.
  const consolidated = JSON.parse(String((await run(['consolidate', '--json'])).stdout));
  expect(consolidated.consumed).toBe(30);
  const compacted = JSON.parse(String((await run(['compact', '--keep-recent', '2', '--json'])).stdout));
  expect((await run(['restore', path.basename(compacted.archive)])).exitCode).toBe(0);
  expect(await readFile(path.join(session, 'messages.jsonl'), 'utf8')).toBe(history);
  expect((await listTree(session)).filter((f) => f.endsWith('.tmp'))).toEqual([]);
});
