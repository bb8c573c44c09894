// One user's machine for a Codex real-client test: a temporary HOME, a wmem home, a CODEX_HOME
// whose config.toml names the loopback Responses mock as the model provider (analytics and
// metrics off: nothing leaves the machine), and a project folder. `codex` runs the pinned client
// headless (`codex exec --json`) with `--dangerously-bypass-hook-trust` (Codex runs user and
// project hooks only once trusted; a test can run without the flag to see that gate) and returns
// the events it printed, the requests it sent and where its rollout is.
//
// Reusable by any Codex suite: `probeHooks` installs a hook per event that records its stdin;
// `appendConfig` adds TOML (an [mcp_servers.x] table, say); `mock.script` scripts the model.
import { execa, type Result } from 'execa';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { appendFile, mkdir, mkdtemp, readFile, realpath, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ResponsesMock, type RecordedRequest } from './responses-mock.js';
import { removeTree } from './remove-tree.js';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
export const WMEM_BIN = path.join(ROOT, 'bin', 'wmem.js');
/** The model the worlds run: one Codex knows the window of (258,400 tokens in 0.169). */
export const CODEX_MODEL = 'gpt-5.1';

export interface CodexRun {
  /** The thread (= session) id, from the `thread.started` event. */
  threadId: string;
  /** The `--json` events the client printed, in order. */
  events: any[];
  exitCode: number | undefined;
  stderr: string;
  /** Requests to the mock during this run, in order. */
  requests: RecordedRequest[];
}

export interface CodexOptions {
  /** Continue this thread (`codex exec resume ID`). */
  resume?: string;
  /** Leave out --dangerously-bypass-hook-trust (hooks then need persisted trust). */
  trusted?: false;
  /** `-c key=value` overrides. */
  config?: string[];
  /** More flags for `codex exec` (`--trust`). */
  args?: string[];
  timeout?: number;
  /** More environment for the client and the hooks it runs (`WMEM_DISABLED`). */
  env?: Record<string, string>;
}

export interface ProbeRecord {
  /** What the hook got on stdin, parsed. */
  input: any;
  /** The environment variables whose names mention CODEX. */
  env: Record<string, string>;
}

/** What Codex's app-server says of one hook (the fields the tests read). */
export interface HookMetadata {
  key: string;
  eventName: string;
  command?: string;
  sourcePath: string;
  source: string;
  currentHash: string;
  trustStatus: 'managed' | 'untrusted' | 'trusted' | 'modified';
}

/** A hook run as Codex's app-server reports it (`hook/completed`). */
export interface HookRun {
  eventName: string;
  sourcePath: string;
  status: string;
  durationMs: number | null;
  entries: unknown[];
}

/** Line-delimited JSON-RPC with `codex app-server`; keeps every notification it receives. */
export class AppServer {
  readonly notifications: { method: string; params: any }[] = [];
  private readonly replies = new Map<number, (reply: any) => void>();
  private readonly waiters: { method: string; resolve: () => void }[] = [];
  private next = 0;
  private buffer = '';

  constructor(private readonly child: ChildProcessWithoutNullStreams | ReturnType<typeof spawn>) {
    child.stdout!.on('data', (chunk: Buffer) => {
      this.buffer += chunk.toString('utf8');
      for (let nl = this.buffer.indexOf('\n'); nl !== -1; nl = this.buffer.indexOf('\n')) {
        const message = JSON.parse(this.buffer.slice(0, nl));
        this.buffer = this.buffer.slice(nl + 1);
        if (typeof message.id === 'number' && this.replies.has(message.id)) this.replies.get(message.id)!(message);
        else if (typeof message.method === 'string') this.received(message);
      }
    });
  }

  private received(message: { method: string; params: any }): void {
    this.notifications.push(message);
    for (const waiter of this.waiters.filter((w) => w.method === message.method)) waiter.resolve();
  }

  call(method: string, params: unknown, timeoutMs = 60_000): Promise<any> {
    const id = ++this.next;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`codex app-server did not answer ${method}`)), timeoutMs);
      this.replies.set(id, (reply) => {
        clearTimeout(timer);
        if (reply.error) reject(new Error(`${method}: ${JSON.stringify(reply.error)}`));
        else resolve(reply.result);
      });
      this.child.stdin!.write(JSON.stringify({ jsonrpc: '2.0', id, method, params }) + '\n');
    });
  }

  notify(method: string, params?: unknown): void {
    this.child.stdin!.write(JSON.stringify({ jsonrpc: '2.0', method, ...(params === undefined ? {} : { params }) }) + '\n');
  }

  waitFor(method: string, timeoutMs = 120_000): Promise<void> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`codex app-server sent no ${method}`)), timeoutMs);
      this.waiters.push({ method, resolve: () => (clearTimeout(timer), resolve()) });
    });
  }

  /** Ends the server and waits for it to exit (it writes under CODEX_HOME until then). */
  async close(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    this.child.stdin!.end();
    this.child.kill();
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 10_000))]);
  }
}

export const CODEX_EVENTS = ['SessionStart', 'UserPromptSubmit', 'PreToolUse', 'PostToolUse', 'PreCompact', 'PostCompact', 'Stop', 'SessionEnd'] as const;

export class CodexWorld {
  private constructor(
    readonly root: string,
    readonly home: string,
    readonly wmemHome: string,
    readonly codexHome: string,
    readonly project: string,
    readonly mock: ResponsesMock,
    readonly codexBin: string,
  ) {}

  static async create(codexBin: string): Promise<CodexWorld> {
    const root = await realpath(await mkdtemp(path.join(os.tmpdir(), 'wmem-codex-')));
    const dirs = ['home', 'wmem-home', 'codex-home', 'project'].map((d) => path.join(root, d));
    await Promise.all(dirs.map((d) => mkdir(d, { recursive: true })));
    const [home, wmemHome, codexHome, project] = dirs;
    const mock = new ResponsesMock();
    await mock.start();
    const world = new CodexWorld(root, home, wmemHome, codexHome, project, mock, codexBin);
    await writeFile(world.configPath, world.baseConfig());
    return world;
  }

  get configPath(): string {
    return path.join(this.codexHome, 'config.toml');
  }

  get hooksPath(): string {
    return path.join(this.codexHome, 'hooks.json');
  }

  private baseConfig(): string {
    return [
      `model = "${CODEX_MODEL}"`,
      'model_provider = "mock"',
      'check_for_update_on_startup = false',
      '',
      '[model_providers.mock]',
      'name = "mock"',
      `base_url = "${this.mock.baseUrl}"`,
      'wire_api = "responses"',
      'env_key = "MOCK_API_KEY"',
      '',
      '[analytics]',
      'enabled = false',
      '',
      '[otel]',
      'metrics_exporter = "none"',
      '',
    ].join('\n');
  }

  /** Adds TOML at the end of config.toml (tables only: top-level keys belong above them). */
  async appendConfig(toml: string): Promise<void> {
    await appendFile(this.configPath, `\n${toml.trim()}\n`);
  }

  private baseEnv(): Record<string, string> {
    const env: Record<string, string> = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: this.home, NO_COLOR: '1', LANG: 'C.UTF-8' };
    for (const key of ['TMPDIR', 'SHELL']) if (process.env[key]) env[key] = process.env[key]!;
    return env;
  }

  /** The environment `codex` and the hooks it starts see. */
  codexEnv(): Record<string, string> {
    return { ...this.baseEnv(), CODEX_HOME: this.codexHome, MOCK_API_KEY: 'mock-key-not-a-secret' };
  }

  /** The built wmem, run in the project with `--home` (so nothing relies on the default ~/.ai). */
  wmem(args: string[], env: Record<string, string> = {}): Promise<Result> {
    return execa('node', [WMEM_BIN, '--home', this.wmemHome, ...args], {
      cwd: this.project,
      reject: false,
      extendEnv: false,
      timeout: 30_000,
      input: '',
      env: { ...this.baseEnv(), CODEX_HOME: this.codexHome, ...env },
    });
  }

  async wmemJson<T = any>(args: string[]): Promise<T> {
    const result = await this.wmem([...args, '--json']);
    if (result.exitCode !== 0) throw new Error(`wmem ${args.join(' ')} exited ${result.exitCode}: ${result.stderr}`);
    return JSON.parse(String(result.stdout)) as T;
  }

  /** Runs `codex exec` headless in the project; the prompt may carry the mock's markers. */
  async codex(prompt: string, options: CodexOptions = {}): Promise<CodexRun> {
    const before = this.mock.requests.length;
    const args = [
      'exec',
      ...(options.resume ? ['resume', options.resume] : []),
      '--json',
      '--skip-git-repo-check',
      '--dangerously-bypass-approvals-and-sandbox',
      ...(options.trusted === false ? [] : ['--dangerously-bypass-hook-trust']),
      ...(options.config ?? []).flatMap((c) => ['-c', c]),
      ...(options.args ?? []),
      prompt,
    ];
    const run = await execa(this.codexBin, args, { cwd: this.project, reject: false, extendEnv: false, env: { ...this.codexEnv(), ...options.env }, stdin: 'ignore', timeout: options.timeout ?? 120_000 });
    const events = String(run.stdout)
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line));
    const threadId = options.resume ?? events.find((e) => e.type === 'thread.started')?.thread_id;
    if (!threadId) throw new Error(`codex ${args.join(' ')} started no thread (exit ${run.exitCode}): ${String(run.stdout).slice(0, 800)} ${String(run.stderr).slice(0, 1500)}`);
    return { threadId: String(threadId), events, exitCode: run.exitCode, stderr: String(run.stderr), requests: this.mock.requests.slice(before) };
  }

  /** The rollout of a thread: $CODEX_HOME/sessions/YYYY/MM/DD/rollout-…-<id>.jsonl. */
  rolloutPath(threadId: string): string {
    const found = findFile(path.join(this.codexHome, 'sessions'), (name) => name.startsWith('rollout-') && name.endsWith(`-${threadId}.jsonl`));
    if (!found) throw new Error(`no rollout for thread ${threadId} under ${this.codexHome}/sessions`);
    return found;
  }

  async rollout(threadId: string): Promise<any[]> {
    const text = await readFile(this.rolloutPath(threadId), 'utf8');
    return text
      .split('\n')
      .filter((line) => line.trim())
      .map((line) => JSON.parse(line));
  }

  /** `wmem install codex` (user scope unless told), run by the built wmem in the project. */
  async installWmem(args: string[] = []): Promise<Result> {
    const result = await this.wmem(['install', 'codex', ...args]);
    if (result.exitCode !== 0) throw new Error(`wmem install codex exited ${result.exitCode}: ${result.stderr}`);
    return result;
  }

  /** A JSON-RPC session with `codex app-server` on stdio (initialized); `close` ends it. */
  async appServer(): Promise<AppServer> {
    const server = new AppServer(spawn(this.codexBin, ['app-server'], { cwd: this.project, env: this.codexEnv(), stdio: ['pipe', 'pipe', 'ignore'] }));
    await server.call('initialize', { clientInfo: { name: 'wmem-test', version: '0' } });
    server.notify('initialized');
    return server;
  }

  /**
   * The hooks Codex sees for the project, as its app-server reports them (`hooks/list`): each
   * with Codex's key, the hash of its current entry and its trust status.
   */
  async hooksList(): Promise<HookMetadata[]> {
    const server = await this.appServer();
    try {
      const listed = await server.call('hooks/list', { cwds: [this.project] });
      return (listed.data as { hooks: HookMetadata[] }[]).flatMap((entry) => entry.hooks);
    } finally {
      await server.close();
    }
  }

  /**
   * One turn through the app-server (thread/start, turn/start, until turn/completed), as the
   * TUI and IDE clients run it: the hooks need trust here (there is no bypass flag). Returns the
   * hook runs Codex reported (`hook/completed`, with its own `durationMs`).
   */
  async appServerTurn(prompt: string): Promise<{ threadId: string; hookRuns: HookRun[]; requests: RecordedRequest[] }> {
    const before = this.mock.requests.length;
    const server = await this.appServer();
    try {
      const started = await server.call('thread/start', { cwd: this.project, approvalPolicy: 'never', sandbox: 'danger-full-access' });
      const threadId = String(started.thread.id);
      const done = server.waitFor('turn/completed');
      await server.call('turn/start', { threadId, input: [{ type: 'text', text: prompt, text_elements: [] }] });
      await done;
      const hookRuns = server.notifications.filter((n) => n.method === 'hook/completed').map((n) => n.params.run as HookRun);
      return { threadId, hookRuns, requests: this.mock.requests.slice(before) };
    } finally {
      await server.close();
    }
  }

  /**
   * Trusts every hook Codex lists, the way its TUI's review stores it: `[hooks.state."<key>"]
   * trusted_hash = "<current hash>"` in the user's config.toml. Returns the keys trusted.
   */
  async trustAllHooks(): Promise<string[]> {
    const hooks = await this.hooksList();
    await this.appendConfig(hooks.map((h) => `[hooks.state.${JSON.stringify(h.key)}]\ntrusted_hash = ${JSON.stringify(h.currentHash)}\n`).join('\n'));
    return hooks.map((h) => h.key);
  }

  /** A hook per event (user scope hooks.json) that appends its stdin and CODEX_* env to probe.jsonl. */
  async probeHooks(events: readonly string[] = CODEX_EVENTS): Promise<void> {
    const script = path.join(this.root, 'probe.mjs');
    await writeFile(
      script,
      [
        "import { appendFileSync, readFileSync } from 'node:fs';",
        "const input = readFileSync(0, 'utf8');",
        'const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => /CODEX/.test(k)));',
        `appendFileSync(${JSON.stringify(this.probeLog)}, JSON.stringify({ input: JSON.parse(input), env }) + '\\n');`,
      ].join('\n'),
    );
    const hooks: Record<string, unknown[]> = {};
    for (const event of events) hooks[event] = [{ hooks: [{ type: 'command', command: `node ${script}`, timeout: event === 'SessionEnd' ? 3 : 10 }] }];
    await writeFile(this.hooksPath, JSON.stringify({ hooks }, null, 2) + '\n');
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
    // A hook Codex started may still be finishing a write: rm retries a folder that refills.
    await removeTree(this.root);
  }
}

function findFile(dir: string, match: (name: string) => boolean): string | undefined {
  if (!existsSync(dir)) return undefined;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      const found = findFile(full, match);
      if (found) return found;
    } else if (match(entry.name)) return full;
  }
  return undefined;
}
