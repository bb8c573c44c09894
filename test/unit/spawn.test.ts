// A detached child started without node:child_process (src/store/spawn.ts): its standard input
// and output are the descriptors given, its exit code is told; where process.binding would warn
// (--pending-deprecation wraps it), node:child_process starts the same child.
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { spawnDetached } from '../../src/store/spawn.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Runs `sh -c script` with `input` on its standard input; its output and exit code. */
async function run(script: string, input: string): Promise<{ out: string; code: number | undefined }> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'wmem-spawn-'));
  dirs.push(dir);
  writeFileSync(path.join(dir, 'in'), input);
  const stdin = openSync(path.join(dir, 'in'), 'r');
  const stdout = openSync(path.join(dir, 'out'), 'w');
  try {
    const code = await new Promise<number | undefined>((resolve) => {
      const pid = spawnDetached('/bin/sh', ['-c', script], { stdin, stdout, env: { ...process.env, WMEM_SPAWN_TEST: 'seen' }, onExit: resolve });
      expect(pid).toBeGreaterThan(0);
    });
    return { out: readFileSync(path.join(dir, 'out'), 'utf8'), code };
  } finally {
    closeSync(stdin);
    closeSync(stdout);
  }
}

it('gives the child the descriptors and environment asked for, and tells its exit code', async () => {
  expect(await run('tr a-z A-Z; echo "$WMEM_SPAWN_TEST"; exit 3', 'abc\n')).toEqual({ out: 'ABC\nseen\n', code: 3 });
});

it('starts the same child through node:child_process where process.binding would warn', async () => {
  const proc = process as unknown as { binding: (name: string) => unknown };
  const binding = proc.binding;
  // What --pending-deprecation leaves in its place: a wrapper (named "deprecated") that warns.
  proc.binding = function deprecated(): never {
    throw new Error('process.binding must not be called');
  };
  try {
    expect(await run('cat; exit 5', 'x\n')).toEqual({ out: 'x\n', code: 5 });
  } finally {
    proc.binding = binding;
  }
});

it('answers undefined for a child that could not start, on either path, and never tells an exit for it', async () => {
  const proc = process as unknown as { binding: (name: string) => unknown };
  const binding = proc.binding;
  const missing = path.join(os.tmpdir(), 'wmem-spawn-no-such-file', 'sh');
  const exits: Array<number | undefined> = [];
  try {
    expect(spawnDetached(missing, [], { env: process.env, onExit: (code) => exits.push(code) })).toBeUndefined();
    proc.binding = function deprecated(): never {
      throw new Error('process.binding must not be called');
    };
    expect(spawnDetached(missing, [], { env: process.env, onExit: (code) => exits.push(code) })).toBeUndefined();
  } finally {
    proc.binding = binding;
  }
  // node:child_process tells a failed start on a later tick: give it a few.
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
  expect(exits).toEqual([]);
});

it('holds a socket the child reads to its end once this process lets go of it, on either path', async () => {
  const proc = process as unknown as { binding: (name: string) => unknown };
  const binding = proc.binding;
  const once = async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'wmem-spawn-hold-'));
    dirs.push(dir);
    const stdout = openSync(path.join(dir, 'out'), 'w');
    let release: (() => void) | undefined;
    try {
      // The child says it is waiting, then reads fd 5 (nothing comes: end of file at the release).
      const exited = new Promise<number | undefined>((resolve) => {
        spawnDetached('/bin/sh', ['-c', 'echo waiting; read -r w <&5; echo "read $?"'], { stdout, env: process.env, onExit: resolve, hold: { fd: 5, held: (r) => (release = r) } });
      });
      expect(release).toBeTypeOf('function');
      while (!readFileSync(path.join(dir, 'out'), 'utf8').includes('waiting')) await new Promise((r) => setTimeout(r, 10));
      // Still waiting: it reads until this process lets go.
      expect(readFileSync(path.join(dir, 'out'), 'utf8')).toBe('waiting\n');
      release!();
      expect(await exited).toBe(0);
      return readFileSync(path.join(dir, 'out'), 'utf8');
    } finally {
      closeSync(stdout);
    }
  };
  expect(await once()).toBe('waiting\nread 1\n');
  try {
    proc.binding = function deprecated(): never {
      throw new Error('process.binding must not be called');
    };
    expect(await once()).toBe('waiting\nread 1\n');
  } finally {
    proc.binding = binding;
  }
});
