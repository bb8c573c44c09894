// `wmem install AGENT` / `wmem uninstall AGENT`: thin glue over src/app/install.ts. --dry-run
// prints the file as it would be; otherwise a line on stderr says what changed.
import { install, uninstall, type InstallOptions } from '../app/install.js';
import type { CommandResult, RunContext } from './run.js';

type Flags = Omit<InstallOptions, 'agent'>;

export async function run(options: Flags & { mcp?: boolean }, ctx: RunContext, args: unknown[]): Promise<CommandResult> {
  if (options.mcp) return (await import('./mcp-install.js')).run(options, ctx, args);
  const result = await install({ ...options, agent: args[0] as string }, ctx);
  const { plan } = result;
  const data = { agent: result.agent, scope: result.scope, file: result.file, command: result.command, ...(result.tokensMax ? { tokensMax: result.tokensMax } : {}), changed: result.changed, events: plan.events, notes: plan.notes, dryRun: result.dryRun };
  if (result.dryRun) return { data: { ...data, settings: plan.preview }, text: plan.after };
  if (result.changed) ctx.warn(`installed wmem's hooks in ${result.file}: ${plan.events.join(', ')}`);
  else ctx.warn(`wmem's hooks are already installed in ${result.file}; nothing changed`);
  for (const note of plan.notes) ctx.warn(note);
  ctx.warn("check it with 'wmem doctor'");
  return { data, text: '' };
}

export async function runUninstall(options: Flags & { mcp?: boolean }, ctx: RunContext, args: unknown[]): Promise<CommandResult> {
  if (options.mcp) return (await import('./mcp-install.js')).runUninstall(options, ctx, args);
  const result = await uninstall({ ...options, agent: args[0] as string }, ctx);
  const { plan } = result;
  const removed = plan.removed ?? 0;
  const data = { agent: result.agent, scope: result.scope, file: result.file, changed: result.changed, removed, dryRun: result.dryRun };
  if (result.dryRun) return { data: { ...data, settings: plan.preview }, text: plan.after };
  if (plan.remove) ctx.warn(`removed wmem's plugin ${result.file}`);
  else ctx.warn(result.changed ? `removed ${removed} wmem hook${removed === 1 ? '' : 's'} from ${result.file}` : `no wmem hooks in ${result.file}; nothing changed`);
  for (const note of plan.notes) ctx.warn(note);
  return { data, text: '' };
}
