// What wmem does at each moment of an agent's session (SPEC §10), the same for every agent: the
// adapter only supplies the protocol (its input, its answer, its transcript). session-start and
// prompt, here, answer with additional context; the others record (tool events, compaction, session
// end) and answer nothing. Every handler may throw: the hook driver turns any failure into a log
// line and silence. The moments that only record a tool call are hook-tool.ts's, the compaction's
// and the session end's hook-compaction.ts's (it shares the transcript helpers exported here), and
// where a moment's session is, hook-session.ts's: a tool call loads neither this module nor what it
// renders with.
import path from 'node:path';
import { readCurrent, writeCurrent, type Session } from '../store/session.js';
import type { AgentHook, HookInput, TranscriptCursor, TranscriptRead, UsageView } from '../agents/adapter.js';
import { updateHookState, type HookState } from '../store/hook-state.js';
import type { MemoryWhere } from '../render/context.js';
import type { Observed } from '../store/meter-sources.js';
import { cleanModelId } from '../store/meter-sources.js';
import { planResend, type MemoryCopy, type ResendPlan } from '../render/memory-resend.js';
import type { AppEnv } from './env.js';
import { checkTranscriptPath } from '../agents/transcript-path.js';
import { HookFailure, locateSession, type HookResult, type Moment } from './hook-session.js';

/** The usage as of this hook, and where the transcript read stopped (when there is a transcript). */
interface UsageRead {
  view: UsageView;
  cursor?: TranscriptRead['cursor'];
}

/**
 * The token use: from the agent's transcript, else from what its input reports. `required`: a
 * transcript that is missing although one was read before is a failure. One never read yet may
 * simply not be written: Claude Code creates it lazily, after the first prompt's hooks in a new
 * project (anthropics/claude-code#41310).
 */
export async function readUsage(moment: Moment, state: HookState, required: boolean, session?: Session): Promise<UsageRead | undefined> {
  // Reported usage is kept as the cursor too, so `wmem status` finds it through the adapter later.
  const fromInput = moment.input.usage ? passedUsage(moment.input.usage, moment.adapter, session) : undefined;
  return (await readTranscript(moment, state, required)) ?? fromInput;
}

async function readTranscript({ input, adapter }: Moment, state: HookState, required: boolean): Promise<UsageRead | undefined> {
  if (!input.transcriptPath || !adapter.transcript) return undefined;
  checkTranscriptPath(input.transcriptPath);
  try {
    return await adapter.transcript.read(input.transcriptPath, state.transcript);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' && (!required || !state.transcript)) return undefined;
    if (!required && code === 'EISDIR') return undefined;
    if (code === 'ENOENT') throw new HookFailure(`transcript ${input.transcriptPath} does not exist (it was read before)`);
    if (code === 'ENOTREG' || code === 'EISDIR') throw new HookFailure(`transcript_path ${JSON.stringify(input.transcriptPath)} is not a regular file`);
    throw err;
  }
}

/**
 * Token use the agent passed in the input (OpenCode): kept as the cursor, so `wmem status` finds
 * it later through the adapter's reader; the cursor names the session's conversation file.
 */
export function passedUsage(view: UsageView, adapter: AgentHook, session: Session | undefined): TranscriptRead {
  const file = session ? conversationFile(session, adapter) : '';
  return { cursor: { path: file, view } as TranscriptCursor, view, changed: true };
}

/** Where wmem keeps the conversation an agent passes in its input (no transcript file of its own). */
export function conversationFile(session: Session, adapter: AgentHook): string {
  return path.join(session.paths.stateDir, `${adapter.id.replace(/[^a-z0-9-]/g, '')}-transcript.jsonl`);
}

/** What the agent told this hook that the meter needs: its model, and the user's window. */
function rememberSettings(state: HookState, { input, options }: Moment): Observed {
  const model = cleanModelId(input.model);
  if (model) state.model = model;
  if (options.tokensMax) state.tokensMax = options.tokensMax;
  else delete state.tokensMax;
  return { model: state.model, tokensMax: state.tokensMax };
}

async function memoryPart(session: Session, env: AppEnv, observed?: Observed): Promise<{ memory: string; memoryDigest: string; memoryBlocks?: Record<string, string>; where: MemoryWhere }> {
  const { assembleContext } = await import('./context.js');
  const { memory, memoryDigest, memoryBlocks, where } = await assembleContext(session, env, { wantMeta: false, observed });
  return { memory, memoryDigest, memoryBlocks, where };
}

/** The record of the memory part the conversation now holds, and where it was given. */
function deliveryOf(copy: MemoryCopy, boundary: string | undefined, transcript: string | undefined): NonNullable<HookState['delivered']> {
  return { ...copy, ...(boundary ? { boundary } : {}), ...(transcript ? { transcript } : {}) };
}

/** The hook state file of this moment's agent, under the session's state lock. */
export function withState<T>(session: Session, { adapter }: Moment, fn: (state: HookState) => Promise<T>): Promise<T> {
  return updateHookState(session.paths.stateDir, fn, adapter.id);
}

/**
 * withState for a change made in memory alone (no await inside): a brief hold of state/.lock,
 * without the owner token's create, reads and unlink, its heartbeat or its exit listeners
 * (store/lock.ts; bench/README.md, cmp19). The compaction and end hooks make theirs so.
 */
export function changeState<T>(session: Session, { adapter }: Moment, change: (state: HookState) => T): Promise<T> {
  return updateHookState(session.paths.stateDir, async (state) => change(state), adapter.id, true);
}

/** The agent's answer carrying `text`, or none where the agent takes no context. */
function answer({ adapter, input }: Moment, text: string): unknown {
  return adapter.answer.answer(input, text);
}

/**
 * The copy a resumed conversation still holds: the one last given, unless a compaction removed
 * it since or the conversation is another transcript. Any other start is a conversation that
 * holds none.
 */
function heldAtStart(state: HookState, input: HookInput, boundary: string | undefined): MemoryCopy | undefined {
  const held = state.delivered;
  if (input.source !== 'resume' || !held || held.boundary !== boundary) return undefined;
  return held.transcript && input.transcriptPath && held.transcript !== input.transcriptPath ? undefined : held;
}

/**
 * The compaction's and the session end's moments (hook-compaction.ts), reached through this module:
 * a tool call's first stage leaves this module out (a stand-in), and a second stand-in there, for
 * hook-compaction.ts, cost every tool call ~25 page faults through the stage's code cache
 * (bench/README.md, the 2026-11-28 day's merged main).
 */
export const compactionMoments = () => import('./hook-compaction.js');

/** session-start: the session exists, is the project's current one, and gets the memory part. */
export async function sessionStart(moment: Moment): Promise<HookResult> {
  const { input, env } = moment;
  const { session } = await locateSession(moment);
  if ((await readCurrent(session.project.dir)) !== session.id) await writeCurrent(session.project.dir, session.id);
  if (moment.adapter.answer.memoryAtStart === false) return { session: session.id, note: `session ready (${input.source ?? 'no source'}); the memory part goes with the first prompt` };
  return withState(session, moment, async (state) => {
    const read = await readUsage(moment, state, false, session);
    if (read?.cursor) state.transcript = read.cursor;
    const boundary = read?.view.boundary;
    // After a compaction the boundary may reach the transcript after this hook: answer it ahead.
    state.answerNextBoundary = input.source === 'compact' && (boundary === undefined || boundary === state.answeredBoundary);
    if (boundary !== undefined) state.answeredBoundary = boundary;
    state.started = true;
    const part = await memoryPart(session, env, { ...rememberSettings(state, moment), usage: read?.view });
    const plan = planResend(part.memory, heldAtStart(state, input, boundary), part.where, { digest: part.memoryDigest, blocks: part.memoryBlocks });
    state.delivered = deliveryOf(plan.copy, boundary, input.transcriptPath);
    if (plan.kind === 'unchanged') {
      const { renderUnchangedPointer } = await import('../render/context.js');
      return { output: await handOver(moment, answer(moment, renderUnchangedPointer(part.where))), session: session.id, note: 'memory unchanged since the copy this conversation holds: pointer delivered (resume)' };
    }
    return { output: await handOver(moment, answer(moment, plan.text)), session: session.id, note: `${deliveredNote(plan)} (${input.source ?? 'no source'})` };
  });
}

/**
 * The answer written to the agent now, inside the state's lock, when the driver can write it
 * (options.deliver): the state saying the memory part was given is saved after the write, and not
 * at all when the write fails (the agent gone, its pipe closed, the hook killed before): the next
 * prompt then sends it again instead of believing the conversation holds it. No second lock and
 * no fsync: the state is written once, as before, only later. Undefined once written (the driver
 * prints nothing more), else the answer for the driver to print. A write that fd 1 (non-blocking,
 * full) could not take at once is awaited to its end, so the record never precedes the bytes.
 */
async function handOver({ options }: Moment, output: unknown): Promise<unknown> {
  if (!options.deliver || output === undefined) return output;
  try {
    await options.deliver(output);
  } catch (err) {
    throw new HookFailure(`the answer could not be written to stdout (${(err as NodeJS.ErrnoException)?.code ?? String(err)}): nothing recorded as delivered`);
  }
  return undefined;
}

function deliveredNote(plan: ResendPlan): string {
  if (plan.kind === 'changed') return `changed memory blocks delivered (${plan.changed.join(', ') || 'none'}${plan.gone.length ? `; now empty: ${plan.gone.join(', ')}` : ''})`;
  return plan.changed.length || plan.gone.length ? 'changed memory part delivered whole' : 'memory part delivered';
}

/** Room the line that introduces a memory part sent again takes (render/memory-resend.ts), paths included. */
const RESEND_LINE_ROOM = 1_200;

/**
 * prompt: the meta part; the memory part too on a first hook or after a compaction nobody
 * answered, and what changed of it since the copy the conversation holds (SPEC §14).
 */
export async function prompt(moment: Moment): Promise<HookResult> {
  const { input, env, adapter } = moment;
  const cap = adapter.answer.contextCap;
  const replaces = adapter.answer.memoryCopy === 'replaced';
  const { session, created } = await locateSession(moment);
  return withState(session, moment, async (state) => {
    const read = await readUsage(moment, state, true, session);
    if (read?.cursor) state.transcript = read.cursor;
    const usage: UsageView | undefined = read?.view;
    let wantMemory = created || !state.started;
    let why = 'first hook of the session';
    if (usage?.boundary !== undefined && usage.boundary !== state.answeredBoundary) {
      if (state.answerNextBoundary) state.answerNextBoundary = false;
      else if (!wantMemory) {
        wantMemory = true;
        why = 'a compaction no hook had answered';
      }
      state.answeredBoundary = usage.boundary;
    }
    const { assembleContext } = await import('./context.js');
    if (usage?.lastUsage) state.floor = Math.min(state.floor ?? Infinity, usage.lastUsage);
    const observed: Observed = { ...rememberSettings(state, moment), usage };
    const assemble = async (budget?: number) => assembleContext(session, env, { wantMeta: true, observed, ...(budget ? { budget } : {}) });
    const held = wantMemory ? undefined : state.delivered;
    let { memory, memoryDigest, memoryBlocks, metaText, meta, where } = await assemble();
    let plan = planResend(memory, held, where, { digest: memoryDigest, blocks: memoryBlocks });
    // An agent that swaps its copy gets the new part beside the meter; the others in the turn.
    const inTurn = (p: ResendPlan) => (p.kind === 'unchanged' || (replaces && !wantMemory) ? '' : p.text);
    let text = [inTurn(plan), metaText].filter(Boolean).join('\n');
    if (text.length > cap && inTurn(plan)) {
      // The memory part gives way so both fit under the cap (SPEC §4 budget rules).
      ({ memory, memoryDigest, memoryBlocks, metaText, meta, where } = await assemble(Math.max(200, cap - metaText.length - 1 - (held ? RESEND_LINE_ROOM : 0))));
      plan = planResend(memory, held, where, { whole: true, digest: memoryDigest, blocks: memoryBlocks });
      text = [inTurn(plan), metaText].filter(Boolean).join('\n');
    }
    const delivered = text.length <= cap && plan.kind !== 'unchanged';
    if (text.length > cap) text = metaText;
    if (delivered) state.delivered = deliveryOf(plan.copy, usage?.boundary, input.transcriptPath);
    // The copy held is current block by block under another part digest (an older build's record): it takes this one.
    else if (plan.kind === 'unchanged' && held && plan.copy !== held) state.delivered = { ...held, ...plan.copy };
    state.started = true;
    const replacement = delivered && replaces && !wantMemory ? memory : undefined;
    const sent = !delivered ? '' : wantMemory ? `, memory part too (${why})` : replacement ? ', memory part replaced (it changed)' : `, ${deliveredNote(plan)}`;
    return {
      output: await handOver(moment, adapter.answer.answer(input, text, replacement)),
      session: session.id,
      note: `meta part delivered (tokens_used ${meta.tokens_used}, ${meta.tokens_source}; tokens_max ${meta.tokens_max}, ${meta.tokens_max_source})${sent}`,
    };
  });
}
