// One user's machine for a GitHub Copilot CLI real-client test: a temporary HOME (Copilot's
// config in ~/.copilot, or `$COPILOT_HOME` when a test sets `copilotHome`), a wmem home and a
// project. `copilot` runs the pinned client headless (`copilot -p … --allow-all`) offline against
// the loopback Chat Completions mock (COPILOT_OFFLINE, COPILOT_PROVIDER_BASE_URL: no GitHub login),
// with its JavaScript unpacked once in the agents cache (COPILOT_PKG_CACHE_HOME), and returns what
// it printed and the requests it sent. `sessionDirs` finds its session-state folders.
import { execa, type Result } from 'execa';
import { existsSync, readdirSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ChatMock, type ChatRequest } from './openai-chat-mock.js';
import { copilotPkgCache } from './install-copilot.js';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
export const WMEM_BIN = path.join(ROOT, 'bin', 'wmem.js');
/** A model Copilot CLI 1.0.102 knows (64,000 prompt tokens). */
export const COPILOT_MODEL = 'gpt-4.1';

export interface CopilotRun {
  exitCode: number | undefined;
  stdout: string;
  stderr: string;
  /** Chat completion requests to the mock during this run, in order. */
  requests: ChatRequest[];
}

export interface ProbeRecord {
  event: string;
  input: any;
  env: Record<string, string>;
}

export const COPILOT_EVENTS = ['sessionStart', 'userPromptSubmitted', 'preToolUse', 'postToolUse', 'postToolUseFailure', 'preCompact', 'agentStop', 'sessionEnd'] as const;

export class CopilotWorld {
  private constructor(
    readonly root: string,
    readonly home: string,
    readonly wmemHome: string,
    readonly project: string,
    readonly mock: ChatMock,
    readonly bin: string,
  ) {}

  static async create(bin: string): Promise<CopilotWorld> {
    const root = await realpath(await mkdtemp(path.join(os.tmpdir(), 'wmem-copilot-')));
    const dirs = ['home', 'wmem-home', 'project'].map((d) => path.join(root, d));
    await Promise.all(dirs.map((d) => mkdir(d, { recursive: true })));
    const [home, wmemHome, project] = dirs;
    const mock = new ChatMock();
    await mock.start();
    return new CopilotWorld(root, home, wmemHome, project, mock, bin);
  }

  /** Copilot's config folder (~/.copilot). */
  get copilotDir(): string {
    return path.join(this.home, '.copilot');
  }

  private baseEnv(): Record<string, string> {
    const env: Record<string, string> = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: this.home, NO_COLOR: '1', LANG: 'C.UTF-8', TERM: 'dumb' };
    for (const key of ['TMPDIR', 'SHELL']) if (process.env[key]) env[key] = process.env[key]!;
    return env;
  }

  /** The environment `copilot` and the hooks it starts see. */
  copilotEnv(): Record<string, string> {
    return {
      ...this.baseEnv(),
      COPILOT_PKG_CACHE_HOME: copilotPkgCache(this.bin),
      COPILOT_AUTO_UPDATE: 'false',
      COPILOT_OFFLINE: 'true',
      COPILOT_PROVIDER_BASE_URL: this.mock.baseUrl,
      COPILOT_PROVIDER_API_KEY: 'mock-key-not-a-secret',
      COPILOT_MODEL,
    };
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

  /** `wmem install copilot` (user scope unless told), run by the built wmem in the project. */
  async installWmem(args: string[] = []): Promise<Result> {
    const result = await this.wmem(['install', 'copilot', ...args]);
    if (result.exitCode !== 0) throw new Error(`wmem install copilot exited ${result.exitCode}: ${result.stderr}`);
    return result;
  }

  /**
   * Runs `copilot -p PROMPT --allow-all` headless in the project; `resume` continues a session by
   * id. `timeout` kills a run that hangs (Copilot sometimes waits ~60 s after /compact).
   */
  async copilot(prompt: string, options: { resume?: string; timeout?: number; env?: Record<string, string>; args?: string[] } = {}): Promise<CopilotRun> {
    const before = this.mock.requests.length;
    const args = ['-p', prompt, '--allow-all', '--no-auto-update', ...(options.resume ? [`--resume=${options.resume}`] : []), ...(options.args ?? [])];
    const run = await execa(this.bin, args, { cwd: this.project, reject: false, extendEnv: false, env: { ...this.copilotEnv(), ...options.env }, stdin: 'ignore', timeout: options.timeout ?? 180_000 });
    const requests = this.mock.requests.slice(before).filter((r) => r.path.endsWith('/chat/completions'));
    return { exitCode: run.exitCode, stdout: String(run.stdout), stderr: String(run.stderr), requests };
  }

  /** Copilot's session folders (~/.copilot/session-state/<id>), by id. */
  sessionIds(): string[] {
    const dir = path.join(this.copilotDir, 'session-state');
    return existsSync(dir) ? readdirSync(dir).filter((n) => existsSync(path.join(dir, n, 'events.jsonl'))) : [];
  }

  eventsFile(id: string): string {
    return path.join(this.copilotDir, 'session-state', id, 'events.jsonl');
  }

  async events(id: string): Promise<any[]> {
    return (await readFile(this.eventsFile(id), 'utf8'))
      .split('\n')
      .filter((l) => l.trim())
      .map((l) => JSON.parse(l));
  }

  /** A user hook per event (~/.copilot/hooks/probe.json) that appends its stdin and COPILOT_* env to probe.jsonl. */
  async probeHooks(events: readonly string[] = COPILOT_EVENTS): Promise<void> {
    const script = path.join(this.root, 'probe.mjs');
    await writeFile(
      script,
      [
        "import { appendFileSync, readFileSync } from 'node:fs';",
        "const input = readFileSync(0, 'utf8');",
        'const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => /^COPILOT_(?!PROVIDER|PKG|MODEL|OFFLINE|AUTO)/.test(k)));',
        `appendFileSync(${JSON.stringify(this.probeLog)}, JSON.stringify({ event: process.argv[2], input: JSON.parse(input || 'null'), env }) + '\\n');`,
      ].join('\n'),
    );
    const hooks: Record<string, unknown[]> = {};
    for (const event of events) hooks[event] = [{ type: 'command', bash: `node ${script} ${event}`, timeoutSec: 30 }];
    await mkdir(path.join(this.copilotDir, 'hooks'), { recursive: true });
    await writeFile(path.join(this.copilotDir, 'hooks', 'probe.json'), JSON.stringify({ version: 1, hooks }, null, 2) + '\n');
  }

  get probeLog(): string {
    return path.join(this.root, 'probe.jsonl');
  }

  async probeRecords(): Promise<ProbeRecord[]> {
    if (!existsSync(this.probeLog)) return [];
    return (await readFile(this.probeLog, 'utf8'))
      .split('\n')
      .filter((line) => line.trim())
      .map((line) => JSON.parse(line) as ProbeRecord);
  }

  async cleanup(): Promise<void> {
    await this.mock.stop();
    await rm(this.root, { recursive: true, force: true });
  }
}
