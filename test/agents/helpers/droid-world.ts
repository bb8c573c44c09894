// One user's machine for a Factory Droid real-client test: a temporary HOME whose
// ~/.factory/settings.json names the loopback chat-completions mock as a custom model
// (`generic-chat-completion-api`), a wmem home, a project. Droid runs airgapped (no update check,
// no telemetry, no login). Two ways to drive it: `exec` (one `droid exec` run; UserPromptSubmit
// does not fire there) and `rpc()`, a session over `--input-format stream-jsonrpc` (one JSON
// object per line each way), where UserPromptSubmit fires and `droid.compact_session` compacts.
import { execa, type Result } from 'execa';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, realpath, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import { DROID_OFFLINE_ENV } from './install-droid.js';
import { ChatMock, type ChatRequest } from './openai-chat-mock.js';
import { removeTree } from './remove-tree.js';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
export const WMEM_BIN = path.join(ROOT, 'bin', 'wmem.js');
export const MODEL = 'custom:m';
const PROTOCOL = { jsonrpc: '2.0', factoryApiVersion: '1.0.0', factoryProtocolVersion: '1.206.0' };

export class DroidWorld {
  private constructor(
    readonly root: string,
    readonly home: string,
    readonly wmemHome: string,
    readonly project: string,
    readonly mock: ChatMock,
    readonly bin: string,
  ) {}

  static async create(bin: string): Promise<DroidWorld> {
    const root = await realpath(await mkdtemp(path.join(os.tmpdir(), 'wmem-droid-')));
    const dirs = ['home', 'wmem-home', 'project', 'home/.factory'].map((d) => path.join(root, d));
    await Promise.all(dirs.map((d) => mkdir(d, { recursive: true })));
    const mock = new ChatMock();
    await mock.start();
    // Droid's shell tool is Execute, and it asks the model for a risk level with each command.
    mock.shellCall = (command) => ({ name: 'Execute', arguments: { command, riskLevel: 'low', riskLevelReason: 'a test command' } });
    const world = new DroidWorld(root, dirs[0]!, dirs[1]!, dirs[2]!, mock, bin);
    const model = { model: 'm', displayName: 'm', baseUrl: mock.baseUrl, apiKey: 'mock-key-not-a-secret', provider: 'generic-chat-completion-api', maxOutputTokens: 1000 };
    await writeFile(path.join(dirs[3]!, 'settings.json'), JSON.stringify({ customModels: [model] }, null, 2) + '\n');
    return world;
  }

  get hooksPath(): string {
    return path.join(this.home, '.factory', 'hooks.json');
  }

  /** Where Droid keeps the project's sessions: the cwd with every `/` as `-`. */
  get sessionsDir(): string {
    return path.join(this.home, '.factory', 'sessions', this.project.replace(/\//g, '-'));
  }

  env(): Record<string, string> {
    const env: Record<string, string> = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: this.home, NO_COLOR: '1', LANG: 'C.UTF-8', ...DROID_OFFLINE_ENV };
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

  /** One `droid exec` run in the project. */
  async exec(prompt: string): Promise<{ exitCode: number | undefined; stdout: string; stderr: string; requests: ChatRequest[] }> {
    const before = this.mock.completions().length;
    const run = await execa(this.bin, ['exec', '-m', MODEL, '--auto', 'high', prompt], { cwd: this.project, reject: false, extendEnv: false, env: this.env(), stdin: 'ignore', timeout: 180_000 });
    return { exitCode: run.exitCode, stdout: String(run.stdout), stderr: String(run.stderr), requests: this.mock.completions().slice(before) };
  }

  /** A Droid process driven over JSON-RPC on stdio. */
  rpc(): DroidRpc {
    return new DroidRpc(this);
  }

  async cleanup(): Promise<void> {
    await this.mock.stop();
    await removeTree(this.root);
  }
}

type Message = Record<string, any>;

export class DroidRpc {
  private readonly child: ChildProcess;
  private next = 0;
  private readonly waiting = new Map<string, (m: Message) => void>();
  private turnDone?: () => void;
  readonly stderr: string[] = [];
  readonly exited: Promise<number | null>;

  constructor(private readonly world: DroidWorld) {
    const args = ['exec', '--input-format', 'stream-jsonrpc', '--output-format', 'stream-jsonrpc', '--auto', 'high', '-m', MODEL];
    this.child = spawn(world.bin, args, { cwd: world.project, env: world.env(), stdio: ['pipe', 'pipe', 'pipe'] });
    this.child.stderr!.on('data', (d: Buffer) => this.stderr.push(d.toString()));
    this.exited = new Promise((resolve) => this.child.on('exit', (code) => resolve(code)));
    readline.createInterface({ input: this.child.stdout! }).on('line', (line) => this.onLine(line));
  }

  private onLine(line: string): void {
    let message: Message;
    try {
      message = JSON.parse(line) as Message;
    } catch {
      return;
    }
    const waiter = message.type === 'response' ? this.waiting.get(String(message.id)) : undefined;
    if (waiter) {
      this.waiting.delete(String(message.id));
      return waiter(message);
    }
    if (line.includes('"agent_turn_completed"')) this.turnDone?.();
  }

  /** One request; the response's `result`, or a thrown error. */
  async request(method: string, params: Record<string, unknown> = {}): Promise<any> {
    const id = String(++this.next);
    const response = new Promise<Message>((resolve) => this.waiting.set(id, resolve));
    this.child.stdin!.write(JSON.stringify({ ...PROTOCOL, type: 'request', id, method, params }) + '\n');
    const message = await response;
    if (message.error) throw new Error(`${method}: ${JSON.stringify(message.error)}`);
    return message.result;
  }

  async initialize(): Promise<string> {
    const result = await this.request('droid.initialize_session', { machineId: 'wmem-test', cwd: this.world.project, modelId: MODEL, autonomyLevel: 'high' });
    return String(result.sessionId);
  }

  async load(sessionId: string): Promise<void> {
    await this.request('droid.load_session', { sessionId });
  }

  /** One user turn, until Droid says the turn completed; the chat requests it made. */
  async turn(text: string): Promise<ChatRequest[]> {
    const before = this.world.mock.completions().length;
    const done = new Promise<void>((resolve) => (this.turnDone = resolve));
    await this.request('droid.add_user_message', { text });
    await done;
    return this.world.mock.completions().slice(before);
  }

  async close(): Promise<number | null> {
    await this.request('droid.close_session').catch(() => undefined);
    this.child.stdin!.end();
    return this.exited;
  }
}
