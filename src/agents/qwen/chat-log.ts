// Pure: what a line of Qwen Code's chat file, `~/.qwen/projects/<cwd with / as ->/chats/<id>.jsonl`,
// says about the context (docs/hooks.md; the line shapes are in usage-lines.ts, which the report
// reads too). Settled against Qwen Code 0.24.4 and a Chat Completions mock (test/agents/qwen.test.ts):
// - each main-turn reply is a `type: "assistant"` line whose `usageMetadata.promptTokenCount` is
//   the API's prompt tokens (cached ones included; what Qwen's Stop hook reports as input_tokens
//   and compares with its window), with `model` and `contextWindowSize`;
// - a `type: "system"`, `subtype: "chat_compression"` line ends a window (its uuid names the
//   compaction); `systemPayload.info.newTokenCount` is Qwen's own count of what is left. The
//   summary call writes no assistant line.
import { markedUsageLines } from '../usage-lines.js';
import { QWEN_USAGE } from './usage-lines.js';

export const qwenLine = markedUsageLines(QWEN_USAGE);
