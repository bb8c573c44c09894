// One user's machine for a Qwen Code real-client test: a temporary HOME whose ~/.qwen/settings.json
// turns usage statistics off (else Qwen contacts an outside telemetry host), a wmem home and a
// project (agent-world.ts). `qwen` runs the pinned client headless (`qwen -p … --yolo`, the shell tool is offered
// only with --yolo) against the loopback Chat Completions mock (`--auth-type openai
// --openai-base-url`), and returns what it printed and the requests it sent. `chatFiles` finds
// its chat logs (~/.qwen/projects/<slug>/chats/<id>.jsonl).
import { execa } from 'execa';
import { existsSync, readdirSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { AgentWorld, makeWorldDirs, type WorldDirs } from './agent-world.js';
import type { ChatRequest } from './openai-chat-mock.js';

export const QWEN_MODEL = 'qwen3-coder-plus';

export interface QwenRun {
  exitCode: number | undefined;
  stdout: string;
  stderr: string;
  /** Chat completion requests to the mock during this run, in order. */
  requests: ChatRequest[];
}

export const QWEN_EVENTS = ['SessionStart', 'UserPromptSubmit', 'PreToolUse', 'PostToolUse', 'PostToolUseFailure', 'PreCompact', 'PostCompact', 'Stop', 'SessionEnd'] as const;

export class QwenWorld extends AgentWorld {
  private constructor(
    dirs: WorldDirs,
    readonly entry: string,
  ) {
    super(dirs, 'qwen');
  }

  static async create(entry: string): Promise<QwenWorld> {
    const world = new QwenWorld(await makeWorldDirs('qwen'), entry);
    world.mock.shellCall = (command) => ({ name: 'run_shell_command', arguments: { command, description: 'Runs the command', is_background: false } });
    await mkdir(world.qwenDir, { recursive: true });
    await writeFile(world.settingsPath, world.baseSettings());
    return world;
  }

  get qwenDir(): string {
    return path.join(this.home, '.qwen');
  }

  get settingsPath(): string {
    return path.join(this.qwenDir, 'settings.json');
  }

  baseSettings(): string {
    return JSON.stringify({ privacy: { usageStatisticsEnabled: false } }, null, 2) + '\n';
  }

  /** Runs `qwen -p PROMPT --yolo` headless in the project; `resume` continues a session by id. */
  async qwen(prompt: string, options: { resume?: string; timeout?: number; env?: Record<string, string> } = {}): Promise<QwenRun> {
    const before = this.mock.requests.length;
    const args = [this.entry, '--auth-type', 'openai', '--openai-base-url', this.mock.baseUrl, '--openai-api-key', 'mock-key-not-a-secret', '-m', QWEN_MODEL, '--yolo', ...(options.resume ? ['--resume', options.resume] : []), '-p', prompt];
    const run = await execa(process.execPath, args, { cwd: this.project, reject: false, extendEnv: false, env: { ...this.baseEnv(), ...options.env }, stdin: 'ignore', timeout: options.timeout ?? 120_000 });
    const requests = this.mock.requests.slice(before).filter((r) => r.path.endsWith('/chat/completions'));
    return { exitCode: run.exitCode, stdout: String(run.stdout), stderr: String(run.stderr), requests };
  }

  /** Qwen's chat logs (~/.qwen/projects/<slug>/chats/<id>.jsonl). */
  chatFiles(): string[] {
    const projects = path.join(this.qwenDir, 'projects');
    const out: string[] = [];
    for (const slug of existsSync(projects) ? readdirSync(projects) : []) {
      const chats = path.join(projects, slug, 'chats');
      for (const name of existsSync(chats) ? readdirSync(chats) : []) if (name.endsWith('.jsonl')) out.push(path.join(chats, name));
    }
    return out.sort();
  }

  /** A hook per event (user settings) that appends its stdin to probe.jsonl. */
  async probeHooks(events: readonly string[] = QWEN_EVENTS): Promise<void> {
    const script = path.join(this.root, 'probe.mjs');
    await writeFile(
      script,
      ["import { appendFileSync, readFileSync } from 'node:fs';", "const input = readFileSync(0, 'utf8');", `appendFileSync(${JSON.stringify(this.probeLog)}, JSON.stringify({ input: JSON.parse(input || 'null') }) + '\\n');`].join('\n'),
    );
    const hooks: Record<string, unknown[]> = {};
    for (const event of events) hooks[event] = [{ hooks: [{ type: 'command', command: `node ${script}`, timeout: 10 }] }];
    await writeFile(this.settingsPath, JSON.stringify({ ...JSON.parse(this.baseSettings()), hooks }, null, 2) + '\n');
  }
}
