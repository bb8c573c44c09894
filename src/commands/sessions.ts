// `wmem sessions`: thin glue over src/app/sessions.ts.
import { sessions } from '../app/sessions.js';
import { renderSessions } from '../views/reports.js';
import type { CommandResult, RunContext } from './run.js';

export async function run(_options: unknown, ctx: RunContext): Promise<CommandResult> {
  const result = await sessions(ctx);
  return { data: result, text: renderSessions(result) };
}
