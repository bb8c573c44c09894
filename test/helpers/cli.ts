// Spawns the built wmem (bin/wmem.js → dist/) the way a user or hook would, against a temporary
// home and project, with a clean environment (no colour, no inherited WMEM_* variables).
import { execa, type Result } from 'execa';
import { mkdtemp, mkdir, rm, realpath } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const BIN = path.join(ROOT, 'bin', 'wmem.js');
export const FIXTURES = path.join(ROOT, 'test', 'fixtures', 'transcripts');

export interface Sandbox {
  root: string;
  home: string;
  project: string;
  run(args: string[], options?: RunOptions): Promise<Result>;
  cleanup(): Promise<void>;
}

export interface RunOptions {
  input?: string;
  env?: Record<string, string>;
  cwd?: string;
  timeout?: number;
}

export async function runWmem(args: string[], options: RunOptions & { home: string; cwd: string }): Promise<Result> {
  return execa('node', [BIN, ...args], {
    cwd: options.cwd,
    input: options.input ?? '',
    reject: false,
    extendEnv: false,
    timeout: options.timeout ?? 20_000,
    env: { PATH: process.env.PATH ?? '', HOME: options.home, NO_COLOR: '1', WMEM_HOME: options.home, ...options.env },
  });
}

/** A fresh home and project folder under the OS temp dir; `cleanup` removes both. */
export async function sandbox(): Promise<Sandbox> {
  const root = await realpath(await mkdtemp(path.join(os.tmpdir(), 'wmem-test-')));
  const home = path.join(root, 'home');
  const project = path.join(root, 'project');
  await mkdir(home, { recursive: true });
  await mkdir(project, { recursive: true });
  return {
    root,
    home,
    project,
    run: (args, options = {}) => runWmem(args, { ...options, home, cwd: options.cwd ?? project }),
    // A compaction's detached finishing may still be writing its search files: rm retries
    // (ENOTEMPTY) instead of failing the test that started it.
    cleanup: () => rm(root, { recursive: true, force: true, maxRetries: 20, retryDelay: 100 }),
  };
}

/** Runs and parses `--json` output, failing with stderr when the command failed. */
export async function runJson<T = any>(box: Sandbox, args: string[], options?: RunOptions): Promise<T> {
  const result = await box.run([...args, '--json'], options);
  if (result.exitCode !== 0) throw new Error(`wmem ${args.join(' ')} exited ${result.exitCode}: ${result.stderr}`);
  return JSON.parse(String(result.stdout)) as T;
}
