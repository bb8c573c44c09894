// `wmem restore ARCHIVE`: thin glue over src/app/restore.ts.
import { restore } from '../app/restore.js';
import type { CommandResult, RunContext } from './run.js';

export async function run(_options: unknown, ctx: RunContext, args: unknown[]): Promise<CommandResult> {
  const result = await restore({ archive: String(args[0] ?? '') }, ctx);
  const what = result.restoredLines === null ? `${result.restoredBytes} bytes` : `${result.restoredLines} lines (${result.restoredBytes} bytes)`;
  const text = `Restored ${what} from ${result.archive} into messages.jsonl.`;
  return { data: result, text: ctx.quiet ? '' : text };
}
