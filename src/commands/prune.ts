// `wmem prune`: thin glue over src/app/prune.ts: stdin to stdout, exactly.
import { prune, type PruneOptions } from '../app/prune.js';
import { readStdin, type CommandResult, type RunContext } from './run.js';

export async function run(options: Omit<PruneOptions, 'input'>, ctx: RunContext): Promise<CommandResult> {
  const result = await prune({ ...options, input: await readStdin(ctx.stdin) }, ctx);
  return { data: result, text: result.text, raw: true };
}
