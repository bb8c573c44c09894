// The session lock is a folder inside the memory tree, so it is private like every other folder.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { execa } from 'execa';
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { atomicWrite, withLock } from '../../src/store/fsx.js';

const require = createRequire(import.meta.url);

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'wmem-lock-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('withLock', () => {
  it('holds a 0700 lock folder while the work runs and removes it after', async () => {
    const previous = process.umask(0o022);
    try {
      const mode = await withLock(dir, async () => (await stat(path.join(dir, '.lock'))).mode & 0o777);
      expect(mode).toBe(0o700);
    } finally {
      process.umask(previous);
    }
    expect(existsSync(path.join(dir, '.lock'))).toBe(false);
  });

  it('releases the lock when the work throws', async () => {
    await expect(withLock(dir, async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(existsSync(path.join(dir, '.lock'))).toBe(false);
  });
});

describe('a lock holder held up past the stale time', () => {
  // A second process takes the stale lock over and commits; the first, once it runs again, must
  // not commit over it (issue: consolidation blocked > 5 s lost the notes appended meanwhile).
  const taker = `
    const lockfile = require(${JSON.stringify(require.resolve('proper-lockfile'))});
    const fs = require('fs');
    const [dir, file] = process.argv.slice(1);
    (async () => {
      for (;;) {
        try {
          const release = await lockfile.lock(dir, { lockfilePath: dir + '/.lock', stale: 2000, update: 1000, realpath: false });
          fs.writeFileSync(file, 'written by the new holder');
          await release();
          return;
        } catch (e) { if (e.code !== 'ELOCKED') throw e; await new Promise((r) => setTimeout(r, 50)); }
      }
    })();`;

  it('checks its lock right before committing and writes nothing', async () => {
    const file = path.join(dir, 'state.json');
    await writeFile(file, 'before');
    const outcome = withLock(dir, async () => {
      const child = execa(process.execPath, ['-e', taker, dir, file]);
      // Held up: the event loop is blocked, so the lock's heartbeat cannot run.
      const until = Date.now() + 3_500;
      while (Date.now() < until) {
        /* busy */
      }
      await child;
      await atomicWrite(file, 'written by the old holder');
    }, { staleMs: 2_000 });
    await expect(outcome).rejects.toThrow(/lost the lock on .*nothing was written/);
    expect(await readFile(file, 'utf8')).toBe('written by the new holder');
  }, 20_000);

  it('commits as usual when nobody took the lock', async () => {
    const file = path.join(dir, 'state.json');
    await withLock(dir, async () => atomicWrite(file, 'mine'), { staleMs: 2_000 });
    expect(await readFile(file, 'utf8')).toBe('mine');
    expect(existsSync(path.join(dir, '.lock.owner'))).toBe(false);
  });

  it('with retryOnLostLock, runs the work again under a fresh lock and commits then', async () => {
    const file = path.join(dir, 'state.json');
    await writeFile(file, 'before');
    const warnings: string[] = [];
    let attempts = 0;
    await withLock(dir, async () => {
      attempts++;
      if (attempts === 1) {
        const child = execa(process.execPath, ['-e', taker, dir, file]);
        const until = Date.now() + 3_500;
        while (Date.now() < until) {
          /* busy: the heartbeat cannot run */
        }
        await child;
      }
      // Read-modify-write: the second attempt sees what the new holder wrote.
      await atomicWrite(file, `${await readFile(file, 'utf8')} + attempt ${attempts}`);
    }, { staleMs: 2_000, retryOnLostLock: 1, warn: (m) => warnings.push(m) });
    expect(attempts).toBe(2);
    expect(await readFile(file, 'utf8')).toBe('written by the new holder + attempt 2');
    expect(warnings.join('\n')).toMatch(/lost the lock .*trying again/);
  }, 20_000);
});
