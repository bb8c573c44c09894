// End-to-end on a real full disk (a 256 KB tmpfs): a note that does not fit leaves scratch.md as
// it was (no partial line that a later consolidation would take for a note) and says so. Needs
// root for the mount; elsewhere the test says why it did not run.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdir, readFile } from 'node:fs/promises';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { FIXTURES, runWmem } from '../helpers/cli.js';
import { smallDisk, type SmallDisk } from '../helpers/small-disk.js';

let disk: SmallDisk;

beforeAll(async () => {
  disk = await smallDisk('256k');
});
afterAll(async () => {
  await disk.unmount();
});

describe('a full disk', () => {
  it('a note that does not fit is not saved, and scratch.md is left whole', async (ctx) => {
    if (!disk.mounted) {
      console.log(`skipped: ${disk.why}`);
      ctx.skip();
    }
    const home = path.join(disk.mountPoint, 'home');
    const project = path.join(disk.mountPoint, 'project');
    await mkdir(project, { recursive: true });
    const run = (args: string[]) => runWmem(args, { home, cwd: project });
    expect((await run(['init', '--session', 'disk'])).exitCode).toBe(0);
    expect((await run(['note', 'saved before the disk filled up'])).exitCode).toBe(0);
    const scratch = path.join(home, 'sessions', (await import('node:fs')).readdirSync(path.join(home, 'sessions'))[0], 'disk', 'working-memory', 'scratch.md');
    const before = await readFile(scratch, 'utf8');
    await disk.fill();
    const big = await run(['note', `a long note ${'that will not fit '.repeat(600)}`]);
    expect(big.exitCode).toBe(1);
    expect(String(big.stderr)).toContain('disk full: note not saved');
    expect(await readFile(scratch, 'utf8')).toBe(before);
    // Room again: the next note is whole, and a consolidation finds exactly the two notes.
    await disk.free();
    expect((await run(['note', 'saved after space was freed'])).exitCode).toBe(0);
    const consolidated = JSON.parse(String((await run(['consolidate', '--json'])).stdout));
    expect(consolidated.consumed).toBe(2);
    console.log('disk full: 1 note refused, 0 partial lines, 2 of 2 saved notes consolidated');
  });

  it('an archive that does not fit leaves no temp file in detail/ or archive/', async (ctx) => {
    if (!disk.mounted) {
      console.log(`skipped: ${disk.why}`);
      ctx.skip();
    }
    const home = path.join(disk.mountPoint, 'home2');
    const project = path.join(disk.mountPoint, 'project2');
    await mkdir(project, { recursive: true });
    const run = (args: string[], input = '') => runWmem(args, { home, cwd: project, input });
    expect((await run(['init', '--session', 'full'])).exitCode).toBe(0);
    // The transcript lives elsewhere (it is larger than this disk); its archive is written here.
    const transcript = path.join(FIXTURES, 'claude-code-log/ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl');
    await disk.fill();
    const input = JSON.stringify({ session_id: 'full', transcript_path: transcript, cwd: project, hook_event_name: 'PreCompact', trigger: 'auto' });
    expect((await run(['hook', 'PreCompact'], input)).exitCode).toBe(0);
    const session = path.join(home, 'sessions', readdirSync(path.join(home, 'sessions'))[0], 'full', 'working-memory');
    // Nothing was archived (the disk is full), and nothing half-written stays.
    expect(readdirSync(path.join(session, 'archive')).filter((n) => n.endsWith('.jsonl'))).toEqual([]);
    for (const dir of ['detail', 'archive']) expect(readdirSync(path.join(session, dir)).filter((n) => n.endsWith('.tmp'))).toEqual([]);
    await disk.free();
  });
});
