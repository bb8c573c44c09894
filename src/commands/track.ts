// `wmem track`: thin glue over src/app/track.ts (the event on stdin).
import { track } from '../app/track.js';
import { renderTrack } from '../views/reports.js';
import { readStdin, type CommandResult, type RunContext } from './run.js';

export async function run(_options: unknown, ctx: RunContext): Promise<CommandResult> {
  const { session, event, outcome } = await track({ readInput: () => readStdin(ctx.stdin, 'the tool event') }, ctx);
  if (event.todoSkipped) ctx.warn(`todo call skipped: ${event.todoSkipped}`);
  const data = { session, files: outcome.files, opened: outcome.opened ?? null, cleared: outcome.cleared, state: outcome.state };
  return { data, text: ctx.quiet ? '' : renderTrack(outcome) };
}
