// Pure: the context in use according to the GitHub Copilot CLI's session log,
// `<COPILOT_HOME>/session-state/<id>/events.jsonl` (docs/hooks.md), line by line. Settled against
// Copilot 1.0.102 and a Chat Completions mock (test/agents/copilot.test.ts):
// - each model call writes a `session.usage_record` whose `data.usage.inputTokens` is the API's
//   prompt tokens (cached ones included) and `maxPromptTokens` the prompt limit Copilot compacts
//   against (64,000 for gpt-4.1). The context in use is the last call's inputTokens: the figure
//   Copilot compares with that limit; `maxPromptTokens` is the window;
// - a `session.compaction_complete` with `success: true` ends a window (its compactionAttemptId
//   names the compaction); its `postCompactionTokens` is Copilot's own count of what is left.
//   The summary call's usage is inside that line, not a usage_record of its own.
// The same state is reached reading forward (as the log grows) or backward (the first time, from
// the end, stopping at the last compaction).
import { parseJsonLine } from '../../history/lines.js';
import type { UsageView } from '../adapter.js';

export interface CopilotUsage extends UsageView {
  lastUsage: number | null;
}

export const EMPTY_USAGE: CopilotUsage = { lastUsage: null };

type LineEvent = { kind: 'usage'; tokens: number; window?: number; model?: string } | { kind: 'boundary'; id: string; after?: number } | undefined;

function num(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : 0;
}

function isObject(value: unknown): value is Record<string, any> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** What one events.jsonl line says about the context (`offset` names a compaction without an id). */
export function copilotLineEvent(line: string, offset: number): LineEvent {
  if (!line.includes('"session.usage_record"') && !line.includes('"session.compaction_complete"')) return undefined;
  const value = parseJsonLine(line);
  if (!isObject(value) || !isObject(value.data)) return undefined;
  const data = value.data;
  if (value.type === 'session.compaction_complete') {
    if (data.success !== true) return undefined;
    const id = typeof data.compactionAttemptId === 'string' && data.compactionAttemptId ? data.compactionAttemptId : `@${offset}`;
    return { kind: 'boundary', id, ...(num(data.postCompactionTokens) ? { after: num(data.postCompactionTokens) } : {}) };
  }
  if (value.type !== 'session.usage_record' || !isObject(data.usage)) return undefined;
  const tokens = num(data.usage.inputTokens);
  if (!tokens) return undefined;
  const window = num(data.usage.maxPromptTokens);
  const model = typeof data.usage.model === 'string' && data.usage.model ? data.usage.model : undefined;
  return { kind: 'usage', tokens, ...(window ? { window } : {}), ...(model ? { model } : {}) };
}

/** Applies one line (at byte `offset`) read in file order. */
export function applyCopilotLine(state: CopilotUsage, line: string, offset: number): CopilotUsage {
  const event = copilotLineEvent(line, offset);
  if (!event) return state;
  if (event.kind === 'boundary') {
    const next: CopilotUsage = { lastUsage: null, boundary: event.id };
    if (state.model) next.model = state.model;
    if (state.window) next.window = state.window;
    if (event.after) next.afterCompaction = event.after;
    return next;
  }
  const { afterCompaction: _superseded, ...rest } = state;
  return { ...rest, lastUsage: event.tokens, ...(event.window ? { window: event.window } : {}), ...(event.model ? { model: event.model } : {}) };
}

/** Reads lines newest first; `step` returns true once nothing older can change the answer. */
export class CopilotBackwardScan {
  private usage?: number;
  private window?: number;
  private model?: string;
  private boundary?: { id: string; after?: number };

  step(line: string, offset: number): boolean {
    const event = copilotLineEvent(line, offset);
    if (!event) return false;
    // The newest compaction ends the window; model and window from before it still hold (as forward).
    if (event.kind === 'boundary') this.boundary ??= event;
    else {
      if (!this.boundary) this.usage ??= event.tokens;
      this.window ??= event.window;
      this.model ??= event.model;
    }
    return !!this.boundary && this.window !== undefined && this.model !== undefined;
  }

  result(): CopilotUsage {
    const state: CopilotUsage = { lastUsage: this.usage ?? null };
    if (this.boundary) state.boundary = this.boundary.id;
    if (this.model) state.model = this.model;
    if (this.window) state.window = this.window;
    if (this.usage === undefined && this.boundary?.after) state.afterCompaction = this.boundary.after;
    return state;
  }
}

/** Forward read of a whole text (tests and small files). */
export function copilotUsageOfText(text: string): CopilotUsage {
  let state = EMPTY_USAGE;
  let offset = 0;
  for (const line of text.split('\n')) {
    state = applyCopilotLine(state, line, offset);
    offset += Buffer.byteLength(line, 'utf8') + 1;
  }
  return state;
}
