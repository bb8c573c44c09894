// What every real-client world shares (the Copilot and Qwen worlds extend it): a temporary root
// with a HOME, a wmem home and a project, the Chat Completions mock the client talks to, the built
// wmem run with `--home`, and a probe log hooks append their stdin to.
import { execa, type Result } from 'execa';
import { expect } from 'vitest';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, realpath } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ChatMock } from './openai-chat-mock.js';
import { removeTree } from './remove-tree.js';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
export const WMEM_BIN = path.join(ROOT, 'bin', 'wmem.js');

export interface WorldDirs {
  root: string;
  home: string;
  wmemHome: string;
  project: string;
  mock: ChatMock;
}

/** A fresh root (`wmem-<name>-…` in the temp folder) with its folders, and a started mock. */
export async function makeWorldDirs(name: string): Promise<WorldDirs> {
  const root = await realpath(await mkdtemp(path.join(os.tmpdir(), `wmem-${name}-`)));
  const [home, wmemHome, project] = ['home', 'wmem-home', 'project'].map((d) => path.join(root, d));
  await Promise.all([home, wmemHome, project].map((d) => mkdir(d, { recursive: true })));
  const mock = new ChatMock();
  await mock.start();
  return { root, home, wmemHome, project, mock };
}

export class AgentWorld {
  readonly root: string;
  readonly home: string;
  readonly wmemHome: string;
  readonly project: string;
  readonly mock: ChatMock;

  constructor(
    dirs: WorldDirs,
    /** The agent's id for `wmem install` and the hook log's file names. */
    readonly agent: string,
  ) {
    ({ root: this.root, home: this.home, wmemHome: this.wmemHome, project: this.project, mock: this.mock } = dirs);
  }

  protected baseEnv(): Record<string, string> {
    const env: Record<string, string> = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: this.home, NO_COLOR: '1', LANG: 'C.UTF-8', TERM: 'dumb' };
    for (const key of ['TMPDIR', 'SHELL']) if (process.env[key]) env[key] = process.env[key]!;
    return env;
  }

  /** The built wmem, run in the project with `--home` (so nothing relies on the default ~/.ai). */
  wmem(args: string[], env: Record<string, string> = {}): Promise<Result> {
    return execa('node', [WMEM_BIN, '--home', this.wmemHome, ...args], { cwd: this.project, reject: false, extendEnv: false, timeout: 30_000, input: '', env: { ...this.baseEnv(), ...env } });
  }

  async wmemJson<T = any>(args: string[]): Promise<T> {
    const result = await this.wmem([...args, '--json']);
    if (result.exitCode !== 0) throw new Error(`wmem ${args.join(' ')} exited ${result.exitCode}: ${result.stderr}`);
    return JSON.parse(String(result.stdout)) as T;
  }

  /** `wmem install AGENT` (its default scope unless told), run by the built wmem in the project. */
  async installWmem(args: string[] = []): Promise<Result> {
    const result = await this.wmem(['install', this.agent, ...args]);
    if (result.exitCode !== 0) throw new Error(`wmem install ${this.agent} exited ${result.exitCode}: ${result.stderr}`);
    return result;
  }

  /** The folder of the project's current wmem session. */
  async sessionPath(): Promise<string> {
    return (await this.wmemJson(['status'])).path;
  }

  /** What wmem's last firing of `event` recorded (logs/hooks-last/<agent>-<event>.json). */
  async fired(event: string): Promise<any> {
    return JSON.parse(await readFile(path.join(this.wmemHome, 'logs', 'hooks-last', `${this.agent}-${event}.json`), 'utf8'));
  }

  get probeLog(): string {
    return path.join(this.root, 'probe.jsonl');
  }

  /** The lines probe hooks appended, parsed. */
  async probeRecords<T = any>(): Promise<T[]> {
    if (!existsSync(this.probeLog)) return [];
    return (await readFile(this.probeLog, 'utf8'))
      .split('\n')
      .filter((line) => line.trim())
      .map((line) => JSON.parse(line) as T);
  }

  async cleanup(): Promise<void> {
    await this.mock.stop();
    await removeTree(this.root);
  }
}

/**
 * Runs `fn` in a fresh world, then fails the test on any error in wmem's hook log (a hook never
 * fails the client: what went wrong inside one is only there) and removes the world. The log's
 * lines go to `observed.hookLog` for the suite's report.
 */
/** What inWorld needs of a world (AgentWorld, and worlds of their own shape such as Droid's). */
export interface DisposableWorld {
  readonly wmemHome: string;
  cleanup(): Promise<void>;
}

export async function inWorld<W extends DisposableWorld, T>(make: () => Promise<W>, observed: Record<string, unknown>, fn: (world: W) => Promise<T>, check: (errors: string[]) => void, beforeCleanup?: (world: W) => Promise<void>): Promise<T> {
  const world = await make();
  let failed = true;
  try {
    const value = await fn(world);
    failed = false;
    return value;
  } finally {
    const log = await readFile(path.join(world.wmemHome, 'logs', 'hooks.log'), 'utf8').catch(() => '');
    if (log.trim()) ((observed.hookLog ??= []) as string[]).push(...log.trim().split('\n'));
    if (!failed) check(log.split('\n').filter((l) => / error: /.test(l)));
    // What a suite reads off the world for its report (times, other requests), pass or fail.
    await beforeCleanup?.(world);
    await world.cleanup();
  }
}

/** The figures of the last <context_meta> block in `text` (a request's text as the hooks wrote it). */
export function lastMeta(text: string): Record<string, any> {
  const blocks = [...text.matchAll(/<context_meta>\n?([\s\S]*?)\n?<\/context_meta>/g)];
  if (!blocks.length) throw new Error(`no <context_meta> in the request: ${text.slice(-1500)}`);
  return JSON.parse(blocks[blocks.length - 1][1].trim().split('\n')[0]);
}

/**
 * The meter a request carried and `wmem status` after the run, held against what the mock
 * reported: `used` is the figure the agent's log holds when the request was sent (the run
 * before's last call), `now` the run's own last call, both counted the agent's way.
 */
export async function expectMeter(world: AgentWorld, meta: Record<string, any>, want: { used: number; now: number; max: number; model: string }, observed: Record<string, unknown>): Promise<void> {
  observed.secondMeta = meta;
  expect(meta).toMatchObject({ tokens_used: want.used, tokens_source: 'usage', tokens_max: want.max, model: want.model });
  const status = await world.wmemJson(['status']);
  observed.status = { tokens_used: status.tokens_used, tokens_source: status.tokens_source, tokens_max: status.tokens_max, tokens_max_source: status.tokens_max_source };
  expect(status).toMatchObject({ tokens_used: want.now, tokens_source: 'usage', tokens_max: want.max });
}
