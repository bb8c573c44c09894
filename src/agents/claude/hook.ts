// Claude Code's hook part (adapter.ts's AgentHook): what its hooks need, without its settings
// planner (index.ts adds that). The answer in hookSpecificOutput.additionalContext (10,000
// characters at most), token use from the session transcript (a JSONL file, read incrementally).
import type { AgentHook } from '../adapter.js';
import { CLAUDE_CONTEXT_CAP, CLAUDE_EVENTS, claudeAnswer, claudeEvent, parseHookInput, toolEventFrom } from './protocol.js';
import { CLAUDE_NAMES } from './names.js';

export const claudeHook: AgentHook = {
  ...CLAUDE_NAMES,
  events: CLAUDE_EVENTS,
  eventFor: claudeEvent,
  parseInput: (text, event, env) => parseHookInput(text, event.name, env),
  toolEvent: (input, root) => toolEventFrom(input, root),
  answer: { contextCap: CLAUDE_CONTEXT_CAP, answer: claudeAnswer },
  transcript: {
    async read(file, previous) {
      const { readTranscriptUsage } = await import('./transcript-file.js');
      return readTranscriptUsage(file, previous as Parameters<typeof readTranscriptUsage>[1]);
    },
  },
  // Claude Code 2.1.328 runs claude-opus-5-5 (1,000,000 tokens) unless told otherwise, and assumes
  // that window for a model it does not recognise.
  defaultWindow: 1_000_000,
  compactCommand: '/compact',
  usageLines: async () => (await import('./usage-lines.js')).CLAUDE_USAGE,
};
