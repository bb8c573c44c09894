// Pure: Qwen Code's chat-file lines as usage: a reply's `promptTokenCount` (cached inside) and
// its window; a chat_compression line is a compaction.
import { boundaryOf, num, usageOf, type UsageLines } from '../../history/model/usage.js';
import { isObject } from '../../ui/json.js';

export const QWEN_USAGE: UsageLines = {
  marks: ['"usageMetadata"', '"chat_compression"'],
  event(value) {
    if (!isObject(value)) return undefined;
    if (value.type === 'assistant' && isObject(value.usageMetadata)) return usageOf(num(value.usageMetadata.promptTokenCount), num(value.contextWindowSize), value.model);
    if (value.type === 'system' && value.subtype === 'chat_compression') {
      const info = isObject(value.systemPayload) && isObject(value.systemPayload.info) ? value.systemPayload.info : {};
      return boundaryOf(num(info.newTokenCount), value.uuid);
    }
    return undefined;
  },
};
