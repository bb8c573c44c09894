// `wmem restore ARCHIVE`: puts what a compaction archived back into messages.jsonl.
import { resolveSession } from '../store/session.js';
import { restoreArchive } from '../history/restore.js';
import type { CommandResult, RunContext } from '../ui/run.js';

export async function run(_options: unknown, ctx: RunContext, args: unknown[]): Promise<CommandResult> {
  const session = await resolveSession(ctx);
  const result = await restoreArchive(session, String(args[0] ?? ''), { now: ctx.now, warn: ctx.warn });
  const what = result.restoredLines === null ? `${result.restoredBytes} bytes` : `${result.restoredLines} lines (${result.restoredBytes} bytes)`;
  const text = `Restored ${what} from ${result.archive} into messages.jsonl.`;
  return { data: result, text: ctx.quiet ? '' : text };
}
