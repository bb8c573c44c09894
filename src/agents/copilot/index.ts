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
import { copilotDir } from './protocol.js';
import { copilotHook } from './hook.js';

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
  ...copilotHook,
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
