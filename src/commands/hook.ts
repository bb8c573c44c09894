// `wmem hook [--agent ID] EVENT`: answers an agent's hook (its JSON on stdin → its JSON on
// stdout) through the hook driver (src/app/hook.ts). Whatever goes wrong, it exits 0 with nothing
// on stdout (exit 2 would erase the user's prompt); the driver logs the error.
import { hook, type HookOptions } from '../app/hook.js';
import { readInputText, type CommandResult, type RunContext } from './run.js';

export type { HookOptions };

const SILENT: CommandResult = { data: null, text: '' };

export async function run(options: HookOptions & { agent?: string }, ctx: RunContext, args: unknown[]): Promise<CommandResult> {
  // The agent's protocol is the one output format: --json would print `null` on a silent answer.
  ctx.json = false;
  const write = ctx.writeStdout;
  // The moments that record what they gave write it themselves, before the record (hook-moments.ts).
  const deliver = write && ((output: unknown) => write(JSON.stringify(output) + '\n'));
  const answer = await hook({ ...options, event: String(args[0] ?? ''), readInput: () => readInputText(ctx, 'hook input'), deliver }, ctx);
  if (answer.output === undefined) return SILENT;
  return { data: answer.output, text: JSON.stringify(answer.output) };
}
