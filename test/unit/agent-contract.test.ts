// The registry is the list of adapters (src/agents/lookup.ts the same agents by name): every adapter in it, under every name it answers to,
// reaches each place wmem serves agents from without another table to edit: `install --help`,
// install and uninstall, `--mcp`, doctor, the session's agent read back from meta.json, and the
// report's chart read from its transcript with its own rules. A new agent registered in
// src/agents/registry.ts is held to this by being there (and by a transcript of it in TRANSCRIPTS).
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AGENTS, agentByMetaName, findAgent } from '../../src/agents/registry.js';
import { MCP_TARGETS } from '../../src/agents/mcp-register.js';
import { buildProgram } from '../../src/cli.js';
import type { AppEnv } from '../../src/app/env.js';
import { install, uninstall } from '../../src/app/install.js';
import { installMcp, uninstallMcp } from '../../src/app/mcp-install.js';
import { doctor } from '../../src/app/doctor.js';
import { loadSeries } from '../../src/report/load.js';
import { sessionPaths } from '../../src/store/paths.js';
import type { Session } from '../../src/store/session.js';
import { FIXTURES } from '../helpers/cli.js';

let root: string;
let env: AppEnv;

beforeAll(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'wmem-contract-'));
  const home = path.join(root, 'user');
  // Every agent's user config under the temp folder, whatever variable the agent reads.
  const vars = { HOME: home, CODEX_HOME: path.join(home, '.codex'), GEMINI_CLI_HOME: home, CLAUDE_CONFIG_DIR: path.join(home, '.claude'), XDG_CONFIG_HOME: path.join(home, '.config') };
  // A stand-in named wmem runs the hooks: doctor's "does it run" check passes without a build.
  const bin = path.join(root, 'bin', 'wmem');
  await mkdir(path.dirname(bin));
  await writeFile(bin, '#!/bin/sh\nexit 0\n');
  await chmod(bin, 0o755);
  env = { home: path.join(root, 'wmem'), cwd: path.join(root, 'project'), env: { ...vars, PATH: process.env.PATH, WMEM_HOOK_COMMAND: bin }, now: () => new Date(0) };
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const names = (a: (typeof AGENTS)[number]) => [a.id, ...a.aliases, a.id.toUpperCase()];

describe('install --help', () => {
  const help = (name: string) => buildProgram().commands.find((c) => c.name() === name)!.helpInformation();

  it.each(['install', 'uninstall'])('%s names every agent with its aliases, its default scope, and every scope', (command) => {
    const text = help(command).replace(/\s+/g, ' ');
    for (const a of AGENTS) {
      for (const name of [a.id, ...a.aliases]) expect(text).toContain(name);
      expect(text).toMatch(new RegExp(`${a.id}((, | and )[a-z-]+)* ${a.config.defaultScope}`));
      for (const scope of a.config.scopes) expect(text).toContain(`"${scope}"`);
    }
  });

  it('lists under --mcp every agent that registers the MCP server', () => {
    const text = help('install').replace(/\s+/g, ' ');
    expect(text).toContain(`(${AGENTS.filter((a) => a.mcp).map((a) => a.id).join(', ')})`);
  });
});

/** An agent wmem reaches through MCP only answers no hook event (src/agents/mcp-only.ts). */
const mcpOnly = (a: (typeof AGENTS)[number]) => a.events.length === 0;

describe.each(AGENTS.map((a) => [a.id, a] as const))('%s', (_id, adapter) => {
  it('installs and uninstalls (dry run) under every name, in every scope, into its own file', async () => {
    if (mcpOnly(adapter)) {
      await expect(install({ agent: adapter.id, dryRun: true }, env)).rejects.toThrow(/through MCP only/);
      expect(adapter.mcp).toBeDefined();
      return;
    }
    for (const name of names(adapter)) {
      for (const scope of adapter.config.scopes) {
        const result = await install({ agent: name, scope, dryRun: true }, env);
        expect(result).toMatchObject({ agent: adapter.id, scope, file: adapter.config.file(scope, env), dryRun: true });
        expect(result.plan.events.length).toBeGreaterThan(0);
        expect((await uninstall({ agent: name, scope, dryRun: true }, env)).agent).toBe(adapter.id);
      }
    }
  });

  it('registers the MCP server (dry run) under every name, in every MCP scope, into the file it declares', async () => {
    if (!adapter.mcp) {
      await expect(installMcp({ agent: adapter.id, dryRun: true, node: process.execPath }, env)).rejects.toThrow(/cannot register wmem's MCP server/);
      return;
    }
    expect(MCP_TARGETS.map((t) => t.id)).toContain(adapter.id);
    for (const name of names(adapter)) {
      for (const scope of adapter.mcp.scopes) {
        const result = await installMcp({ agent: name, scope, dryRun: true, node: process.execPath }, env);
        expect(result).toMatchObject({ agent: adapter.id, scope, file: adapter.mcp.file(scope, env), changed: true });
        expect((await uninstallMcp({ agent: name, scope, dryRun: true, node: process.execPath }, env)).agent).toBe(adapter.id);
      }
    }
  });

  it("is found again from the name a session's meta.json records", () => {
    expect(agentByMetaName(adapter.metaName)).toBe(adapter);
    for (const name of names(adapter)) expect(findAgent(name)).toBe(adapter);
  });
});

/**
 * A real transcript of each agent (test/fixtures, see each folder's SOURCES.md) and what the
 * report's chart must show from it, counted apart from wmem (python, the same rules): the tokens
 * of each request (or their count and peak), and after how many requests each compaction came.
 * `lines` turns the file into the lines the hooks leave (OpenCode's messages: one JSON line each).
 */
const TRANSCRIPTS: Record<string, { file: string; tokens?: number[]; count?: number; peak?: number; compactions: number[]; lines?: (text: string) => string }> = {
  claude: { file: path.join(FIXTURES, 'claude-code-log', 'ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl'), count: 17, peak: 66603, compactions: [] },
  codex: { file: path.join(FIXTURES, '..', 'codex', 'rollout-auto-compacted.jsonl'), tokens: [250000, 250000, 250000, 250000], compactions: [3] },
  gemini: { file: path.join(FIXTURES, '..', 'gemini', 'chat-compressed.jsonl'), tokens: [1234, 1234, 1234, 600000, 600000, 1234], compactions: [4] },
  opencode: {
    file: path.join(FIXTURES, '..', 'opencode', 'messages-before-compaction.json'),
    tokens: [1500, 1500, 3700],
    compactions: [3],
    lines: (text) => (JSON.parse(text) as unknown[]).map((m) => JSON.stringify(m) + '\n').join(''),
  },
  kilo: {
    file: path.join(FIXTURES, '..', 'opencode', 'messages-before-compaction.json'),
    tokens: [1500, 1500, 3700],
    compactions: [3],
    lines: (text) => (JSON.parse(text) as unknown[]).map((m) => JSON.stringify(m) + '\n').join(''),
  },
  copilot: { file: path.join(FIXTURES, '..', 'copilot', 'events.jsonl'), tokens: [1200, 1200, 1200, 1200], compactions: [2] },
  qwen: { file: path.join(FIXTURES, '..', 'qwen', 'chat.jsonl'), tokens: [5000, 5000], compactions: [2] },
};

/**
 * Agents whose transcript carries no token figures, so the report charts wmem's own history for
 * them: Droid writes its usage only to `<id>.settings.json`, the last call's (its meter reads it);
 * an MCP-only agent runs no hook that would record a transcript.
 */
const NO_USAGE_LINES: Record<string, string> = { droid: 'usage only in the session settings file, last call only' };
const charted = AGENTS.filter((a) => !mcpOnly(a) && !(a.id in NO_USAGE_LINES));

it('every agent with hooks is charted by the report, or says why not', () => {
  expect(AGENTS.filter((a) => !mcpOnly(a) && !charted.includes(a)).map((a) => a.id)).toEqual(Object.keys(NO_USAGE_LINES));
});

describe.each(charted.map((a) => [a.id, a] as const))("the report's chart of a %s session", (id, adapter) => {
  it('reads the transcript its hooks recorded, with its own usage rules', async () => {
    const known = TRANSCRIPTS[id];
    expect(known, `add a transcript of ${id} to TRANSCRIPTS`).toBeDefined();
    expect(adapter.usageLines, `${id} has no usageLines`).toBeDefined();
    const paths = sessionPaths(path.join(root, 'report', id), 's1');
    await mkdir(paths.stateDir, { recursive: true });
    const transcript = path.join(paths.stateDir, `${id}-transcript.jsonl`);
    const text = await readFile(known!.file, 'utf8');
    await writeFile(transcript, known!.lines ? known!.lines(text) : text);
    await writeFile(paths.meta, JSON.stringify({ version: 1, id: 's1', cwd: root, createdAt: '', updatedAt: '', agent: adapter.metaName }));
    await writeFile(path.join(paths.stateDir, `${id}-hooks.json`), JSON.stringify({ transcript: { path: transcript } }));
    const session = { id: 's1', paths, source: 'flag' } as Session;
    const { series, source } = await loadSeries(session, paths.dir);
    expect(source).toBe(transcript);
    const tokens = series.points.map((p) => p.tokens);
    if (known!.tokens) expect(tokens).toEqual(known!.tokens);
    if (known!.count) expect(tokens).toHaveLength(known!.count);
    if (known!.peak) expect(Math.max(...tokens)).toBe(known!.peak);
    expect(series.compactions.map((c) => c.n)).toEqual(known!.compactions);
  });
});

describe('doctor', () => {
  it('reports every agent once its hooks are installed, each with every event installed and its command running', async () => {
    const hooked = AGENTS.filter((a) => !mcpOnly(a));
    for (const a of hooked) await install({ agent: a.id }, env);
    const report = await doctor(env);
    expect(report.agents.map((r) => r.agent)).toEqual(hooked.map((a) => a.id));
    for (const r of report.agents) {
      const installed = r.scopes.find((s) => s.installed.length);
      expect(installed?.missing ?? ['no scope installed']).toEqual([]);
      expect(r.command?.runs).toBe(true);
    }
  }, 60_000);
});
