// Pure: Codex rollout lines as usage, for the report and wmem's history: the last request's input
// tokens (`event_msg` token_count's last_token_usage.input_tokens) are the context in use, with the
// window Codex reports; a `compacted` line or a context_compacted event ends a window. (The meter
// reads the rollout more closely: rollout.ts.)
import { num, type UsageLines } from '../../history/model/usage.js';
import { isObject } from '../../ui/json.js';

export const CODEX_USAGE: UsageLines = {
  marks: ['token_count', 'compact'],
  event(value) {
    if (!isObject(value)) return undefined;
    const payload = isObject(value.payload) ? value.payload : undefined;
    if (value.type === 'event_msg' && payload?.type === 'token_count') {
      const info = payload.info;
      if (!isObject(info) || !isObject(info.last_token_usage)) return undefined;
      const tokens = num(info.last_token_usage.input_tokens);
      const window = num(info.model_context_window);
      return tokens > 0 ? { kind: 'usage', tokens, ...(window > 0 ? { window } : {}) } : undefined;
    }
    if (value.type === 'compacted' || (value.type === 'event_msg' && payload?.type === 'context_compacted')) return { kind: 'boundary' };
    return undefined;
  },
};
