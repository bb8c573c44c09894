// `wmem track`: one tool event (the generic JSON shape, or Claude Code's PostToolUse input) into
// the session's hot state: active files, open errors, the todo list.
import { resolveSession } from '../store/session.js';
import { jsonBreak, usageError } from '../ui/errors.js';
import type { ToolEvent } from '../memory/hot-state.js';
import type { AppEnv } from './env.js';

export interface TrackOptions {
  /** Reads the event as JSON text (stdin): called once the session is known. */
  readInput: () => Promise<string>;
}

export type TrackOutcome = Awaited<ReturnType<typeof import('../store/hot-state.js').trackToolEvent>>;

export interface TrackResult {
  session: string;
  event: ToolEvent;
  outcome: TrackOutcome;
}

const EXAMPLE = `pipe one JSON object, e.g. {"tool":"edit","files":["src/a.ts"],"exit_code":0}`;

export async function track(options: TrackOptions, env: AppEnv): Promise<TrackResult> {
  const session = await resolveSession(env);
  const input = await options.readInput();
  if (!input.trim()) throw usageError('no tool event on standard input', EXAMPLE);
  let raw: unknown;
  try {
    raw = JSON.parse(input);
  } catch (err) {
    throw usageError(`the tool event is not valid JSON (${jsonBreak(err, input)})`, EXAMPLE);
  }
  const { toolEventFromJson } = await import('../memory/hot-state.js');
  const event = toolEventFromJson(raw);
  if (!event) throw usageError('the tool event must be a JSON object', 'e.g. {"tool":"bash","command":"npx tsc","exit_code":2,"output":"..."}');
  if (event.files && event.files.some((f) => typeof f !== 'string')) throw usageError('"files" must be a list of paths');
  const { trackToolEvent } = await import('../store/hot-state.js');
  const outcome = await trackToolEvent(session, event, env.now());
  return { session: session.id, event, outcome };
}
