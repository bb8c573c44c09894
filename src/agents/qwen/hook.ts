// Qwen Code's hook part (adapter.ts's AgentHook), without its settings planner (index.ts adds it).
// The answer in hookSpecificOutput.additionalContext at UserPromptSubmit; token use and
// compressions from the chat JSONL.
import type { AgentHook } from '../adapter.js';
import { parseQwenInput, QWEN_CONTEXT_CAP, QWEN_EVENTS, qwenAnswer, qwenEvent, qwenToolEvent } from './protocol.js';
import { QWEN_NAMES } from './names.js';

export const qwenHook: AgentHook = {
  ...QWEN_NAMES,
  events: QWEN_EVENTS,
  eventFor: qwenEvent,
  parseInput: parseQwenInput,
  toolEvent: (input, root) => qwenToolEvent(input, root),
  answer: { contextCap: QWEN_CONTEXT_CAP, answer: qwenAnswer, memoryAtStart: false },
  usageLines: async () => (await import('./usage-lines.js')).QWEN_USAGE,
  transcript: {
    async read(file, previous) {
      const { readQwenUsage } = await import('./chat-file.js');
      return readQwenUsage(file, previous);
    },
  },
  compactCommand: '/compress',
};
