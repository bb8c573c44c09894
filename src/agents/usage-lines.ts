// Pure: LineRules (transcript-file.ts) for the JSONL logs whose token use comes as one line per
// model call and whose compactions as one line each (GitHub Copilot CLI's events.jsonl, Qwen
// Code's chat file). The adapter says what a line is (`UsageLine`); this gives the same state read
// forward (as the log grows) or backward (the first time, from the end, stopping once nothing
// older can change it):
// - a call's usage is the context in use until the next one; it names the model and the window;
// - a compaction ends a window: no usage since (lastUsage null), the agent's own count of what is
//   left kept as `afterCompaction`; model and window from before it still hold until a call says.
import { parseJsonLine } from '../history/model/lines.js';
import type { UsageLines } from '../history/model/usage.js';
import type { UsageView } from '../memory/meter.js';
import type { LineRules } from './transcript-file.js';

export type UsageLine = { kind: 'usage'; tokens: number; window?: number; model?: string } | { kind: 'boundary'; id: string; after?: number } | undefined;

/** What one line is; `offset` names a compaction that carries no id of its own. */
export type UsageLineReader = (line: string, offset: number) => UsageLine;

export const EMPTY_USAGE: UsageView = { lastUsage: null };

/** Applies one line (at byte `offset`) read in file order. */
export function applyUsageLine(state: UsageView, event: UsageLine): UsageView {
  if (!event) return state;
  if (event.kind === 'boundary') {
    const next: UsageView = { lastUsage: null, boundary: event.id };
    if (state.model) next.model = state.model;
    if (state.window) next.window = state.window;
    if (event.after) next.afterCompaction = event.after;
    return next;
  }
  const { afterCompaction: _superseded, ...rest } = state;
  return { ...rest, lastUsage: event.tokens, ...(event.window ? { window: event.window } : {}), ...(event.model ? { model: event.model } : {}) };
}

/** Reads lines newest first; `step` returns true once nothing older can change the answer. */
class BackwardScan {
  private usage?: number;
  private window?: number;
  private model?: string;
  private boundary?: { id: string; after?: number };

  constructor(private readonly read: UsageLineReader) {}

  step(line: string, offset: number): boolean {
    const event = this.read(line, offset);
    if (!event) return false;
    if (event.kind === 'boundary') this.boundary ??= event;
    else {
      if (!this.boundary) this.usage ??= event.tokens;
      this.window ??= event.window;
      this.model ??= event.model;
    }
    return !!this.boundary && this.window !== undefined && this.model !== undefined;
  }

  result(): UsageView {
    const state: UsageView = { lastUsage: this.usage ?? null };
    if (this.boundary) state.boundary = this.boundary.id;
    if (this.model) state.model = this.model;
    if (this.window) state.window = this.window;
    if (this.usage === undefined && this.boundary?.after) state.afterCompaction = this.boundary.after;
    return state;
  }
}

export function usageLineRules(read: UsageLineReader): LineRules<UsageView> {
  return {
    empty: EMPTY_USAGE,
    forward: (state, line, offset) => applyUsageLine(state, read(line, offset)),
    backward: () => new BackwardScan(read),
    restore: ({ lastUsage, boundary, model, window, afterCompaction }) => {
      const state: UsageView = { lastUsage };
      if (boundary !== undefined) state.boundary = boundary;
      if (model !== undefined) state.model = model;
      if (window !== undefined) state.window = window;
      if (afterCompaction !== undefined) state.afterCompaction = afterCompaction;
      return state;
    },
  };
}

/** Forward read of a whole text (tests and small files). */
export function usageOfText(text: string, read: UsageLineReader): UsageView {
  let state = EMPTY_USAGE;
  let offset = 0;
  for (const line of text.split('\n')) {
    state = applyUsageLine(state, read(line, offset));
    offset += Buffer.byteLength(line, 'utf8') + 1;
  }
  return state;
}

/**
 * A reader for lines an agent's `UsageLines` knows: only lines holding one of its marks are parsed
 * (the rest cannot change the usage), and a compaction without an id of its own is named by its offset.
 */
export function markedUsageLines(rule: UsageLines): UsageLineReader {
  return (line, offset) => {
    if (!rule.marks.some((m) => line.includes(m))) return undefined;
    const event = rule.event(parseJsonLine(line));
    if (!event) return undefined;
    if (event.kind === 'boundary') return { kind: 'boundary', id: event.id ?? `@${offset}`, ...(event.after ? { after: event.after } : {}) };
    return { kind: 'usage', tokens: event.tokens, ...(event.window ? { window: event.window } : {}), ...(event.model ? { model: event.model } : {}) };
  };
}
