// The moments that only record (SPEC §10): a tool call's event into the session's hot state, a
// subagent's or side chain's moment, which gets no session of its own, and an event wmem
// ignores. Every tool call of every agent runs this (through dist/fast/first-tool*.cjs), without
// the moments that answer with context (hook-moments.ts) or what they render with.
import path from 'node:path';
import { assertOn, locateSession, sessionExists, warmContext, type HookResult, type Moment } from './hook-session.js';

/**
 * Any moment of a subagent or a side chain: it never starts a session nor gets a memory part (its
 * parent's conversation holds the memory). Its tool calls count for the session it belongs to,
 * when that session exists.
 */
export async function subagent(moment: Moment): Promise<HookResult> {
  const { input } = moment;
  if ((input.moment === 'tool-done' || input.moment === 'tool-failed') && input.sessionId && (await sessionExists(moment))) {
    const result = await toolUse(moment);
    return { ...result, note: `${result.note} (a subagent's tool call)` };
  }
  await assertOn(moment);
  return { note: `${input.event} from a subagent or side chain: no session of its own, no memory part` };
}

/** An event wmem ignores: nothing to do, and in a project that is off, nothing recorded either. */
export async function ignored(moment: Moment): Promise<HookResult> {
  await assertOn(moment);
  return { note: `${moment.input.event}: nothing to do` };
}

/** tool-done / tool-failed: the event into hot state, as `wmem track` would. */
export async function toolUse(moment: Moment): Promise<HookResult> {
  const { input, env, adapter } = moment;
  const { session } = await locateSession(moment);
  const event = await adapter.toolEvent(input, session.project.cwd);
  const { trackTool } = await import('./hook-work.js');
  const note = await trackTool(session, event, env.now());
  // The agent edited its overview with its own file tools: re-render now rather than on the next prompt.
  const edited = input.tool?.input?.file_path ?? input.tool?.input?.path;
  if (input.moment === 'tool-done' && typeof edited === 'string' && path.resolve(session.project.cwd, edited) === session.paths.overview) await warmContext(session, env);
  return { session: session.id, note };
}
