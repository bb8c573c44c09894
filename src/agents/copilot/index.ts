// GitHub Copilot CLI (docs/hooks.md, checked on 1.0.102): hooks in wmem's own file
// `~/.copilot/hooks/wmem.json` (or `$COPILOT_HOME/hooks/`) or the repository's
// `.github/hooks/wmem.json` (run headless only in a trusted folder), timeouts in seconds; the
// answer a flat `{"additionalContext"}` at userPromptSubmitted (appended to the prompt: the memory
// part with the first prompt, the meta part with each); sessionStart only readies the session
// (Copilot runs it alongside the first userPromptSubmitted and drops its text on a resume); token
// use, window and compactions from the session's events.jsonl; the lossless archive at preCompact.
import path from 'node:path';
import type { AgentAdapter, AgentConfig } from '../adapter.js';
import { copilotCommandPrefix, copilotHooksFile, diagnoseCopilot, planCopilotInstall, planCopilotUninstall } from './hooks-file.js';
import { COPILOT_CONTEXT_CAP, COPILOT_EVENTS, copilotAnswer, copilotDir, copilotEvent, copilotToolEvent, parseCopilotInput } from './protocol.js';
import { COPILOT_NAMES } from './names.js';

/** The user's hooks file is the one in Copilot's home folder; any other is a repository's. */
function isUserFile(file: string): boolean {
  return path.resolve(file) === path.join(copilotDir(process.env), 'hooks', 'wmem.json');
}

const config: AgentConfig = {
  scopes: ['user', 'project'],
  // The user's hooks run in every folder; a repository's only once the folder is trusted.
  defaultScope: 'user',
  file: copilotHooksFile,
  planInstall: (file, text, request) => planCopilotInstall(file, text, request, isUserFile(file) ? 'user' : 'project'),
  planUninstall: planCopilotUninstall,
  diagnose: (scope, file, text) => diagnoseCopilot(scope, file, text),
  commandPrefix: copilotCommandPrefix,
};

export const copilot: AgentAdapter = {
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
  config,
  // What `copilot mcp add` writes. User scope only: the workspace `.mcp.json` Copilot also reads is
  // Claude Code's file (`wmem install claude --mcp` registers the server there already).
  mcp: {
    scopes: ['user'],
    defaultScope: 'user',
    file: (_scope, { env }) => path.join(copilotDir(env), 'mcp-config.json'),
    shape: { format: 'json', container: 'mcpServers', command: 'split', before: { type: 'local' }, after: { tools: ['*'] } },
  },
};
