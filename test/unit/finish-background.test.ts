// The detached finishing of a compaction runs at a lower priority (niceness 10), so the first
// search right after `wmem compact` returned is not slowed by it on a busy machine; the finishing
// that `compact --wait` waits on keeps the normal priority.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { getPriority } from 'node:os';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { finishInBackground, finishInChild } from '../../src/app/finish-background.js';

let root: string;
beforeAll(() => {
  root = mkdtempSync(path.join(tmpdir(), 'wmem-finish-bg-'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A stand-in for bin/wmem.js: waits (up to 60 s) until its niceness is `want`, then writes what it is. */
function probe(want: number): { bin: string; out: string } {
  const bin = path.join(root, `probe-${want}.cjs`);
  const out = path.join(root, `nice-${want}.txt`);
  writeFileSync(bin, `const os = require('node:os'); const end = Date.now() + 60000;
const tick = () => { const n = os.getPriority(); if (n === ${want} || Date.now() > end) require('node:fs').writeFileSync(${JSON.stringify(out)}, String(n)); else setTimeout(tick, 20); };
tick();`);
  return { bin, out };
}

async function until(file: string): Promise<string> {
  for (let i = 0; i < 3000 && !existsSync(file); i++) await new Promise((r) => setTimeout(r, 20));
  return readFileSync(file, 'utf8');
}

describe('the finishing process priority', () => {
  it('runs the detached finishing at niceness 10, the awaited one as this process runs', async () => {
    const where = { home: root, cwd: root, env: process.env };
    const own = getPriority();
    const background = probe(Math.min(19, Math.max(own, 10)));
    expect(finishInBackground(background.bin, where, 's')).toBe(true);
    expect(Number(await until(background.out))).toBe(Math.min(19, Math.max(own, 10)));
    const waited = probe(own);
    expect(await finishInChild(waited.bin, where, 's')).toBe(true);
    expect(Number(await until(waited.out))).toBe(own);
  }, 120_000);
});
