// Pure: what a line of Qwen Code's chat file, `~/.qwen/projects/<cwd with / as ->/chats/<id>.jsonl`,
// says about the context (docs/hooks.md). Settled against Qwen Code 0.24.4 and a Chat Completions
// mock (test/agents/qwen.test.ts):
// - each main-turn reply is a `type: "assistant"` line whose `usageMetadata.promptTokenCount` is
//   the API's prompt tokens (cached ones included; what Qwen's Stop hook reports as input_tokens
//   and compares with its window), with `model` and `contextWindowSize`;
// - a `type: "system"`, `subtype: "chat_compression"` line ends a window (its uuid names the
//   compaction); `systemPayload.info.newTokenCount` is Qwen's own count of what is left. The
//   summary call writes no assistant line.
import { parseJsonLine } from '../../history/lines.js';
import { isObject } from '../../ui/json.js';
import { positive, type UsageLine } from '../usage-lines.js';

export function qwenLine(line: string, offset: number): UsageLine {
  if (!line.includes('"usageMetadata"') && !line.includes('"chat_compression"')) return undefined;
  const value = parseJsonLine(line);
  if (!isObject(value)) return undefined;
  if (value.type === 'system' && value.subtype === 'chat_compression') {
    const info = isObject(value.systemPayload) && isObject(value.systemPayload.info) ? value.systemPayload.info : {};
    const id = typeof value.uuid === 'string' && value.uuid ? value.uuid : `@${offset}`;
    const after = positive(info.newTokenCount);
    return { kind: 'boundary', id, ...(after ? { after } : {}) };
  }
  if (value.type !== 'assistant' || !isObject(value.usageMetadata)) return undefined;
  const tokens = positive(value.usageMetadata.promptTokenCount);
  if (!tokens) return undefined;
  const window = positive(value.contextWindowSize);
  const model = typeof value.model === 'string' && value.model ? value.model : undefined;
  return { kind: 'usage', tokens, ...(window ? { window } : {}), ...(model ? { model } : {}) };
}
