// Pure: token use as the agent itself reported it, read line by line. For Claude Code: the last
// main-chain assistant usage (input + cache creation + cache read), sidechain and <synthetic>
// lines skipped, nothing from before the last compact_boundary. Codex `token_count` events, Kimi
// `_usage` records, GitHub Copilot CLI's events.jsonl and Qwen Code's chat file are read too.
import { isObject } from './lines.js';

export type UsageEvent =
  | {
      kind: 'usage';
      tokens: number;
      messageId?: string;
      /** The model that answered (Claude Code's message.model). */
      model?: string;
      /** The window the agent itself reports (Codex's model_context_window). */
      window?: number;
    }
  | {
      kind: 'boundary';
      /** The agent's own count of the context right after its compaction (Claude Code's compactMetadata.postTokens). */
      after?: number;
      /** The agent's own id for the compaction, where the line carries one (Copilot, Qwen Code). */
      id?: string;
    }
  | undefined;

function num(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}

/** A usage event with its window and model when they are there (zero and '' are absent). */
function usageOf(tokens: number, window: number, model: unknown): UsageEvent {
  if (tokens <= 0) return undefined;
  return { kind: 'usage', tokens, ...(window > 0 ? { window } : {}), ...(typeof model === 'string' && model ? { model } : {}) };
}

function boundaryOf(after: number, id: unknown): UsageEvent {
  return { kind: 'boundary', ...(after > 0 ? { after } : {}), ...(typeof id === 'string' && id ? { id } : {}) };
}

/**
 * GitHub Copilot CLI's events.jsonl: each model call's `inputTokens` (the API's prompt tokens,
 * cached inside; what Copilot compares with its prompt limit `maxPromptTokens`), and a successful
 * `session.compaction_complete`.
 */
function copilotEvent(value: Record<string, unknown>): UsageEvent | null {
  if (!isObject(value.data)) return null;
  const data = value.data;
  if (value.type === 'session.usage_record') return isObject(data.usage) ? usageOf(num(data.usage.inputTokens), num(data.usage.maxPromptTokens), data.usage.model) : undefined;
  if (value.type === 'session.compaction_complete') return data.success === true ? boundaryOf(num(data.postCompactionTokens), data.compactionAttemptId) : undefined;
  return null;
}

/** Qwen Code's chat file: a reply's `promptTokenCount` (cached inside) and window; a chat_compression line. */
function qwenEvent(value: Record<string, unknown>): UsageEvent | null {
  if (value.type === 'assistant' && isObject(value.usageMetadata)) return usageOf(num(value.usageMetadata.promptTokenCount), num(value.contextWindowSize), value.model);
  if (value.type === 'system' && value.subtype === 'chat_compression') {
    const info = isObject(value.systemPayload) && isObject(value.systemPayload.info) ? value.systemPayload.info : {};
    return boundaryOf(num(info.newTokenCount), value.uuid);
  }
  return null;
}

export function usageEvent(value: unknown): UsageEvent {
  if (!isObject(value)) return undefined;
  const other = copilotEvent(value) ?? qwenEvent(value);
  if (other !== null) return other;
  if (value.type === 'system' && value.subtype === 'compact_boundary') {
    const after = isObject(value.compactMetadata) ? num(value.compactMetadata.postTokens) : 0;
    return after > 0 ? { kind: 'boundary', after } : { kind: 'boundary' };
  }
  if (value.type === 'assistant' && isObject(value.message)) {
    if (value.isSidechain === true) return undefined;
    const message = value.message;
    if (message.model === '<synthetic>') return undefined;
    const usage = message.usage;
    if (!isObject(usage)) return undefined;
    const tokens = num(usage.input_tokens) + num(usage.cache_creation_input_tokens) + num(usage.cache_read_input_tokens);
    if (tokens <= 0) return undefined;
    return {
      kind: 'usage',
      tokens,
      messageId: typeof message.id === 'string' ? message.id : undefined,
      // Claude Code strips a [1m] suffix before calling the API; the line keeps what was asked for.
      ...(typeof value.requestedModel === 'string' && value.requestedModel
        ? { model: value.requestedModel }
        : typeof message.model === 'string' && message.model
          ? { model: message.model }
          : {}),
    };
  }
  // Codex rollout: the last request's input tokens are the context in use.
  if (value.type === 'event_msg' && isObject(value.payload) && value.payload.type === 'token_count') {
    const info = value.payload.info;
    if (isObject(info) && isObject(info.last_token_usage)) {
      const tokens = num(info.last_token_usage.input_tokens);
      const window = num(info.model_context_window);
      if (tokens > 0) return { kind: 'usage', tokens, ...(window > 0 ? { window } : {}) };
    }
    return undefined;
  }
  if (value.type === 'compacted' || (value.type === 'event_msg' && isObject(value.payload) && value.payload.type === 'context_compacted')) {
    return { kind: 'boundary' };
  }
  // Kimi CLI context: {"role": "_usage", "token_count": N}.
  if (value.role === '_usage' && num(value.token_count) > 0) return { kind: 'usage', tokens: num(value.token_count) };
  return undefined;
}
