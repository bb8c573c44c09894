// Pure: the context in use according to a Codex rollout (docs/hooks.md), line by line. Settled
// against Codex 0.169.0 and a mock that reports usage (test/agents/codex.test.ts):
// - the context in use is `last_token_usage.total_tokens` of the last `event_msg` token_count
//   (input, cached input counted inside it, plus output): the figure Codex itself compares with
//   its auto-compact limit; `info.model_context_window` is the window (a turn's `task_started`
//   names it already, before any response);
// - a `compacted` line ends a window (its `window_id` names the compaction): usage before it is
//   stale. Right after it Codex writes a token_count whose input and output are 0 and whose
//   total is its own count of what the compaction left: kept as `afterCompaction`;
// - `turn_context` lines name the model.
// The same state is reached reading forward (as the rollout grows) or backward (the first time,
// from the end, stopping at the last compaction).
import { parseJsonLine } from '../../history/model/lines.js';
import type { CommandOutcome } from './protocol.js';
import { isObject } from '../../ui/json.js';

export interface RolloutState {
  lastUsage: number | null;
  boundary?: string;
  model?: string;
  window?: number;
  afterCompaction?: number;
}

export const EMPTY_ROLLOUT: RolloutState = { lastUsage: null };

type LineEvent =
  | { kind: 'usage'; tokens: number; window?: number }
  | { kind: 'estimate'; tokens: number; window?: number }
  | { kind: 'window'; window: number }
  | { kind: 'boundary'; id?: string }
  | { kind: 'model'; model: string }
  | undefined;

function num(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : 0;
}

/** Cheap test before parsing: only these lines can change the state. */
function mayMatter(line: string): boolean {
  return line.includes('token_count') || line.includes('"compacted"') || line.includes('turn_context') || line.includes('task_started');
}

/** What one parsed rollout line says about the context. */
export function rolloutEvent(value: unknown): LineEvent {
  if (!isObject(value) || !isObject(value.payload)) return undefined;
  const payload = value.payload;
  if (value.type === 'compacted') return { kind: 'boundary', id: typeof payload.window_id === 'string' && payload.window_id ? payload.window_id : undefined };
  if (value.type === 'turn_context') return typeof payload.model === 'string' && payload.model ? { kind: 'model', model: payload.model } : undefined;
  if (value.type !== 'event_msg') return undefined;
  // A turn starts with the window it runs in: known before the first response reports usage.
  if (payload.type === 'task_started') return num(payload.model_context_window) ? { kind: 'window', window: num(payload.model_context_window) } : undefined;
  if (payload.type !== 'token_count' || !isObject(payload.info)) return undefined;
  const last = payload.info.last_token_usage;
  if (!isObject(last)) return undefined;
  const input = num(last.input_tokens);
  const output = num(last.output_tokens);
  const total = num(last.total_tokens);
  const window = num(payload.info.model_context_window);
  if (input || output) return { kind: 'usage', tokens: total || input + output, ...(window ? { window } : {}) };
  return total ? { kind: 'estimate', tokens: total, ...(window ? { window } : {}) } : window ? { kind: 'window', window } : undefined;
}

function boundaryId(id: string | undefined, offset: number): string {
  return id ?? `@${offset}`;
}

/** Applies one line (at byte `offset`) read in file order. */
export function applyRolloutLine(state: RolloutState, line: string, offset: number): RolloutState {
  if (!mayMatter(line)) return state;
  const event = rolloutEvent(parseJsonLine(line));
  if (!event) return state;
  switch (event.kind) {
    case 'boundary':
      // Codex writes the turn context again right after a compaction: the model comes back there.
      return { lastUsage: null, boundary: boundaryId(event.id, offset) };
    case 'model':
      return { ...state, model: event.model };
    case 'window':
      return { ...state, window: event.window };
    case 'estimate': {
      const next = event.window ? { ...state, window: event.window } : state;
      return state.lastUsage === null && state.boundary ? { ...next, afterCompaction: event.tokens } : next;
    }
    case 'usage': {
      const { afterCompaction: _superseded, ...rest } = state;
      return { ...rest, lastUsage: event.tokens, ...(event.window ? { window: event.window } : {}) };
    }
  }
}

/** Reads lines newest first; `step` returns true once nothing older can change the answer. */
export class RolloutBackwardScan {
  private usage: number | undefined;
  private window: number | undefined;
  private estimate: number | undefined;
  private model: string | undefined;
  private boundary: string | undefined;

  step(line: string, offset: number): boolean {
    if (!mayMatter(line)) return false;
    const event = rolloutEvent(parseJsonLine(line));
    if (!event) return false;
    if (event.kind === 'boundary') {
      this.boundary = boundaryId(event.id, offset);
      return true;
    }
    if (event.kind === 'model') this.model ??= event.model;
    else {
      this.window ??= event.window;
      if (event.kind === 'usage') this.usage ??= event.tokens;
      else if (event.kind === 'estimate' && !this.usage) this.estimate ??= event.tokens;
    }
    return false;
  }

  result(): RolloutState {
    const state: RolloutState = { lastUsage: this.usage ?? null };
    if (this.boundary) state.boundary = this.boundary;
    if (this.model) state.model = this.model;
    // A window reported with an older usage still holds when the last one has none (as forward).
    if (this.window) state.window = this.window;
    if (!this.usage && this.estimate && this.boundary) state.afterCompaction = this.estimate;
    return state;
  }
}

/** Forward read of a whole text (tests and small files). */
export function rolloutUsageOfText(text: string): RolloutState {
  let state = EMPTY_ROLLOUT;
  let offset = 0;
  for (const line of text.split('\n')) {
    state = applyRolloutLine(state, line, offset);
    offset += Buffer.byteLength(line, 'utf8') + 1;
  }
  return state;
}

/** The finished command `callId` (an item_completed CommandExecution line), if this line is it. */
export function commandOutcomeOf(line: string, callId: string): CommandOutcome | undefined {
  if (!line.includes(callId) || !line.includes('CommandExecution')) return undefined;
  const value = parseJsonLine(line);
  if (!isObject(value) || value.type !== 'event_msg' || !isObject(value.payload) || value.payload.type !== 'item_completed') return undefined;
  const item = value.payload.item;
  if (!isObject(item) || item.type !== 'CommandExecution' || item.id !== callId) return undefined;
  const outcome: CommandOutcome = {};
  if (typeof item.exit_code === 'number' && Number.isInteger(item.exit_code)) outcome.exitCode = item.exit_code;
  if (typeof item.status === 'string') outcome.status = item.status;
  if (typeof item.aggregated_output === 'string') outcome.output = item.aggregated_output;
  return outcome;
}

/** Codex's preamble before the model's summary in a `compacted` line's message. */
const SUMMARY_PREAMBLE = /^[\s\S]*?use the information in this summary to assist with your own analysis:\s*/;

/** The summary a `compacted` line holds (Codex's preamble dropped), if this line is one. */
export function compactionSummaryOf(line: string): string | undefined {
  if (!line.includes('"compacted"')) return undefined;
  const value = parseJsonLine(line);
  if (!isObject(value) || value.type !== 'compacted' || !isObject(value.payload) || typeof value.payload.message !== 'string') return undefined;
  return value.payload.message.replace(SUMMARY_PREAMBLE, '').trim() || undefined;
}
