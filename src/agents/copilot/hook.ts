// GitHub Copilot CLI's hook part (adapter.ts's AgentHook), without its hooks file's planner (index.ts
// adds it). The answer a flat `{"additionalContext"}` at userPromptSubmitted; token use, window and
// compactions from the session's events.jsonl.
import type { AgentHook } from '../adapter.js';
import { COPILOT_CONTEXT_CAP, COPILOT_EVENTS, copilotAnswer, copilotEvent, copilotToolEvent, parseCopilotInput } from './protocol.js';
import { COPILOT_NAMES } from './names.js';

export const copilotHook: AgentHook = {
  ...COPILOT_NAMES,
  events: COPILOT_EVENTS,
  eventFor: copilotEvent,
  parseInput: parseCopilotInput,
  toolEvent: (input, root) => copilotToolEvent(input, root),
  answer: { contextCap: COPILOT_CONTEXT_CAP, answer: copilotAnswer, memoryAtStart: false },
  usageLines: async () => (await import('./usage-lines.js')).COPILOT_USAGE,
  transcript: {
    async read(file, previous) {
      const { readCopilotUsage } = await import('./events-file.js');
      return readCopilotUsage(file, previous);
    },
  },
  // Copilot's prompt limit for gpt-4.1, its default model offline.
  defaultWindow: 64_000,
  compactCommand: '/compact',
};
