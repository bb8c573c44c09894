// Pure: token use as an agent reported it, one transcript line at a time, in agent-neutral terms.
// What a line means is the agent's: each adapter's folder holds its rule (`usage-lines.ts`, a
// `UsageLines`), and the report asks the registry for them. This file keeps the shape they share,
// the way several rules read one file of unknown origin (wmem's own history), and the one format
// that is wmem's own: a plain chat history's `{"role": "_usage", "token_count": N}` bookkeeping
// (Kimi CLI's context files).
import { isObject } from '../../ui/json.js';

export type UsageEvent =
  | {
      kind: 'usage';
      tokens: number;
      /** The agent's id of the response: one response written on several lines counts once. */
      messageId?: string;
      /** The model that answered (Claude Code's message.model). */
      model?: string;
      /** The window the agent itself reports (Codex's model_context_window). */
      window?: number;
      /** When, where the line says it in a field the report does not know (ISO). */
      time?: string;
    }
  | {
      kind: 'boundary';
      /** The agent's own count of the context right after its compaction (Claude Code's compactMetadata.postTokens). */
      after?: number;
      /** The agent's id of the compaction, where a line can repeat it (Gemini CLI's summary id on a resume). */
      id?: string;
      time?: string;
    }
  | undefined;

/** One agent's rule for its transcript lines. */
export interface UsageLines {
  /** Every line that carries usage or a compaction holds one of these (a cheap test before JSON.parse). */
  marks: readonly string[];
  /** What one parsed line says: usage, a compaction, or nothing. */
  event(value: unknown): UsageEvent;
}

export function num(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}

/** A usage event with its window and model when they are there (zero and '' are absent). */
export function usageOf(tokens: number, window: number, model: unknown): UsageEvent {
  if (tokens <= 0) return undefined;
  return { kind: 'usage', tokens, ...(window > 0 ? { window } : {}), ...(typeof model === 'string' && model ? { model } : {}) };
}

/** A compaction with the agent's count after it and its id, where the line gives them. */
export function boundaryOf(after: number, id: unknown): UsageEvent {
  return { kind: 'boundary', ...(after > 0 ? { after } : {}), ...(typeof id === 'string' && id ? { id } : {}) };
}

/** Kimi CLI context and plain chat histories: `{"role": "_usage", "token_count": N}`. */
export const PLAIN_USAGE: UsageLines = {
  marks: ['_usage'],
  event: (value) => (isObject(value) && value.role === '_usage' && num(value.token_count) > 0 ? { kind: 'usage', tokens: num(value.token_count) } : undefined),
};

/** Several rules over one file whose agent is not known: the first that reads a line says what it is. */
export function anyOf(rules: readonly UsageLines[]): UsageLines {
  return {
    marks: [...new Set(rules.flatMap((r) => r.marks))],
    event(value) {
      for (const rule of rules) {
        const event = rule.event(value);
        if (event) return event;
      }
      return undefined;
    },
  };
}
