// `wmem doctor`: thin glue over src/app/doctor.ts. Exits 1 when something needs fixing.
import { doctor } from '../app/doctor.js';
import { renderDoctor } from '../views/doctor.js';
import type { CommandResult, RunContext } from './run.js';

export async function run(_options: unknown, ctx: RunContext): Promise<CommandResult> {
  const result = await doctor(ctx);
  return { data: result, text: renderDoctor(result, ctx.now()), exitCode: result.ok ? 0 : 1 };
}
