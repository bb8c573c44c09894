// One user's machine for a Gemini CLI real-client test: a temporary HOME whose
// ~/.gemini/settings.json picks API-key auth (GEMINI_API_KEY and GOOGLE_GEMINI_BASE_URL point the
// client at the loopback mock) with usage statistics off, a trustedFolders.json that trusts the
// project (Gemini refuses to run headless in an untrusted folder), a wmem home and a project.
// `gemini` runs the pinned client headless (`gemini -p … --yolo`) and returns what it printed and
// the requests it sent; `chatFiles` finds its chat transcripts.
import { execa, type Result } from 'execa';
import { existsSync, readdirSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, realpath, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { GeminiMock, type GeminiRequest } from './gemini-mock.js';
import { removeTree } from './remove-tree.js';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
export const WMEM_BIN = path.join(ROOT, 'bin', 'wmem.js');
/** A model Gemini CLI 0.61 knows (1,048,576 tokens); `-m` also skips the model router. */
export const GEMINI_MODEL = 'gemini-2.5-flash';

export interface GeminiRun {
  exitCode: number | undefined;
  stdout: string;
  stderr: string;
  /** Requests to the mock during this run, in order. */
  requests: GeminiRequest[];
}

export interface ProbeRecord {
  input: any;
  env: Record<string, string>;
}

export const GEMINI_EVENTS = ['SessionStart', 'BeforeAgent', 'BeforeTool', 'AfterTool', 'PreCompress', 'AfterAgent', 'SessionEnd'] as const;

export class GeminiWorld {
  private constructor(
    readonly root: string,
    readonly home: string,
    readonly wmemHome: string,
    readonly project: string,
    readonly mock: GeminiMock,
    readonly entry: string,
  ) {}

  static async create(entry: string): Promise<GeminiWorld> {
    const root = await realpath(await mkdtemp(path.join(os.tmpdir(), 'wmem-gemini-')));
    const dirs = ['home', 'wmem-home', 'project'].map((d) => path.join(root, d));
    await Promise.all(dirs.map((d) => mkdir(d, { recursive: true })));
    const [home, wmemHome, project] = dirs;
    const mock = new GeminiMock();
    await mock.start();
    const world = new GeminiWorld(root, home, wmemHome, project, mock, entry);
    await mkdir(world.geminiDir, { recursive: true });
    await writeFile(world.settingsPath, world.baseSettings());
    await writeFile(path.join(world.geminiDir, 'trustedFolders.json'), JSON.stringify({ [project]: 'TRUST_FOLDER' }, null, 2));
    return world;
  }

  get geminiDir(): string {
    return path.join(this.home, '.gemini');
  }

  get settingsPath(): string {
    return path.join(this.geminiDir, 'settings.json');
  }

  baseSettings(): string {
    return JSON.stringify({ security: { auth: { selectedType: 'gemini-api-key' } }, privacy: { usageStatisticsEnabled: false } }, null, 2) + '\n';
  }

  private baseEnv(): Record<string, string> {
    const env: Record<string, string> = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: this.home, NO_COLOR: '1', LANG: 'C.UTF-8', TERM: 'dumb' };
    for (const key of ['TMPDIR', 'SHELL']) if (process.env[key]) env[key] = process.env[key]!;
    return env;
  }

  /** The environment `gemini` and the hooks it starts see. */
  geminiEnv(): Record<string, string> {
    return { ...this.baseEnv(), GEMINI_API_KEY: 'mock-key-not-a-secret', GOOGLE_GEMINI_BASE_URL: this.mock.url };
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

  /** `wmem install gemini` (user scope unless told), run by the built wmem in the project. */
  async installWmem(args: string[] = []): Promise<Result> {
    const result = await this.wmem(['install', 'gemini', ...args]);
    if (result.exitCode !== 0) throw new Error(`wmem install gemini exited ${result.exitCode}: ${result.stderr}`);
    return result;
  }

  /** Runs `gemini -p` headless in the project; `resume` continues the latest session. */
  async gemini(prompt: string, options: { resume?: boolean; timeout?: number; env?: Record<string, string> } = {}): Promise<GeminiRun> {
    const before = this.mock.requests.length;
    const args = [this.entry, '-p', prompt, '--yolo', '-m', GEMINI_MODEL, ...(options.resume ? ['--resume', 'latest'] : [])];
    const run = await execa(process.execPath, args, { cwd: this.project, reject: false, extendEnv: false, env: { ...this.geminiEnv(), ...options.env }, stdin: 'ignore', timeout: options.timeout ?? 120_000 });
    return { exitCode: run.exitCode, stdout: String(run.stdout), stderr: String(run.stderr), requests: this.mock.requests.slice(before) };
  }

  /** The chat transcripts Gemini wrote (~/.gemini/tmp/<project>/chats/session-*.jsonl), oldest first. */
  chatFiles(): string[] {
    const tmp = path.join(this.geminiDir, 'tmp');
    const out: string[] = [];
    for (const slug of existsSync(tmp) ? readdirSync(tmp) : []) {
      const chats = path.join(tmp, slug, 'chats');
      for (const name of existsSync(chats) ? readdirSync(chats) : []) if (name.startsWith('session-') && name.endsWith('.jsonl')) out.push(path.join(chats, name));
    }
    return out.sort();
  }

  /** A hook per event (user settings) that appends its stdin and GEMINI_* env to probe.jsonl. */
  async probeHooks(events: readonly string[] = GEMINI_EVENTS): Promise<void> {
    const script = path.join(this.root, 'probe.mjs');
    await writeFile(
      script,
      [
        "import { appendFileSync, readFileSync } from 'node:fs';",
        "const input = readFileSync(0, 'utf8');",
        'const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => /^GEMINI_(?:SESSION_ID|PROJECT_DIR|CWD)$/.test(k)));',
        `appendFileSync(${JSON.stringify(this.probeLog)}, JSON.stringify({ input: JSON.parse(input), env }) + '\\n');`,
      ].join('\n'),
    );
    const hooks: Record<string, unknown[]> = {};
    for (const event of events) hooks[event] = [{ hooks: [{ type: 'command', command: `node ${script}`, name: `probe-${event}`, timeout: 10_000 }] }];
    const settings = JSON.parse(this.baseSettings());
    await writeFile(this.settingsPath, JSON.stringify({ ...settings, hooks }, null, 2) + '\n');
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
    await removeTree(this.root);
  }
}
