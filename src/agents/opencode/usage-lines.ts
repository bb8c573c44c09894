// Pure: OpenCode's messages as usage. OpenCode keeps its conversation in SQLite; its plugin passes
// the messages before a compaction and wmem keeps them, one `{info, parts}` JSON line each, in
// state/opencode-transcript.jsonl. An assistant message's prompt is `tokens.input` plus the cached
// `tokens.cache.read` and `.write` (OpenCode 1.18: input = prompt − cached); a user message with a
// `compaction` part is the compaction OpenCode made there.
import { num, type UsageLines } from '../../history/model/usage.js';
import { isObject } from '../../ui/json.js';

function timeOf(info: Record<string, unknown>): string | undefined {
  const created = isObject(info.time) ? num(info.time.created) : 0;
  return created > 0 ? new Date(created).toISOString() : undefined;
}

export const OPENCODE_USAGE: UsageLines = {
  marks: ['"tokens"', '"compaction"'],
  event(value) {
    if (!isObject(value) || !isObject(value.info)) return undefined;
    const info = value.info;
    const time = timeOf(info);
    const at = time ? { time } : {};
    if (info.role === 'user') {
      const compacts = Array.isArray(value.parts) && value.parts.some((p) => isObject(p) && p.type === 'compaction');
      return compacts ? { kind: 'boundary', ...(typeof info.id === 'string' ? { id: info.id } : {}), ...at } : undefined;
    }
    if (info.role !== 'assistant' || !isObject(info.tokens)) return undefined;
    const cache = isObject(info.tokens.cache) ? info.tokens.cache : {};
    const tokens = num(info.tokens.input) + num(cache.read) + num(cache.write);
    if (tokens <= 0) return undefined;
    const model = typeof info.modelID === 'string' && info.modelID ? { model: info.modelID } : {};
    return { kind: 'usage', tokens, ...(typeof info.id === 'string' ? { messageId: info.id } : {}), ...model, ...at };
  },
};
