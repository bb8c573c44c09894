// Pure: the context in use according to the agent's own transcript (docs/hooks.md). The last
// main-chain assistant usage (input + cache creation + cache read), sidechain and <synthetic>
// lines skipped, nothing from before the last compact_boundary. One API response split over
// several lines repeats its usage under one message.id: it counts once, as the latest response.
// The same state is reached reading forward (incrementally, as the transcript grows) or backward
// (the first time, from the end, stopping at the last compaction).
import { parseJsonLine } from '../../history/model/lines.js';
// A Claude Code transcript is read with every history format's rules, as before they moved into
// the agents' folders (Kimi's `_usage` lines included).
import { HISTORY_USAGE } from '../history-usage.js';

const usageEvent = HISTORY_USAGE.event;

export interface UsageState {
  /** Tokens of the last response since the last compaction, or null. */
  lastUsage: number | null;
  lastMessageId?: string;
  /** Identity of the last compaction boundary: its uuid, else `@<byte offset>`. */
  boundary?: string;
  /** The model of the last response since the last compaction. */
  model?: string;
  /** The window the agent reported with its last usage, if it reports one. */
  window?: number;
  /** The agent's count right after its last compaction, while no usage has come since. */
  afterCompaction?: number;
}

export const EMPTY_USAGE: UsageState = { lastUsage: null };

/** Cheap test before parsing: only lines that can carry usage or a compaction are parsed. */
function mayMatter(line: string): boolean {
  return line.includes('usage') || line.includes('compact') || line.includes('token_count');
}

function boundaryId(value: unknown, offset: number): string {
  const uuid = (value as { uuid?: unknown })?.uuid;
  return typeof uuid === 'string' && uuid ? uuid : `@${offset}`;
}

/** Applies one line (at byte `offset`) read in file order. */
export function applyForward(state: UsageState, line: string, offset: number): UsageState {
  if (!mayMatter(line)) return state;
  const value = parseJsonLine(line);
  const event = usageEvent(value);
  if (!event) return state;
  if (event.kind === 'boundary') return { lastUsage: null, boundary: boundaryId(value, offset), ...(event.after ? { afterCompaction: event.after } : {}) };
  const { afterCompaction: _superseded, ...rest } = state;
  return { ...rest, lastUsage: event.tokens, lastMessageId: event.messageId, ...modelOf(event) };
}

function modelOf(from: { model?: string; window?: number }): { model?: string; window?: number } {
  return { ...(from.model ? { model: from.model } : {}), ...(from.window ? { window: from.window } : {}) };
}

/**
 * Reads lines newest first. `step` returns true once nothing older can change the answer (the
 * last boundary is found); `result` is the same state a forward read of the whole file gives.
 */
export class BackwardScan {
  private usage: { tokens: number; messageId?: string; model?: string; window?: number } | undefined;
  private boundaryFound: string | undefined;
  private afterCompaction: number | undefined;

  step(line: string, offset: number): boolean {
    if (!mayMatter(line)) return false;
    // Once the last usage is known only a compaction matters: no need to parse older responses.
    if (this.usage && !line.includes('compact')) return false;
    const value = parseJsonLine(line);
    const event = usageEvent(value);
    if (!event) return false;
    if (event.kind === 'boundary') {
      this.boundaryFound = boundaryId(value, offset);
      if (!this.usage && event.after) this.afterCompaction = event.after;
      return true;
    }
    this.usage ??= { tokens: event.tokens, messageId: event.messageId, ...modelOf(event) };
    return false;
  }

  result(): UsageState {
    const state: UsageState = { lastUsage: this.usage?.tokens ?? null };
    if (this.usage?.messageId) state.lastMessageId = this.usage.messageId;
    if (this.boundaryFound) state.boundary = this.boundaryFound;
    if (this.afterCompaction) state.afterCompaction = this.afterCompaction;
    return { ...state, ...modelOf(this.usage ?? {}) };
  }
}

/** Claude Code's rules for the incremental reader (transcript-file.ts). */
export const CLAUDE_LINES = {
  empty: EMPTY_USAGE,
  forward: applyForward,
  backward: () => new BackwardScan(),
  restore: ({ lastUsage, lastMessageId, boundary, model, window, afterCompaction }: UsageState): UsageState => ({ lastUsage, lastMessageId, boundary, model, window, afterCompaction }),
};

/** Forward read of a whole text (tests and small files). */
export function usageOfText(text: string): UsageState {
  let state: UsageState = EMPTY_USAGE;
  let offset = 0;
  for (const line of text.split('\n')) {
    state = applyForward(state, line, offset);
    offset += Buffer.byteLength(line, 'utf8') + 1;
  }
  return state;
}
