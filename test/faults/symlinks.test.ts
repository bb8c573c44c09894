// Symbolic links out of the home, planted where wmem reads, writes, lists or deletes, for every
// command that goes there. Outside the home sits a sentinel folder: after each command, nothing
// in it was read (its text is in no output), written, added or deleted, and no command printed a
// stack trace. A command may refuse (naming the link) or skip the link; it may never follow it.
import { afterAll, beforeEach, afterEach, expect, it } from 'vitest';
import { mkdir, readFile, readdir, rm, stat, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Sandbox } from '../helpers/cli.js';
import { withSession } from './helpers.js';

const SENTINEL = 'OUTSIDE-SENTINEL-7f3a9c';
const tally = { links: 0, commands: 0, escapes: [] as string[] };
let box: Sandbox;
let dir: string;
let outside: string;

afterAll(() => {
  console.log(`symlinks: ${tally.links} links planted, ${tally.commands} commands run against them; escaped ${tally.escapes.length}${tally.escapes.length ? `: ${tally.escapes.join('; ')}` : ''}`);
});

beforeEach(async () => {
  ({ box, dir } = await withSession());
  outside = path.join(box.root, 'outside');
  await mkdir(path.join(outside, 'folder'), { recursive: true });
  for (const name of ['secret.md', 'secret.jsonl', 'folder/old.txt']) await writeFile(path.join(outside, name), `${SENTINEL} ${JSON.stringify({ type: 'user', message: { role: 'user', content: SENTINEL } })}\n`);
});
afterEach(async () => {
  await box.cleanup();
});

/** The sentinel folder: names, sizes and modification times. */
async function outsideState(): Promise<string> {
  const rows: string[] = [];
  const walk = async (d: string) => {
    for (const e of (await readdir(d, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name))) {
      const full = path.join(d, e.name);
      const st = await stat(full);
      rows.push(`${path.relative(outside, full)} ${st.size} ${st.mtimeMs}`);
      if (e.isDirectory()) await walk(full);
    }
  };
  await walk(outside);
  return rows.join('\n');
}

interface Plant {
  /** Where the link goes, relative to the session folder (`..` is the project's folder). */
  at: string;
  /** What it points to, relative to the sentinel folder. */
  to: string;
}

async function plant(links: Plant[]): Promise<void> {
  for (const link of links) {
    const where = path.join(dir, link.at);
    await mkdir(path.dirname(where), { recursive: true });
    await rm(where, { recursive: true, force: true });
    await symlink(path.join(outside, link.to), where);
    tally.links++;
  }
}

async function attack(name: string, links: Plant[], commands: { args: string[]; input?: string }[]): Promise<void> {
  await plant(links);
  const before = await outsideState();
  for (const { args, input } of commands) {
    const r = await box.run(args, { input });
    tally.commands++;
    const out = `${r.stdout}\n${r.stderr}`;
    const label = `${name}: wmem ${args.join(' ')}`;
    if (out.includes(SENTINEL)) tally.escapes.push(`${label} printed the outside file`);
    if (/\n\s+at .+:\d+:\d+/.test(out)) tally.escapes.push(`${label} printed a stack trace`);
    expect(out, label).not.toContain(SENTINEL);
    expect(out, label).not.toMatch(/\n\s+at .+:\d+:\d+/);
    const after = await outsideState();
    if (after !== before) tally.escapes.push(`${label} changed the outside folder`);
    expect(after, label).toBe(before);
  }
}

const hookInput = (event: string, extra: Record<string, unknown>) => JSON.stringify({ session_id: 'hooked', cwd: '.', hook_event_name: event, ...extra });

it('a detail file linked out is not read by search, show, consolidate or context, nor removed by rm', async () => {
  await attack('detail/leak.md', [{ at: 'working-memory/detail/leak.md', to: 'secret.md' }], [
    { args: ['search', 'OUTSIDE'] },
    { args: ['show', 'detail/leak.md'] },
    { args: ['consolidate'] },
    { args: ['context'] },
    { args: ['status'] },
    { args: ['rm', path.basename(dir), '--yes'] },
  ]);
});

it('an archive linked out is not read by search, show or restore', async () => {
  await attack('archive/leak.jsonl', [{ at: 'working-memory/archive/messages-leak.jsonl', to: 'secret.jsonl' }], [
    { args: ['search', 'OUTSIDE'] },
    { args: ['show', 'archive/messages-leak.jsonl'] },
    { args: ['restore', 'messages-leak.jsonl'] },
  ]);
});

it('scratch.md, overview.md and messages.jsonl linked out are not written through nor read', async () => {
  await attack('files', [
    { at: 'working-memory/scratch.md', to: 'secret.md' },
    { at: 'working-memory/overview.md', to: 'secret.md' },
    { at: 'messages.jsonl', to: 'secret.jsonl' },
  ], [
    { args: ['note', 'a note'] },
    { args: ['show', 'scratch'] },
    { args: ['consolidate'] },
    { args: ['set', 'context', 'new text'] },
    { args: ['append', 'progress', 'more'] },
    { args: ['show', 'overview'] },
    { args: ['context'] },
    { args: ['compact', '--keep-recent', '1'] },
    { args: ['show', 'messages'] },
    { args: ['search', 'OUTSIDE'] },
  ]);
});

it('folders linked out (detail/, archive/, state/, the cache) are not listed, written or swept', async () => {
  await attack('folders', [
    { at: 'working-memory/detail', to: 'folder' },
    { at: 'working-memory/archive', to: 'folder' },
    { at: 'state', to: 'folder' },
    { at: '../cache', to: 'folder' },
  ], [
    { args: ['search', 'OUTSIDE'] },
    { args: ['consolidate'] },
    { args: ['note', 'x', '--importance', '0.9'] },
    { args: ['hook', 'PostToolUse'], input: hookInput('PostToolUse', { tool_name: 'Edit', tool_input: { file_path: 'a.ts' }, tool_response: {} }) },
    { args: ['track'], input: JSON.stringify({ tool_name: 'Edit', tool_input: { file_path: 'a.ts' }, tool_response: {} }) },
    { args: ['prune'], input: 'line\n'.repeat(5000) },
    { args: ['sweep', '--ttl', '0s'] },
    { args: ['status'] },
  ]);
});

it('a session folder and workspace memory linked out are refused', async () => {
  await mkdir(path.join(outside, 'session'), { recursive: true });
  await attack('session', [
    { at: '../linked', to: 'session' },
    { at: '../workspace-memory.json', to: 'secret.md' },
  ], [
    { args: ['init', '--session', 'linked'] },
    { args: ['note', 'hello', '--session', 'linked'] },
    { args: ['context', '--session', 'linked'] },
    { args: ['remember', '--type', 'project', 'The build needs Node 20 and pnpm 9 to run'] },
    { args: ['memories'] },
    { args: ['context'] },
    { args: ['rm', 'linked', '--yes'] },
  ]);
});
