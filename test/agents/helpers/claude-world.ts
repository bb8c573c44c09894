// One user's machine for a real-client test: a temporary HOME, a wmem home, a Claude Code config
// folder (CLAUDE_CONFIG_DIR, onboarding done and the project trusted) and a project with wmem's
// hooks installed by the built wmem itself. `claude` runs the pinned client headless (`-p`)
// against the loopback mock, with a debug log per run, and returns what the client printed, the
// requests it sent and the hook timings its debug log reports.
import { execa, type Result } from 'execa';
import { existsSync, readdirSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, realpath, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { AnthropicMock, type RecordedRequest } from './anthropic-mock.js';
import { parseHookTimings, type HookTiming } from './debug-log.js';
import { removeTree } from './remove-tree.js';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
export const WMEM_BIN = path.join(ROOT, 'bin', 'wmem.js');

export interface ClaudeRun {
  /** The client's `--output-format json` result. */
  result: any;
  sessionId: string;
  exitCode: number | undefined;
  stderr: string;
  debugLog: string;
  /** Requests to the mock during this run, in order. */
  requests: RecordedRequest[];
  hookTimings: HookTiming[];
  /** wmem's own record of each hook it answered during the run (its last one per event). */
  wmemFired: FiredRecord[];
}

export interface FiredRecord {
  event: string;
  at: string;
  ok: boolean;
  ms: number;
  note?: string;
}

export interface ClaudeOptions {
  resume?: string;
  model?: string;
  /** More environment for the client and the hooks it runs (`WMEM_DISABLED`). */
  env?: Record<string, string>;
}

export interface WorldOptions {
  /** Passed to `wmem install claude --tokens-max N`. */
  tokensMax?: number;
}

export class World {
  private runs = 0;
  private constructor(
    readonly root: string,
    readonly home: string,
    readonly wmemHome: string,
    readonly configDir: string,
    readonly project: string,
    readonly mock: AnthropicMock,
    readonly claudeBin: string,
  ) {}

  static async create(claudeBin: string, options: WorldOptions = {}): Promise<World> {
    const root = await realpath(await mkdtemp(path.join(os.tmpdir(), 'wmem-agents-')));
    const dirs = ['home', 'wmem-home', 'claude-config', 'project'].map((d) => path.join(root, d));
    await Promise.all(dirs.map((d) => mkdir(d, { recursive: true })));
    const [home, wmemHome, configDir, project] = dirs;
    // What the client's first interactive start would have written: onboarding done, project trusted.
    await writeFile(
      path.join(configDir, '.claude.json'),
      JSON.stringify({ hasCompletedOnboarding: true, projects: { [project]: { hasTrustDialogAccepted: true } } }, null, 2) + '\n',
    );
    const mock = new AnthropicMock();
    await mock.start();
    const world = new World(root, home, wmemHome, configDir, project, mock, claudeBin);
    const install = await world.wmem(['install', 'claude', ...(options.tokensMax ? ['--tokens-max', String(options.tokensMax)] : [])]);
    if (install.exitCode !== 0) throw new Error(`wmem install claude exited ${install.exitCode}: ${install.stderr}`);
    return world;
  }

  private baseEnv(): Record<string, string> {
    const env: Record<string, string> = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: this.home, NO_COLOR: '1', LANG: 'C.UTF-8' };
    for (const key of ['TMPDIR', 'SHELL']) if (process.env[key]) env[key] = process.env[key]!;
    return env;
  }

  /** The built wmem, run in the project with `--home` (so nothing relies on the default ~/.ai). */
  wmem(args: string[]): Promise<Result> {
    return execa('node', [WMEM_BIN, '--home', this.wmemHome, ...args], {
      cwd: this.project,
      reject: false,
      extendEnv: false,
      timeout: 30_000,
      input: '',
      env: this.baseEnv(),
    });
  }

  async wmemJson<T = any>(args: string[]): Promise<T> {
    const result = await this.wmem([...args, '--json']);
    if (result.exitCode !== 0) throw new Error(`wmem ${args.join(' ')} exited ${result.exitCode}: ${result.stderr}`);
    return JSON.parse(String(result.stdout)) as T;
  }

  /** The environment a headless run needs: the mock as the API, no telemetry, no updates. */
  claudeEnv(): Record<string, string> {
    return {
      ...this.baseEnv(),
      CLAUDE_CONFIG_DIR: this.configDir,
      ANTHROPIC_BASE_URL: this.mock.url,
      ANTHROPIC_API_KEY: 'sk-ant-test-not-a-real-key',
      // As root the client refuses bypassPermissions unless told it is in a sandbox.
      IS_SANDBOX: '1',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      DISABLE_TELEMETRY: '1',
      DISABLE_AUTOUPDATER: '1',
      DISABLE_ERROR_REPORTING: '1',
    };
  }

  async claude(prompt: string, options: ClaudeOptions = {}): Promise<ClaudeRun> {
    const debugFile = path.join(this.root, `claude-debug-${++this.runs}.log`);
    const before = this.mock.requests.length;
    const startedAt = new Date().toISOString();
    const args = [
      ...(options.resume ? ['--resume', options.resume] : []),
      '-p',
      prompt,
      '--permission-mode',
      'bypassPermissions',
      '--output-format',
      'json',
      '--debug-file',
      debugFile,
      ...(options.model ? ['--model', options.model] : []),
    ];
    const run = await execa(this.claudeBin, args, { cwd: this.project, reject: false, extendEnv: false, env: { ...this.claudeEnv(), ...options.env }, stdin: 'ignore', timeout: 120_000 });
    const debugLog = existsSync(debugFile) ? await readFile(debugFile, 'utf8') : '';
    let result: any;
    try {
      result = JSON.parse(String(run.stdout));
    } catch {
      throw new Error(`claude ${args.join(' ')} printed no JSON result (exit ${run.exitCode}): ${String(run.stdout).slice(0, 500)} ${String(run.stderr).slice(0, 1000)}`);
    }
    return {
      result,
      sessionId: String(result.session_id),
      exitCode: run.exitCode,
      stderr: String(run.stderr),
      debugLog,
      requests: this.mock.requests.slice(before),
      hookTimings: parseHookTimings(debugLog),
      wmemFired: (await this.firedRecords()).filter((r) => r.at >= startedAt),
    };
  }

  /** <wmem home>/logs/hooks-last/<Event>.json: when each event last fired, how long wmem took. */
  async firedRecords(): Promise<FiredRecord[]> {
    const dir = path.join(this.wmemHome, 'logs', 'hooks-last');
    if (!existsSync(dir)) return [];
    const out: FiredRecord[] = [];
    for (const name of readdirSync(dir).filter((n) => n.endsWith('.json'))) {
      try {
        out.push(JSON.parse(await readFile(path.join(dir, name), 'utf8')) as FiredRecord);
      } catch {
        /* being rewritten: skipped */
      }
    }
    return out;
  }

  /** The client's transcript of a session: <config>/projects/<project slug>/<id>.jsonl. */
  transcriptPath(sessionId: string): string {
    const projects = path.join(this.configDir, 'projects');
    for (const slug of existsSync(projects) ? readdirSync(projects) : []) {
      const candidate = path.join(projects, slug, `${sessionId}.jsonl`);
      if (existsSync(candidate)) return candidate;
    }
    throw new Error(`no transcript for session ${sessionId} under ${projects}`);
  }

  async cleanup(): Promise<void> {
    await this.mock.stop();
    await removeTree(this.root);
  }
}
