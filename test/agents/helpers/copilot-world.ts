// One user's machine for a GitHub Copilot CLI real-client test: a temporary HOME (Copilot's
// config in ~/.copilot), a wmem home and a project (agent-world.ts). `copilot` runs the pinned client headless (`copilot -p … --allow-all`) offline against
// the loopback Chat Completions mock (COPILOT_OFFLINE, COPILOT_PROVIDER_BASE_URL: no GitHub login),
// with its JavaScript unpacked once in the agents cache (COPILOT_PKG_CACHE_HOME), and returns what
// it printed and the requests it sent. `sessionIds` finds its session-state folders.
import { execa } from 'execa';
import { existsSync, readdirSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { AgentWorld, makeWorldDirs, type WorldDirs } from './agent-world.js';
import type { ChatRequest } from './openai-chat-mock.js';
import { copilotPkgCache } from './install-copilot.js';

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

export class CopilotWorld extends AgentWorld {
  private constructor(
    dirs: WorldDirs,
    readonly bin: string,
  ) {
    super(dirs, 'copilot');
  }

  static async create(bin: string): Promise<CopilotWorld> {
    return new CopilotWorld(await makeWorldDirs('copilot'), bin);
  }

  /** Copilot's config folder (~/.copilot). */
  get copilotDir(): string {
    return path.join(this.home, '.copilot');
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

  /**
   * Runs `copilot -p PROMPT --allow-all` headless in the project; `resume` continues a session by
   * id. `timeout` kills a run that hangs; `doneWhen`, checked each half second, ends the run once
   * what the test waits for is on disk (Copilot sometimes waits ~60 s before exiting after /compact).
   */
  async copilot(prompt: string, options: { resume?: string; timeout?: number; env?: Record<string, string>; args?: string[]; doneWhen?: () => boolean } = {}): Promise<CopilotRun> {
    const before = this.mock.requests.length;
    const args = ['-p', prompt, '--allow-all', '--no-auto-update', ...(options.resume ? [`--resume=${options.resume}`] : []), ...(options.args ?? [])];
    const child = execa(this.bin, args, { cwd: this.project, reject: false, extendEnv: false, env: { ...this.copilotEnv(), ...options.env }, stdin: 'ignore', timeout: options.timeout ?? 180_000 });
    const done = options.doneWhen;
    const watch = done ? setInterval(() => done() && child.kill(), 500) : undefined;
    const run = await child.finally(() => clearInterval(watch));
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
}
