// Recovery decides whether a compaction committed by asking whether messages.jsonl is still the
// file it started from. A file system may give a freed inode number to the next file, so the
// birth time must match too, where there is one: without statx Node reports the change time in
// its place, which an append moves.
import { expect, it } from 'vitest';
import { writeFile, rename, stat } from 'node:fs/promises';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileIdentity, isSameFile } from '../../src/history/compaction/journal.js';

// A file appended to since it was made: its change time is past its birth time.
const st = (dev: number, ino: number, birthtimeMs: number, ctimeMs = birthtimeMs + 500) => ({ dev, ino, birthtimeMs, ctimeMs });

it('is the same file only with the same device, inode and birth time', () => {
  const recorded = fileIdentity(st(1, 42, 1000.5));
  expect(isSameFile(st(1, 42, 1000.5), recorded)).toBe(true);
  expect(isSameFile(st(1, 42, 2000), recorded)).toBe(false); // the number given to a new file
  expect(isSameFile(st(2, 42, 1000.5), recorded)).toBe(false);
  expect(isSameFile(st(1, 43, 1000.5), recorded)).toBe(false);
  expect(isSameFile(undefined, recorded)).toBe(false);
  expect(isSameFile(st(1, 42, 1000.5), undefined)).toBe(false);
});

it('falls back to device and inode where no birth time is kept, and for journals from before it was recorded', () => {
  expect(isSameFile(st(1, 42, 0), fileIdentity(st(1, 42, 0)))).toBe(true);
  expect(isSameFile(st(1, 42, 5), { dev: 1, ino: 42 })).toBe(true);
});

it('does not take the change time that stands in for a birth time (no statx) for one', () => {
  // Recorded when the run started; an append since moved the change time, reported as both.
  const recorded = fileIdentity(st(1, 42, 1000, 1000));
  expect(isSameFile(st(1, 42, 1700, 1700), recorded)).toBe(true);
});

it('tells a file rewritten by rename from the one appended to, on the real file system', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'wmem-identity-'));
  const file = path.join(dir, 'messages.jsonl');
  await writeFile(file, 'a\n');
  const recorded = fileIdentity(await stat(file));
  await writeFile(file, 'b\n', { flag: 'a' });
  expect(isSameFile(await stat(file), recorded)).toBe(true);
  await writeFile(path.join(dir, 'next'), 'c\n');
  await rename(path.join(dir, 'next'), file);
  expect(isSameFile(await stat(file), recorded)).toBe(false);
});
