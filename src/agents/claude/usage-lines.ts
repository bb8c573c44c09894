// Pure: Claude Code's transcript lines as usage. The last main-chain assistant usage (input +
// cache creation + cache read), sidechain and <synthetic> lines skipped; a compact_boundary ends
// a window (its compactMetadata.postTokens is Claude Code's count right after it).
import { num, type UsageLines } from '../../history/model/usage.js';
import { isObject } from '../../ui/json.js';

export const CLAUDE_USAGE: UsageLines = {
  marks: ['usage', 'compact'],
  event(value) {
    if (!isObject(value)) return undefined;
    if (value.type === 'system' && value.subtype === 'compact_boundary') {
      const after = isObject(value.compactMetadata) ? num(value.compactMetadata.postTokens) : 0;
      return after > 0 ? { kind: 'boundary', after } : { kind: 'boundary' };
    }
    if (value.type !== 'assistant' || !isObject(value.message) || value.isSidechain === true) return undefined;
    const message = value.message;
    if (message.model === '<synthetic>' || !isObject(message.usage)) return undefined;
    const usage = message.usage;
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
  },
};
