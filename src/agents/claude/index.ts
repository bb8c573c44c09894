// Claude Code (docs/hooks.md): the first adapter. Hooks in .claude/settings*.json, the answer in
// hookSpecificOutput.additionalContext (10,000 characters at most), token use from the session
// transcript (a JSONL file, read incrementally).
import path from 'node:path';
import { userHome, type AgentAdapter } from '../adapter.js';
import { CLAUDE_CONTEXT_CAP, CLAUDE_EVENTS, claudeAnswer, claudeEvent, parseHookInput, toolEventFrom } from './protocol.js';
import { claudeConfig } from './config.js';
import { CLAUDE_NAMES } from './names.js';

export const claude: AgentAdapter = {
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
  config: claudeConfig,
  mcp: {
    scopes: ['project', 'user'],
    defaultScope: 'project',
    // User scope: the `mcpServers` of ~/.claude.json (in CLAUDE_CONFIG_DIR when that is set).
    file: (scope, { cwd, env }) => (scope === 'user' ? path.join(env.CLAUDE_CONFIG_DIR || userHome(env), '.claude.json') : path.join(path.resolve(cwd), '.mcp.json')),
    shape: { format: 'json', container: 'mcpServers', before: { type: 'stdio' }, command: 'split' },
  },
};
