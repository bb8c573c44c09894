// Qwen Code (docs/hooks.md, checked on 0.24.4): a Gemini CLI fork with Claude Code's hook model.
// Hooks in ~/.qwen/settings.json or the project's .qwen/settings.json (no trust gate), timeouts
// in seconds; the answer in hookSpecificOutput.additionalContext at UserPromptSubmit (the memory
// part with the first prompt, the meta part with each; Qwen HTML-escapes it on the way to the
// model); the UserPromptSubmit it fires after each tool round with an empty prompt is ignored;
// token use and compressions from the chat JSONL; the lossless archive at PreCompact, the summary
// at PostCompact.
import path from 'node:path';
import { userHome, type AgentAdapter, type AgentConfig } from '../adapter.js';
import { parseQwenInput, QWEN_CONTEXT_CAP, QWEN_EVENTS, qwenAnswer, qwenEvent, qwenToolEvent } from './protocol.js';
import { diagnoseQwen, QWEN_HOOKS_FILE, qwenCommandPrefix, qwenSettingsFile } from './settings.js';
import { QWEN_NAMES } from './names.js';

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
  config,
  // `qwen mcp add -s user|project` writes the same entry into the same settings files.
  mcp: {
    scopes: ['user', 'project'],
    defaultScope: 'user',
    file: (scope, { cwd, env }) => path.join(scope === 'user' ? userHome(env) : path.resolve(cwd), '.qwen', 'settings.json'),
    shape: { format: 'json', container: 'mcpServers', command: 'split' },
  },
};
