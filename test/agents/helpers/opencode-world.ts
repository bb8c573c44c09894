// One user's machine for an OpenCode real-client test: a temporary HOME, XDG folders (OpenCode's
// config and its SQLite store), a wmem home, and a project whose opencode.json names the loopback
// chat-completions mock as an @ai-sdk/openai-compatible provider with a model limit the test
// chooses (a small one makes OpenCode auto-compact). `opencode` runs the pinned platform binary
// headless (`opencode run`), with PWD set (the binary takes its folder from it). OpenCode installs
// @opencode-ai/plugin from npm at start: the npm cache is kept in the agents cache, so that is
// fetched once.
import { execa, type Result } from 'execa';
import { mkdir, mkdtemp, readFile, realpath, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { cacheRoot } from './install-claude.js';
import { ChatMock, type ChatRequest } from './openai-chat-mock.js';
import { removeTree } from './remove-tree.js';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
export const WMEM_BIN = path.join(ROOT, 'bin', 'wmem.js');
export const MODEL = 'mock/m1';

export interface OpenCodeRun {
  exitCode: number | undefined;
  stdout: string;
  stderr: string;
  /** Chat completion requests during this run, in order. */
  requests: ChatRequest[];
}

/**
 * OpenCode, or a fork that runs its plugins the same way (Kilo Code): the agent id wmem installs
 * for, its config file, its plugin file, what its config adds, its variables and run flags.
 */
export interface Flavour {
  agent: string;
  config: string;
  plugin: string;
  settings: Record<string, unknown>;
  env: Record<string, string>;
  runArgs: string[];
}

export const OPENCODE: Flavour = {
  agent: 'opencode',
  config: 'opencode.json',
  plugin: path.join('.opencode', 'plugin', 'wmem.ts'),
  settings: { $schema: 'https://opencode.ai/config.json' },
  env: { OPENCODE_DISABLE_AUTOUPDATE: '1' },
  runArgs: [],
};

export class OpenCodeWorld {
  private constructor(
    readonly root: string,
    readonly home: string,
    readonly wmemHome: string,
    readonly project: string,
    readonly mock: ChatMock,
    readonly bin: string,
    readonly flavour: Flavour,
  ) {}

  static async create(bin: string, limit = { context: 150_000, output: 4_000 }, flavour: Flavour = OPENCODE): Promise<OpenCodeWorld> {
    const root = await realpath(await mkdtemp(path.join(os.tmpdir(), `wmem-${flavour.agent}-`)));
    const dirs = ['home', 'wmem-home', 'project', 'home/.config', 'home/.local/share'].map((d) => path.join(root, d));
    await Promise.all(dirs.map((d) => mkdir(d, { recursive: true })));
    const mock = new ChatMock();
    await mock.start();
    const world = new OpenCodeWorld(root, dirs[0], dirs[1], dirs[2], mock, bin, flavour);
    await writeFile(world.configPath, world.config(limit));
    return world;
  }

  get configPath(): string {
    return path.join(this.project, this.flavour.config);
  }

  get pluginPath(): string {
    return path.join(this.project, this.flavour.plugin);
  }

  private config(limit: { context: number; output: number }): string {
    const provider = { mock: { npm: '@ai-sdk/openai-compatible', options: { baseURL: this.mock.baseUrl, apiKey: 'mock-key-not-a-secret' }, models: { m1: { limit } } } };
    return JSON.stringify({ ...this.flavour.settings, model: MODEL, autoupdate: false, share: 'disabled', provider }, null, 2) + '\n';
  }

  private env(): Record<string, string> {
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: this.home,
      XDG_CONFIG_HOME: path.join(this.home, '.config'),
      XDG_DATA_HOME: path.join(this.home, '.local', 'share'),
      NO_COLOR: '1',
      LANG: 'C.UTF-8',
      npm_config_cache: path.join(cacheRoot(), 'npm-cache'),
      ...this.flavour.env,
    };
    for (const key of ['TMPDIR', 'SHELL']) if (process.env[key]) env[key] = process.env[key]!;
    return env;
  }

  wmem(args: string[], env: Record<string, string> = {}): Promise<Result> {
    return execa('node', [WMEM_BIN, '--home', this.wmemHome, ...args], { cwd: this.project, reject: false, extendEnv: false, timeout: 30_000, input: '', env: { ...this.env(), ...env } });
  }

  async wmemJson<T = any>(args: string[]): Promise<T> {
    const result = await this.wmem([...args, '--json']);
    if (result.exitCode !== 0) throw new Error(`wmem ${args.join(' ')} exited ${result.exitCode}: ${result.stderr}`);
    return JSON.parse(String(result.stdout)) as T;
  }

  async installWmem(args: string[] = []): Promise<Result> {
    const result = await this.wmem(['install', this.flavour.agent, ...args]);
    if (result.exitCode !== 0) throw new Error(`wmem install ${this.flavour.agent} exited ${result.exitCode}: ${result.stderr}`);
    return result;
  }

  /** `opencode run` in the project; `continue` goes on with the last session. */
  async opencode(prompt: string, options: { continue?: boolean; timeout?: number; env?: Record<string, string> } = {}): Promise<OpenCodeRun> {
    const before = this.mock.requests.length;
    const args = ['run', '--model', MODEL, ...this.flavour.runArgs, ...(options.continue ? ['--continue'] : []), prompt];
    const run = await execa(this.bin, args, { cwd: this.project, reject: false, extendEnv: false, env: { ...this.env(), PWD: this.project, ...options.env }, stdin: 'ignore', timeout: options.timeout ?? 180_000 });
    const requests = this.mock.requests.slice(before).filter((r) => r.path.endsWith('/chat/completions'));
    return { exitCode: run.exitCode, stdout: String(run.stdout), stderr: String(run.stderr), requests };
  }

  /**
   * `<client> export <id>`: the session as the client holds it. Kilo prints the JSON and then does
   * not exit, so the export is done when its stdout parses; the process is ended then.
   */
  async exportSession(id: string): Promise<{ messages: unknown[] }> {
    const child = execa(this.bin, ['export', id], { cwd: this.project, reject: false, extendEnv: false, env: { ...this.env(), PWD: this.project }, stdin: 'ignore', timeout: 120_000 });
    let text = '';
    let parsed: { messages: unknown[] } | undefined;
    child.stdout?.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
      try {
        parsed = JSON.parse(text.slice(text.indexOf('{')));
        child.kill();
      } catch {
        // not all of it yet
      }
    });
    const result = await child;
    if (!parsed) throw new Error(`${this.flavour.agent} export ${id} printed no JSON (exit ${result.exitCode}): ${String(result.stderr).slice(-800)} ${text.slice(0, 400)}`);
    return parsed;
  }

  async pluginLog(): Promise<string> {
    return readFile(path.join(this.wmemHome, 'logs', `${this.flavour.agent}-plugin.log`), 'utf8').catch(() => '');
  }

  async cleanup(): Promise<void> {
    await this.mock.stop();
    await removeTree(this.root);
  }
}
