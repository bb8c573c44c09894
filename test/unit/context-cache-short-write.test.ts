// The render cache's whole write (src/store/context-cache.ts) hands its JSON text to writeSync as a
// string; a short write (rare on a regular file: FUSE, NFS, a disk nearly full) must finish the file
// after what was written, never over its start.
import { describe, expect, it, vi } from 'vitest';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs')>();
  let shortened = false;
  // The first string write writes its first 100 bytes only, as a short write does.
  const writeSync = (fd: number, data: unknown, ...rest: unknown[]) => {
    if (typeof data === 'string' && !shortened) {
      shortened = true;
      const head = Buffer.from(data, 'utf8').subarray(0, 100);
      return rest[0] === null || rest[0] === undefined ? fs.writeSync(fd, head) : fs.writeSync(fd, head, 0, head.length, rest[0] as number);
    }
    return (fs.writeSync as (...a: unknown[]) => number)(fd, data, ...rest);
  };
  return { ...fs, default: { ...fs, writeSync }, writeSync };
});

const { cacheFile, readContextCache, writeContextCache } = await import('../../src/store/context-cache.js');

describe('the render cache written whole', () => {
  it('after a short write, holds the whole text in order (multi-byte characters across the cut too)', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'wmem-short-write-'));
    try {
      const memory = { key: 'k', text: 'é×😀'.repeat(50), digest: 'd' };
      await writeContextCache(dir, { version: 3, memory });
      expect(JSON.parse(readFileSync(cacheFile(dir), 'utf8'))).toMatchObject({ version: 3, memory });
      expect((await readContextCache(dir)).memory?.text).toBe(memory.text);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
