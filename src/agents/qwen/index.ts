// Qwen Code (docs/hooks.md, checked on 0.24.4): a Gemini CLI fork with Claude Code's hook model.
// Hooks in ~/.qwen/settings.json or the project's .qwen/settings.json (no trust gate), timeouts
// in seconds; the answer in hookSpecificOutput.additionalContext at UserPromptSubmit (the memory
// part with the first prompt, the meta part with each; Qwen HTML-escapes it on the way to the
// model); the UserPromptSubmit it fires after each tool round with an empty prompt is ignored;
// token use and compressions from the chat JSONL; the lossless archive at PreCompact, the summary
// at PostCompact.
import path from 'node:path';
import { userHome, type AgentAdapter, type AgentConfig } from '../adapter.js';
import { diagnoseQwen, QWEN_HOOKS_FILE, qwenCommandPrefix, qwenSettingsFile } from './settings.js';
import { qwenHook } from './hook.js';

const config: AgentConfig = {
  scopes: ['user', 'project'],
  defaultScope: 'user',
  file: qwenSettingsFile,
  planInstall: QWEN_HOOKS_FILE.planInstall,
  planUninstall: QWEN_HOOKS_FILE.planUninstall,
  diagnose: (scope, file, text) => diagnoseQwen(scope, file, text),
  commandPrefix: qwenCommandPrefix,
};

export const qwen: AgentAdapter = {
  ...qwenHook,
  config,
  // `qwen mcp add -s user|project` writes the same entry into the same settings files.
  mcp: {
    scopes: ['user', 'project'],
    defaultScope: 'user',
    file: (scope, { cwd, env }) => path.join(scope === 'user' ? userHome(env) : path.resolve(cwd), '.qwen', 'settings.json'),
    shape: { format: 'json', container: 'mcpServers', command: 'split' },
  },
};
