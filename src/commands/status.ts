// `wmem status`: src/app/status.ts gathers the session's sizes, token use and pressure; this
// prints them.
import { sessionStatus } from '../app/status.js';
import { renderStatus } from '../views/memory.js';
import type { CommandResult, RunContext } from './run.js';

export async function run(options: { tokensUsed?: number; tokensMax?: number }, ctx: RunContext): Promise<CommandResult> {
  const result = await sessionStatus({ tokensUsed: options.tokensUsed, tokensMax: options.tokensMax }, ctx);
  for (const warning of result.warnings) ctx.warn(`note: ${warning}`);
  return { data: result.data, text: renderStatus(result, ctx.style) };
}
