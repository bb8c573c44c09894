// The session lock is a folder inside the memory tree, so it is private like every other folder.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { withLock } from '../../src/store/fsx.js';

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
