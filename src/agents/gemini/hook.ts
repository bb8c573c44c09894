// Gemini CLI's hook part (adapter.ts's AgentHook), without its settings planner and folder trust
// check (index.ts adds those). The answer in hookSpecificOutput.additionalContext at BeforeAgent only;
// token use and compressions from the chat JSONL.
import type { AgentHook } from '../adapter.js';
import { GEMINI_CONTEXT_CAP, GEMINI_EVENTS, geminiAnswer, geminiEvent, geminiToolEvent, parseGeminiInput } from './protocol.js';
import { GEMINI_DEFAULT_WINDOW } from './windows.js';
import { GEMINI_NAMES } from './names.js';

export const geminiHook: AgentHook = {
  ...GEMINI_NAMES,
  events: GEMINI_EVENTS,
  eventFor: geminiEvent,
  parseInput: parseGeminiInput,
  toolEvent: (input, root) => geminiToolEvent(input, root),
  answer: { contextCap: GEMINI_CONTEXT_CAP, answer: geminiAnswer, memoryAtStart: false },
  transcript: {
    async read(file, previous) {
      const { readChatUsage } = await import('./chat-file.js');
      return readChatUsage(file, previous);
    },
  },
  defaultWindow: GEMINI_DEFAULT_WINDOW,
  compactCommand: '/compress',
  usageLines: async () => (await import('./usage-lines.js')).GEMINI_USAGE,
};
