// `wmem doctor`: for every agent wmem knows, are its hooks installed (in which config file), does
// the command they name run, and when did each event last fire? Claude Code is always reported
// (it is the default agent); another agent is reported once its hooks are found or have fired.
import { spawnSync } from 'node:child_process';
import type { AgentAdapter, ConfigStatus } from '../agents/adapter.js';
import { readConfigText } from '../agents/config-file.js';
import { hookLogFile, lastLogLines, readFired, type FiredRecord } from '../agents/hook-log.js';
import { AGENTS, DEFAULT_AGENT } from '../agents/registry.js';
import { firedKey } from './hook.js';
import type { AppEnv } from './env.js';

export interface CommandCheck {
  prefix: string;
  runs: boolean;
  output: string;
}

export interface AgentReport {
  agent: string;
  displayName: string;
  scopes: ConfigStatus[];
  command: CommandCheck | null;
  /** The last firing of each event wmem installs, by the agent's event name. */
  fired: Record<string, FiredRecord | null>;
}

export interface DoctorResult {
  ok: boolean;
  agents: AgentReport[];
  /** Claude Code's report, at the top as before adapters existed. */
  scopes: ConfigStatus[];
  command: CommandCheck | null;
  fired: Record<string, FiredRecord | null>;
  recentErrors: string[];
  log: string;
  /** WMEM_DISABLED and `wmem off` for this folder: hooks that fire but do nothing. */
  switches: import('./switch.js').Switches;
  /** Where the wmem MCP server is registered and whether it answers. */
  mcp: import('./mcp-doctor.js').McpDoctorReport;
  problems: string[];
}

function tryCommand(prefix: string): CommandCheck {
  const result = spawnSync('/bin/sh', ['-c', `${prefix} --version`], { encoding: 'utf8', timeout: 10_000 });
  const output = `${result.stdout ?? ''}${result.stderr ?? ''}`.trim().split('\n')[0] ?? '';
  return { prefix, runs: result.status === 0, output: result.error ? result.error.message : output };
}

async function statusOf(adapter: AgentAdapter, env: AppEnv): Promise<ConfigStatus[]> {
  const out: ConfigStatus[] = [];
  for (const scope of adapter.config.scopes) {
    const file = adapter.config.file(scope, env);
    const related: Record<string, string | undefined> = {};
    for (const other of adapter.config.related?.(scope, env) ?? []) related[other] = await readConfigText(other).catch(() => undefined);
    let text: string | undefined;
    try {
      text = await readConfigText(file);
    } catch (err) {
      out.push({ scope, file, exists: true, error: `${file}: ${(err as Error).message}`, installed: [], missing: adapter.events.map((e) => e.name), problems: [] });
      continue;
    }
    out.push(adapter.config.diagnose(scope, file, text, related));
  }
  return out;
}

async function reportOf(adapter: AgentAdapter, env: AppEnv): Promise<AgentReport> {
  const scopes = await statusOf(adapter, env);
  const withHooks = scopes.filter((s) => s.installed.length);
  const prefix = withHooks[0]?.command ? adapter.config.commandPrefix(withHooks[0].command) : undefined;
  const fired: Record<string, FiredRecord | null> = {};
  for (const { name } of adapter.events) fired[name] = (await readFired(env.home, firedKey(adapter, name))) ?? null;
  return { agent: adapter.id, displayName: adapter.displayName, scopes, command: prefix ? tryCommand(prefix) : null, fired };
}

function problemsOf(report: AgentReport): string[] {
  const problems: string[] = [];
  const withHooks = report.scopes.filter((s) => s.installed.length);
  for (const s of report.scopes) problems.push(...s.problems, ...(s.error ? [s.error] : []));
  if (withHooks.length > 1) {
    problems.push(`wmem's hooks are in ${withHooks.length} settings files (${withHooks.map((s) => s.scope).join(', ')}): ${report.displayName} runs each of them, so every hook runs twice; keep one ('wmem uninstall ${report.agent} --scope SCOPE')`);
  }
  const command = report.command;
  if (command && !command.runs) problems.push(`the hook command does not run (${command.prefix} --version: ${command.output || 'failed'}): reinstall with 'wmem install ${report.agent}'`);
  return problems;
}

export async function doctor(env: AppEnv): Promise<DoctorResult> {
  const all = await Promise.all(AGENTS.map((a) => reportOf(a, env)));
  const found = (r: AgentReport) => r.scopes.some((s) => s.installed.length || s.error) || Object.values(r.fired).some(Boolean);
  const agents = all.filter((r) => r.agent === DEFAULT_AGENT || found(r));
  const problems: string[] = [];
  if (!all.some((r) => r.scopes.some((s) => s.installed.length))) problems.push(`wmem's hooks are not installed: run 'wmem install ${DEFAULT_AGENT}'`);
  for (const r of agents) problems.push(...problemsOf(r));
  const mcp = await (await import('./mcp-doctor.js')).mcpDoctor(env);
  problems.push(...mcp.problems);
  const recentErrors = (await lastLogLines(env.home, 5)).filter((l) => / error: /.test(l));
  const main = agents.find((r) => r.agent === DEFAULT_AGENT)!;
  const switches = await (await import('./switch.js')).readSwitches(env);
  return { ok: problems.length === 0, agents, scopes: main.scopes, command: main.command, fired: main.fired, recentErrors, log: hookLogFile(env.home), switches, mcp, problems };
}
