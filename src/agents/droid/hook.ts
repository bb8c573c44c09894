// Factory Droid's hook part (adapter.ts's AgentHook), without its hooks.json planner (index.ts adds
// it). The answer in hookSpecificOutput.additionalContext; token use from the session's
// `<id>.settings.json` beside the transcript.
import type { AgentHook } from '../adapter.js';
import { completeDroidInput, DROID_CONTEXT_CAP, DROID_EVENTS, droidAnswer, droidEvent, droidToolEvent, parseDroidInput } from './protocol.js';
import { DROID_NAMES } from './names.js';

export const droidHook: AgentHook = {
  ...DROID_NAMES,
  events: DROID_EVENTS,
  eventFor: droidEvent,
  parseInput: (text, event) => parseDroidInput(text, event),
  completeInput: completeDroidInput,
  toolEvent: droidToolEvent,
  answer: { contextCap: DROID_CONTEXT_CAP, answer: droidAnswer },
  transcript: {
    async read(file, previous) {
      const { readDroidUsage } = await import('./transcript.js');
      return readDroidUsage(file, previous);
    },
  },
  compactCommand: '/compact',
};
