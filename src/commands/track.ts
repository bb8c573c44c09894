// `wmem track`: reads one tool event (JSON on stdin: the generic shape or Claude Code's
// PostToolUse/PostToolUseFailure input) into the session's hot state.
import { resolveSession } from '../store/session.js';
import { usageError } from '../ui/errors.js';
import { readStdin, type CommandResult, type RunContext } from '../ui/run.js';

export async function run(_options: unknown, ctx: RunContext): Promise<CommandResult> {
  const session = await resolveSession(ctx);
  const input = await readStdin(ctx.stdin, 'the tool event');
  if (!input.trim()) throw usageError('no tool event on standard input', `pipe one JSON object, e.g. {"tool":"edit","files":["src/a.ts"],"exit_code":0}`);
  let raw: unknown;
  try {
    raw = JSON.parse(input);
  } catch (err) {
    throw usageError(`the tool event is not valid JSON: ${(err as Error).message}`, `pipe one JSON object, e.g. {"tool":"edit","files":["src/a.ts"],"exit_code":0}`);
  }
  const { toolEventFromJson } = await import('../memory/hot-state.js');
  const event = toolEventFromJson(raw);
  if (!event) throw usageError('the tool event must be a JSON object', 'e.g. {"tool":"bash","command":"npx tsc","exit_code":2,"output":"..."}');
  if (event.files && event.files.some((f) => typeof f !== 'string')) throw usageError('"files" must be a list of paths');
  const { trackToolEvent } = await import('../store/hot-state.js');
  const outcome = await trackToolEvent(session, event, ctx.now());
  const lines = [
    ...(outcome.files.length ? [`active: ${outcome.files.join(', ')}`] : []),
    ...(outcome.opened ? [`open ${outcome.opened.category} error #${outcome.opened.fingerprint}: ${outcome.opened.summary}`] : []),
    ...outcome.cleared.map((e) => `cleared ${e.category} error #${e.fingerprint}`),
    ...(outcome.todosChanged ? [`todo list: ${outcome.state.todos?.length ?? 0} items`] : []),
  ];
  if (event.todoSkipped) ctx.warn(`todo call skipped: ${event.todoSkipped}`);
  const data = { session: session.id, files: outcome.files, opened: outcome.opened ?? null, cleared: outcome.cleared, state: outcome.state };
  return { data, text: ctx.quiet ? '' : lines.join('\n') || 'nothing to track' };
}
