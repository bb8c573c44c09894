// The hook driver: `wmem hook [--agent ID] EVENT` for any agent. The adapter parses the agent's
// input and names the moment; one set of moment handlers (hook-moments.ts for the session start
// and the prompt, hook-compaction.ts for the compaction and the session end, hook-tool.ts for the
// moments that only record: tool calls, subagents, events wmem ignores) does the work; the
// adapter shapes the answer. A hook never breaks the agent: whatever goes wrong, the result is
// silence (no output) and the error goes to <home>/logs/hooks.log.
import { logHook, recordFired } from '../agents/hook-log.js';
import { HookInputError, type AgentHook, type HookInput } from '../agents/adapter.js';
import { DEFAULT_AGENT, knownAgents, loadAgentHook } from '../agents/lookup.js';
import type { AppEnv } from './env.js';
import { disabledByEnv } from '../store/switch.js';
import { isoTime } from '../ui/time.js';
import type { HookOptions, HookResult, Moment } from './hook-session.js';

export type { HookOptions };

export interface HookRequest extends HookOptions {
  /** The adapter id or alias (`--agent`); default claude. */
  agent?: string;
  /** The event as named on the command line. */
  event: string;
  /** Reads the agent's input (stdin): called only once the event is known. */
  readInput: () => Promise<string>;
}

export interface HookAnswer {
  /** The JSON to print, or undefined: print nothing. */
  output?: unknown;
  /** What happened (for tests and logs). */
  ok: boolean;
  note: string;
}

/**
 * The error a module left out of the hook's first stage throws when it is loaded (the build's
 * stand-in, src/entries/build-first-hook.mjs): the first stage then hands the hook to the full path.
 */
export const FIRST_STAGE_MISS = 'FirstStageMiss';

/** Failures wmem reports itself (bad input, missing files); anything else also logs where it happened. */
const EXPECTED = new Set(['HookInputError', 'HookFailure', 'WmemError']);

async function handle(moment: Moment): Promise<HookResult> {
  // A tool call (every call of every agent) loads the recording moments alone, never the ones
  // that render context (the first stage of a tool call leaves those out: build-first-hook.mjs).
  const { moment: kind, subagent } = moment.input;
  if (subagent || kind === 'tool-done' || kind === 'tool-failed' || kind === 'ignore') {
    const recording = await import('./hook-tool.js');
    if (subagent) return recording.subagent(moment);
    return kind === 'ignore' ? recording.ignored(moment) : recording.toolUse(moment);
  }
  // A prompt or a start loads the moments that answer with context alone, never the compaction's
  // and the session end's (the prompts' and starts' first stages leave those out).
  const moments = await import('./hook-moments.js');
  if (kind === 'session-start' || kind === 'prompt') return kind === 'prompt' ? moments.prompt(moment) : moments.sessionStart(moment);
  const compaction = await moments.compactionMoments();
  switch (kind) {
    case 'before-compact':
      return compaction.beforeCompact(moment);
    case 'after-compact':
      return compaction.afterCompact(moment);
    case 'session-end':
      return compaction.sessionEnd(moment);
  }
}

/**
 * Where the last firing of an event is recorded: Claude Code's under the bare event name (as
 * before adapters existed), other agents' as `<id>-<Event>`.
 */
export function firedKey(adapter: AgentHook | undefined, event: string): string {
  return !adapter || adapter.id === DEFAULT_AGENT ? event : `${adapter.id}-${event}`;
}

export async function hook(request: HookRequest, env: AppEnv): Promise<HookAnswer> {
  // Only the hook part of the agent served is loaded (agents/lookup.ts), not all of them.
  return hookWith(await loadAgentHook(request.agent ?? DEFAULT_AGENT), request, env);
}

/** The driver for one adapter (undefined: the agent asked for is unknown, which is logged). */
export async function hookWith(adapter: AgentHook | undefined, request: HookRequest, env: AppEnv): Promise<HookAnswer> {
  // Switched off for the whole environment: nothing read into memory, nothing written, no answer.
  // The input is still drained, so that the agent never writes into a closed pipe.
  if (disabledByEnv(env.env)) {
    await request.readInput().catch(() => '');
    return { ok: true, note: 'WMEM_DISABLED is set: nothing done' };
  }
  const started = Date.now();
  const known = adapter?.eventFor(request.event);
  const eventName = known?.name ?? (request.event.replace(/[^A-Za-z0-9_-]/g, '').slice(0, 40) || 'unknown');
  const key = firedKey(adapter, eventName);
  let session: string | undefined;
  try {
    if (!adapter) throw new HookInputError(`unknown agent ${JSON.stringify(request.agent)} (wmem knows ${knownAgents()})`);
    if (!known) throw new HookInputError(`unsupported hook event ${JSON.stringify(request.event)} (${answeredEvents(adapter)})`);
    let input: HookInput = adapter.parseInput(await request.readInput(), known, env.env);
    if (adapter.completeInput) input = await adapter.completeInput(input);
    session = input.sessionId;
    const result = await handle({ adapter, input, env, options: { cwd: request.cwd, tokensMax: request.tokensMax, deliver: request.deliver } });
    await recordFired(env.home, { event: key, at: isoTime(env.now()), ok: true, session: result.session, ms: Date.now() - started, note: result.note });
    return { output: result.output, ok: true, note: result.note };
  } catch (err) {
    // The hook's first stage lacks a module this hook needs (entries/first-hook.ts): it runs the
    // whole hook again on the full path, so nothing is logged or recorded here.
    if ((err as Error)?.name === FIRST_STAGE_MISS) throw err;
    // `wmem off` in this project (found where the moment locates its session): silence, nothing written.
    if ((err as Error)?.name === 'SwitchedOff') return { ok: true, note: (err as Error).message };
    const message = (err as Error)?.message ?? String(err);
    const unexpected = !EXPECTED.has((err as Error)?.name);
    await logHook(env.home, env.now(), key, 'error', unexpected ? `${message} ${(err as Error)?.stack?.split('\n').slice(1, 3).join(' ') ?? ''}` : message, session);
    if (known) await recordFired(env.home, { event: key, at: isoTime(env.now()), ok: false, session, ms: Date.now() - started, note: message });
    return { ok: false, note: message };
  }
}

/** What an unsupported event's error names: the events wmem answers, or that the agent has none. */
function answeredEvents(adapter: { id: string; events: readonly { name: string }[] }): string {
  return adapter.events.length ? `wmem answers ${adapter.events.map((e) => e.name).join(', ')}` : `${adapter.id} has no hooks: it reaches wmem through 'wmem mcp'`;
}
