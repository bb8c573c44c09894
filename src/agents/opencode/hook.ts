// OpenCode's hook part (adapter.ts's AgentHook), without its plugin file's planner (index.ts adds
// it). The memory part goes into the system prompt, the meter into the user's turn; token use comes
// in the hook input.
import type { AgentHook, TranscriptCursor, UsageView } from '../adapter.js';
import { OPENCODE_CONTEXT_CAP, OPENCODE_EVENTS, opencodeAnswer, opencodeEvent, opencodeToolEvent, parseOpenCodeInput } from './protocol.js';
import { OPENCODE_NAMES } from './names.js';

/** The usage the plugin last passed, kept in the hook state as the "transcript" cursor. */
interface PassedUsage extends TranscriptCursor {
  view?: UsageView;
}

export const opencodeHook: AgentHook = {
  ...OPENCODE_NAMES,
  events: OPENCODE_EVENTS,
  eventFor: opencodeEvent,
  parseInput: (text, event) => parseOpenCodeInput(text, event),
  toolEvent: (input, root) => opencodeToolEvent(input, root),
  answer: { contextCap: OPENCODE_CONTEXT_CAP, answer: opencodeAnswer, memoryCopy: 'replaced' },
  // No file to read: what the plugin passed last is what there is (`wmem status` reads it here).
  transcript: {
    async read(file, previous) {
      const view = (previous as PassedUsage | undefined)?.view ?? { lastUsage: null };
      return { cursor: { path: file, view } as PassedUsage, view, changed: false };
    },
  },
  // OpenCode's own command that compacts (its TUI's /compact, alias /summarize).
  compactCommand: '/compact',
  usageLines: async () => (await import('./usage-lines.js')).OPENCODE_USAGE,
};
