// `wmem rm SESSION`: thin glue over src/app/rm.ts; asks on a terminal, else needs --yes.
import { removeSession } from '../app/rm.js';
import type { CommandResult, RunContext } from './run.js';

export interface RmOptions {
  yes?: boolean;
}

async function ask(question: string, ctx: RunContext): Promise<boolean> {
  const { createInterface } = await import('node:readline/promises');
  const rl = createInterface({ input: ctx.stdin, output: process.stderr });
  try {
    return /^y(es)?$/i.test((await rl.question(question)).trim());
  } finally {
    rl.close();
  }
}

export async function run(options: RmOptions, ctx: RunContext, args: unknown[]): Promise<CommandResult> {
  const confirm = !options.yes && ctx.stdin.isTTY ? (question: string) => ask(question, ctx) : undefined;
  const result = await removeSession({ id: String(args[0] ?? ''), yes: options.yes, confirm }, ctx);
  ctx.warn(result.link ? `removed the link ${result.path}; what it points to was left alone` : `deleted session ${result.id} (${result.files} files)`);
  return { data: result, text: '' };
}
