// `wmem init`: thin glue over src/app/init.ts. Prints the session id and its folder.
import { init, type InitOptions } from '../app/init.js';
import type { CommandResult, RunContext } from './run.js';

export type { InitOptions, InitResult } from '../app/init.js';

export async function run(options: InitOptions, ctx: RunContext): Promise<CommandResult> {
  const { notices, ...data } = await init(options, ctx);
  for (const notice of notices) ctx.warn(notice);
  return { data, text: `${data.id}\n${data.path}` };
}
