// `wmem migrate` killed (SIGKILL) at growing instants, then rerun: every rerun picks up where the
// last stopped, and nothing is written twice or lost. Kill loops: the slow tier (test/tiers.ts).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readFile, readdir, writeFile } from 'node:fs/promises';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { BIN, runJson, sandbox, type Sandbox } from '../helpers/cli.js';
import { expectMigrated, legacySessions, projectDir } from '../helpers/legacy-sessions.js';

let box: Sandbox;
beforeEach(async () => {
  box = await sandbox();
});
afterEach(async () => {
  await box.cleanup();
});

/** Runs `wmem ARGS`, killed after each delay in turn until a run finishes; returns how many were killed. */
async function killUntilDone(args: string[], delays: number[]): Promise<number> {
  let kills = 0;
  for (const delay of delays) {
    const child = spawn('node', [BIN, ...args], { cwd: box.project, env: { PATH: process.env.PATH ?? '', HOME: box.home, WMEM_HOME: box.home, NO_COLOR: '1' }, stdio: 'ignore' });
    const timer = setTimeout(() => child.kill('SIGKILL'), delay);
    const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
    clearTimeout(timer);
    if (code === 0) break;
    kills++;
  }
  return kills;
}

describe('migrate legacy', () => {
  it('is resumable after a SIGKILL at any point', async () => {
    const dir = await projectDir(box);
    const originals = await legacySessions(box, dir, 40);
    // Kill runs at growing delays until one finishes; every rerun must pick up where the last stopped.
    const kills = await killUntilDone(['migrate', 'legacy'], [60, 90, 120, 150, 200, 260, 330, 420, 600, 900, 1500, 3000]);
    expect(kills).toBeGreaterThan(0);
    // On a loaded machine every run above may have been killed: an unkilled run finishes what is
    // left, and the one after it finds nothing to do.
    await runJson(box, ['migrate', 'legacy']);
    const rerun = await runJson(box, ['migrate', 'legacy']);
    expect(rerun.sessions).toEqual([]);
    await expectMigrated(box, dir, originals);
  });
});

describe('migrate memory-md', () => {
  it('is resumable after a SIGKILL: no chunk written twice, none missing', async () => {
    const { path: sessionDir } = await runJson(box, ['init']);
    const big = Array.from({ length: 1500 }, (_, i) => `- Fact ${i}: module ${i % 37} owns table t${i} and is deployed by job ${i % 11}.`).join('\n');
    await writeFile(path.join(box.project, 'MEMORY.md'), big);
    const expected = (await runJson(box, ['migrate', 'memory-md', 'MEMORY.md', '--dry-run'])).chunks.length;
    const kills = await killUntilDone(['migrate', 'memory-md', 'MEMORY.md'], [300, 400, 500, 600, 700, 800, 1000, 1300, 1700, 2500, 6000]);
    expect(kills).toBeGreaterThan(0);
    // On a loaded machine every run may have been killed: this one finishes what is left, and
    // the next finds nothing to do.
    await runJson(box, ['migrate', 'memory-md', 'MEMORY.md']);
    const final = await runJson(box, ['migrate', 'memory-md', 'MEMORY.md']);
    expect(final.alreadySeeded).toBe(true);
    const details = (await readdir(path.join(sessionDir, 'working-memory', 'detail'))).filter((n) => n.startsWith('memory-md-'));
    expect(details).toHaveLength(expected);
    const overview = await readFile(path.join(sessionDir, 'working-memory', 'overview.md'), 'utf8');
    for (const d of details) expect(overview.split(`detail/${d}`).length - 1, d).toBe(1);
    expect(await readFile(path.join(box.project, 'MEMORY.md.seed-backup'), 'utf8')).toBe(big);
  }, 120_000); // up to eleven runs killed at up to 6 s each, then two more: slow on a loaded machine
});
