// `wmem install AGENT --mcp` / `wmem uninstall AGENT --mcp`: registers `wmem mcp` in the agent's
// own MCP config (src/agents/mcp-register.ts plans the text; this reads, locks and writes), only when
// something changes. A file the planner cannot parse is refused (exit 2) and left untouched.
import { existsSync, realpathSync } from 'node:fs';
import path from 'node:path';
import type { ConfigPlan } from '../agents/adapter.js';
import { MCP_TARGETS, mcpTarget, type McpScope, type McpTarget, type ServerCommand } from '../agents/mcp-register.js';
import { usageError } from '../ui/errors.js';
import type { AppEnv } from './env.js';
import { applyConfigPlan } from './install.js';

export interface McpInstallOptions {
  agent: string;
  scope?: string;
  dryRun?: boolean;
  /** The --home given on the command line: the server is started with it too. */
  home?: string;
  /** The wmem entry script that runs now (process.argv[1]). */
  bin?: string;
  /** The node that runs now (process.execPath). */
  node: string;
}

export interface McpInstallResult {
  agent: string;
  displayName: string;
  scope: McpScope;
  file: string;
  server?: ServerCommand;
  changed: boolean;
  dryRun: boolean;
  plan: ConfigPlan;
}

export function mcpTargetNamed(name: unknown): McpTarget {
  const target = typeof name === 'string' ? mcpTarget(name) : undefined;
  if (target) return target;
  throw usageError(`cannot register wmem's MCP server with ${JSON.stringify(name)}`, `known agents: ${MCP_TARGETS.map((t) => t.id).join(', ')}`);
}

export function mcpScopeOf(target: McpTarget, scope: string | undefined): McpScope {
  const wanted = (scope ?? target.defaultScope) as McpScope;
  if (target.scopes.includes(wanted)) return wanted;
  throw usageError(`${target.displayName} has no ${JSON.stringify(scope)} scope for MCP servers`, `use --scope ${target.scopes.join(', --scope ')}`);
}

/**
 * How an agent starts this wmem's server: `wmem mcp` when `wmem` on PATH is this installation,
 * else the absolute node and entry script (an agent's PATH may differ from the shell's).
 */
export function mcpServerCommand(options: { env: NodeJS.ProcessEnv; bin?: string; node: string; home?: string }): ServerCommand {
  const home = options.home ? ['--home', path.resolve(options.home)] : [];
  const bin = options.bin ? safeRealpath(options.bin) : undefined;
  if (!bin) return { command: 'wmem', args: ['mcp', ...home] };
  for (const dir of (options.env.PATH ?? '').split(path.delimiter)) {
    const candidate = dir && path.join(dir, 'wmem');
    if (candidate && existsSync(candidate) && safeRealpath(candidate) === bin) return { command: 'wmem', args: ['mcp', ...home] };
  }
  return { command: options.node, args: [bin, 'mcp', ...home] };
}

function safeRealpath(file: string): string | undefined {
  try {
    return realpathSync(file);
  } catch {
    return undefined;
  }
}

export async function installMcp(options: McpInstallOptions, env: AppEnv): Promise<McpInstallResult> {
  const target = mcpTargetNamed(options.agent);
  const scope = mcpScopeOf(target, options.scope);
  const file = target.file(scope, env);
  const server = mcpServerCommand({ env: env.env, bin: options.bin, node: options.node, home: options.home });
  const dryRun = Boolean(options.dryRun);
  const plan = await applyConfigPlan(env, file, dryRun, (text) => target.planInstall(file, text, server));
  return { agent: target.id, displayName: target.displayName, scope, file, server, changed: plan.changed, dryRun, plan };
}

export async function uninstallMcp(options: McpInstallOptions, env: AppEnv): Promise<McpInstallResult> {
  const target = mcpTargetNamed(options.agent);
  const scope = mcpScopeOf(target, options.scope);
  const file = target.file(scope, env);
  const dryRun = Boolean(options.dryRun);
  const plan = await applyConfigPlan(env, file, dryRun, (text) => target.planUninstall(file, text));
  return { agent: target.id, displayName: target.displayName, scope, file, changed: plan.changed, dryRun, plan };
}
