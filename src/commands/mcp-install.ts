// `wmem install AGENT --mcp` / `wmem uninstall AGENT --mcp`: thin glue over
// src/app/mcp-install.ts. --dry-run prints the file as it would be; otherwise a line on stderr
// says what changed.
import { installMcp, uninstallMcp, type McpInstallOptions } from '../app/mcp-install.js';
import { usageError } from '../ui/errors.js';
import type { CommandResult, RunContext } from './run.js';

type Flags = Omit<McpInstallOptions, 'agent' | 'bin' | 'node'>;

export async function run(options: Flags & { tokensMax?: number }, ctx: RunContext, args: unknown[]): Promise<CommandResult> {
  if (options.tokensMax !== undefined) throw usageError('--tokens-max is for the hooks, not for --mcp', "run 'wmem install AGENT --tokens-max N' for the hooks, and --mcp without it");
  const result = await installMcp({ ...options, agent: args[0] as string, bin: process.argv[1], node: process.execPath }, ctx);
  const data = { agent: result.agent, scope: result.scope, file: result.file, mcp: true, server: result.server, changed: result.changed, dryRun: result.dryRun };
  if (result.dryRun) return { data, text: result.plan.after };
  const line = [result.server!.command, ...result.server!.args].join(' ');
  ctx.warn(result.changed ? `registered the wmem MCP server with ${result.displayName} in ${result.file}: ${line}` : `the wmem MCP server is already registered in ${result.file}; nothing changed`);
  return { data, text: '' };
}

export async function runUninstall(options: Flags, ctx: RunContext, args: unknown[]): Promise<CommandResult> {
  const result = await uninstallMcp({ ...options, agent: args[0] as string, node: process.execPath }, ctx);
  const data = { agent: result.agent, scope: result.scope, file: result.file, mcp: true, changed: result.changed, removed: result.plan.removed ?? 0, dryRun: result.dryRun };
  if (result.dryRun) return { data, text: result.plan.after };
  ctx.warn(result.changed ? `removed the wmem MCP server from ${result.file}` : `no wmem MCP server in ${result.file}; nothing changed`);
  return { data, text: '' };
}
