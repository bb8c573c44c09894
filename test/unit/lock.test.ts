// The session lock is a folder inside the memory tree, so it is private like every other folder.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { appendFile, mkdir, mkdtemp, readFile, rm, rmdir, stat, utimes, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { buildSync } from 'esbuild';
import { createRequire } from 'node:module';
import { execa } from 'execa';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmdirSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { atomicWrite, atomicWriteWith, withLock } from '../../src/store/fsx.js';

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

  /**
   * Busy, without yielding to timers (no heartbeat), until the taker has written `file`, or two
   * minutes at most: a blocked event loop cannot time the test out, so a taker that never takes
   * over must end the wait here (the test's checks then fail).
   */
  const heldUpUntilTaken = (file: string) => {
    for (const until = Date.now() + 120_000; Date.now() < until && readFileSync(file, 'utf8') !== 'written by the new holder'; ) {
      /* busy */
    }
  };

  it('checks its lock right before committing and writes nothing', async () => {
    const file = path.join(dir, 'state.json');
    await writeFile(file, 'before');
    const outcome = withLock(dir, async () => {
      const child = execa(process.execPath, ['-e', taker, dir, file]);
      // Held up until the taker has taken the lock over and committed: the event loop is blocked,
      // so the lock's heartbeat cannot run. (Not a fixed time: a loaded machine may take longer
      // than any to start the taker, and a heartbeat after it would keep the lock from it.)
      heldUpUntilTaken(file);
      await child;
      await atomicWrite(file, 'written by the old holder');
    }, { staleMs: 2_000 });
    await expect(outcome).rejects.toThrow(/lost the lock on .*nothing was written/);
    expect(await readFile(file, 'utf8')).toBe('written by the new holder');
  }, 20_000);

  it("a brief hold (a tool call's hot state) writes no owner token, and still refuses to commit once its folder was taken over", async () => {
    const file = path.join(dir, 'state.json');
    await writeFile(file, 'before');
    const lock = path.join(dir, '.lock');
    const outcome = withLock(dir, async () => {
      // No token beside the folder: its create, two reads and its unlink are spared on every tool call.
      expect(existsSync(`${lock}.owner`)).toBe(false);
      // Taken over as a stale folder is (proper-lockfile's way writes no token): removed and made
      // again, which the file system may give the same inode (ext4 does), with a later mtime.
      await rmdir(lock);
      await mkdir(lock);
      const later = new Date(Date.now() + 10_000);
      await utimes(lock, later, later);
      await atomicWrite(file, 'written by the old holder');
    }, { brief: true });
    await expect(outcome).rejects.toThrow(/lost the lock on .*nothing was written/);
    expect(await readFile(file, 'utf8')).toBe('before');
  });

  it('a hold taken over while its write was under way (a slow fsync past the stale time) commits nothing', async () => {
    // The takeover lands inside the write, after the temp file was opened: the check before the
    // rename sees it, where a check before the write alone let the stale write replace the taker's.
    const file = path.join(dir, 'state.json');
    await writeFile(file, 'before');
    const lock = path.join(dir, '.lock');
    const takenOverDuringTheWrite = (brief: boolean) =>
      withLock(dir, async () => {
        await atomicWriteWith(file, (fd) => {
          writeFileSync(fd, 'written by the old holder');
          if (brief) {
            rmdirSync(lock);
            mkdirSync(lock);
            const later = new Date(Date.now() + 10_000);
            utimesSync(lock, later, later);
          } else writeFileSync(`${lock}.owner`, 'the token of the process that took over');
          writeFileSync(file, 'written by the new holder');
        });
      }, { brief });
    await expect(takenOverDuringTheWrite(true)).rejects.toThrow(/lost the lock on .*nothing was written/);
    expect(await readFile(file, 'utf8')).toBe('written by the new holder');
    await rm(lock, { recursive: true, force: true });
    await rm(`${lock}.owner`, { force: true });
    await writeFile(file, 'before');
    await expect(takenOverDuringTheWrite(false)).rejects.toThrow(/lost the lock on .*nothing was written/);
    expect(await readFile(file, 'utf8')).toBe('written by the new holder');
    // No temp file left beside it.
    expect(readdirSync(dir).filter((name) => name.includes('state.json'))).toEqual(['state.json']);
  });

  it("a holder whose stale lock a brief hold took over refuses to commit, though the new folder may have its inode", async () => {
    // The taker writes no token of its own, so it removes the stale holder's: on ext4 the new
    // folder often gets the old one's inode back, and the token was then all that told them apart.
    const file = path.join(dir, 'state.json');
    await writeFile(file, 'before');
    const lock = path.join(dir, '.lock');
    let letGo!: () => void;
    const gate = new Promise<void>((resolve) => (letGo = resolve));
    let taker: Promise<string> | undefined;
    const outcome = withLock(dir, async () => {
      expect(existsSync(`${lock}.owner`)).toBe(true);
      // Held up past the stale time (as if no heartbeat had run), then taken over by a tool call.
      const old = new Date(Date.now() - 60_000);
      await utimes(lock, old, old);
      taker = withLock(dir, async () => {
        await gate;
        return 'the taker committed';
      }, { brief: true, staleMs: 2_000 });
      await atomicWrite(file, 'written by the old holder');
    }, { staleMs: 2_000 });
    await expect(outcome).rejects.toThrow(/lost the lock on .*nothing was written/);
    letGo();
    expect(await taker).toBe('the taker committed');
    expect(await readFile(file, 'utf8')).toBe('before');
  });

  it('a holder that lost its lock leaves the lock folder of the one that took it over', async () => {
    // The one that takes over is a wmem (the store's lock as it ships: it writes its owner token).
    const bundle = path.join(dir, 'fsx.cjs');
    buildSync({ entryPoints: [path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src/store/fsx.ts')], bundle: true, platform: 'node', format: 'cjs', outfile: bundle, logLevel: 'silent' });
    const file = path.join(dir, 'state.json');
    const go = path.join(dir, 'release-now');
    const holder = `
      const fs = require('fs');
      require(${JSON.stringify(bundle)}).withLock(process.argv[1], async () => {
        fs.writeFileSync(process.argv[2], 'written by the new holder');
        while (!fs.existsSync(process.argv[3])) await new Promise((r) => setTimeout(r, 20));
      }, { staleMs: 2000, waitMs: 60000 });`;
    await writeFile(file, 'before');
    let child: ReturnType<typeof execa> | undefined;
    const outcome = withLock(dir, async () => {
      child = execa(process.execPath, ['-e', holder, dir, file, go]);
      // Busy, without yielding to timers: the heartbeat cannot run, and the commit's own check
      // (not the heartbeat) is what finds the lock lost.
      heldUpUntilTaken(file);
      await atomicWrite(file, 'written by the old holder');
    }, { staleMs: 2_000 });
    await expect(outcome).rejects.toThrow(/lost the lock/);
    expect(readFileSync(file, 'utf8')).toBe('written by the new holder');
    // The old holder's release must not have removed the folder the new holder made.
    expect(existsSync(path.join(dir, '.lock'))).toBe(true);
    await writeFile(go, '');
    await child;
    expect(existsSync(path.join(dir, '.lock'))).toBe(false);
  }, 30_000);

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
        heldUpUntilTaken(file);
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

describe('the lock folder protocol (src/store/lock.ts), shared with proper-lockfile', () => {
  it('takes over a lock folder left by a dead process once it is stale', async () => {
    const lock = path.join(dir, '.lock');
    await mkdir(lock);
    const old = new Date(Date.now() - 60_000);
    await utimes(lock, old, old);
    expect(await withLock(dir, async () => 'ran', { staleMs: 2_000, waitMs: 10_000 })).toBe('ran');
    expect(existsSync(lock)).toBe(false);
  });

  it('waits for a live holder and gives up with a clear message past waitMs', async () => {
    const lock = path.join(dir, '.lock');
    await mkdir(lock);
    // Kept fresh as a live holder's heartbeat would.
    const beat = setInterval(() => void utimes(lock, new Date(), new Date()).catch(() => {}), 200);
    try {
      await expect(withLock(dir, async () => 'ran', { staleMs: 5_000, waitMs: 300 })).rejects.toThrow(/is locked by another wmem process/);
    } finally {
      clearInterval(beat);
    }
    expect(existsSync(lock)).toBe(true);
  });

  it('a proper-lockfile holder in another process excludes withLock, and withLock excludes it', async () => {
    const log = path.join(dir, 'log.txt');
    const holder = `
      const lockfile = require(${JSON.stringify(require.resolve('proper-lockfile'))});
      const fs = require('fs');
      const [dir, log] = process.argv.slice(1);
      (async () => {
        for (;;) {
          try {
            const release = await lockfile.lock(dir, { lockfilePath: dir + '/.lock', stale: 5000, update: 1000, realpath: false });
            fs.appendFileSync(log, 'old in\\n');
            await new Promise((r) => setTimeout(r, 400));
            fs.appendFileSync(log, 'old out\\n');
            await release();
            return;
          } catch (e) { if (e.code !== 'ELOCKED') throw e; await new Promise((r) => setTimeout(r, 20)); }
        }
      })();`;
    const ours = async () => {
      await appendFile(log, 'new in\n');
      await new Promise((r) => setTimeout(r, 400));
      await appendFile(log, 'new out\n');
    };
    // Both orders: whoever is in, the other never is until it is out.
    const first = withLock(dir, ours, { waitMs: 30_000 });
    await Promise.all([first, execa(process.execPath, ['-e', holder, dir, log])]);
    const child = execa(process.execPath, ['-e', holder, dir, log]);
    while ((await readFile(log, 'utf8')).split('\n').length < 6) await new Promise((r) => setTimeout(r, 10));
    await Promise.all([withLock(dir, ours, { waitMs: 30_000 }), child]);
    const lines = (await readFile(log, 'utf8')).trim().split('\n');
    expect(lines).toHaveLength(8);
    expect(lines[6]).toBe('new in'); // the second time, the old holder was in first
    for (let i = 0; i < lines.length; i += 2) expect(lines[i + 1]).toBe(lines[i]!.replace(' in', ' out'));
    expect(existsSync(path.join(dir, '.lock'))).toBe(false);
  }, 60_000);

  // A hook's hold on a tool call (hot state's read, change, atomic replace) is over before the
  // event loop turns, where the heartbeat's timer and a signal's listener would first run: a brief
  // hold arms neither (each cost a hook Node's own functions compiled: bench/README.md, floor16).
  it('a brief hold arms no heartbeat nor exit or signal listener; any other hold arms them as it takes the lock', async () => {
    const bundle = path.join(dir, 'fsx.cjs');
    buildSync({ entryPoints: [path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src/store/fsx.ts')], bundle: true, platform: 'node', format: 'cjs', outfile: bundle, logLevel: 'silent' });
    const script = `
      let timers = 0;
      const setTimer = globalThis.setTimeout;
      globalThis.setTimeout = (...args) => (timers++, setTimer(...args));
      const { withLock } = require(${JSON.stringify(bundle)});
      const [brief, other] = process.argv.slice(1);
      const seen = () => [process.listenerCount('SIGTERM'), timers, process.listenerCount('exit')];
      (async () => {
        const during = await withLock(brief, async () => seen(), { brief: true });
        await new Promise((r) => setImmediate(r));
        const after = seen();
        const held = await withLock(other, async () => seen());
        process.stdout.write(JSON.stringify({ during, after, held }));
      })();`;
    const [brief, other] = [path.join(dir, 'brief'), path.join(dir, 'other')];
    await mkdir(brief);
    await mkdir(other);
    const { stdout } = await execa(process.execPath, ['-e', script, brief, other]);
    expect(JSON.parse(stdout)).toEqual({ during: [0, 0, 0], after: [0, 0, 0], held: [1, 1, 1] });
    expect([existsSync(path.join(brief, '.lock')), existsSync(path.join(other, '.lock'))]).toEqual([false, false]);
  }, 30_000);

  it('a process stopped by SIGTERM while holding the lock removes it on the way out', async () => {
    // The store's lock, bundled as it ships, held by a process that is then stopped.
    const bundle = path.join(dir, 'fsx.cjs');
    buildSync({ entryPoints: [path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src/store/fsx.ts')], bundle: true, platform: 'node', format: 'cjs', outfile: bundle, logLevel: 'silent' });
    const script = `
      require(${JSON.stringify(bundle)}).withLock(process.argv[1], async () => { process.stdout.write('held\\n'); await new Promise(() => setInterval(() => {}, 1000)); });`;
    const lockDir = path.join(dir, 'session');
    await mkdir(lockDir);
    const child = execa(process.execPath, ['-e', script, lockDir], { reject: false });
    await new Promise<void>((resolve) => child.stdout!.on('data', (d: Buffer) => d.toString().includes('held') && resolve()));
    expect(existsSync(path.join(lockDir, '.lock'))).toBe(true);
    child.kill('SIGTERM');
    const result = await child;
    expect(result.signal).toBe('SIGTERM');
    expect(existsSync(path.join(lockDir, '.lock'))).toBe(false);
  }, 30_000);

  it('two copies of the lock code in one process (a bundle and a chunk it imports) still end on SIGTERM, both locks removed', async () => {
    const source = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src/store/fsx.ts');
    const copies = ['fsx-a.cjs', 'fsx-b.cjs'].map((name) => path.join(dir, name));
    for (const outfile of copies) buildSync({ entryPoints: [source], bundle: true, platform: 'node', format: 'cjs', outfile, logLevel: 'silent' });
    const script = `
      const [a, b] = ${JSON.stringify(copies)}.map((f) => require(f));
      const [one, two] = process.argv.slice(1);
      a.withLock(one, () => b.withLock(two, async () => { process.stdout.write('held\\n'); await new Promise(() => setInterval(() => {}, 1000)); }));`;
    const lockDirs = [path.join(dir, 'one'), path.join(dir, 'two')];
    for (const d of lockDirs) await mkdir(d);
    const child = execa(process.execPath, ['-e', script, ...lockDirs], { reject: false });
    await new Promise<void>((resolve) => child.stdout!.on('data', (d: Buffer) => d.toString().includes('held') && resolve()));
    child.kill('SIGTERM');
    const result = await child;
    expect(result.signal).toBe('SIGTERM');
    for (const d of lockDirs) expect(existsSync(path.join(d, '.lock'))).toBe(false);
  }, 30_000);
});
