// Qwen Code (docs/hooks.md, checked on 0.24.4): a Gemini CLI fork with Claude Code's hook model.
// Hooks in ~/.qwen/settings.json or the project's .qwen/settings.json (no trust gate), timeouts
// in seconds; the answer in hookSpecificOutput.additionalContext at UserPromptSubmit (the memory
// part with the first prompt, the meta part with each; Qwen HTML-escapes it on the way to the
// model); the UserPromptSubmit it fires after each tool round with an empty prompt is ignored;
// token use and compressions from the chat JSONL; the lossless archive at PreCompact, the summary
// at PostCompact.
import type { AgentAdapter, AgentConfig } from '../adapter.js';
import { parseQwenInput, QWEN_CONTEXT_CAP, QWEN_EVENTS, qwenAnswer, qwenEvent, qwenToolEvent } from './protocol.js';
import { diagnoseQwen, planQwenInstall, planQwenUninstall, qwenCommandPrefix, qwenSettingsFile } from './settings.js';

const config: AgentConfig = {
  scopes: ['user', 'project'],
  defaultScope: 'user',
  file: qwenSettingsFile,
  planInstall: planQwenInstall,
  planUninstall: planQwenUninstall,
  diagnose: (scope, file, text) => diagnoseQwen(scope, file, text),
  commandPrefix: qwenCommandPrefix,
};

export const qwen: AgentAdapter = {
  id: 'qwen',
  aliases: ['qwen-code'],
  displayName: 'Qwen Code',
  metaName: 'qwen',
  events: QWEN_EVENTS,
  eventFor: qwenEvent,
  parseInput: parseQwenInput,
  toolEvent: (input, root) => qwenToolEvent(input, root),
  answer: { contextCap: QWEN_CONTEXT_CAP, answer: qwenAnswer, memoryAtStart: false },
  transcript: {
    async read(file, previous) {
      const { readQwenUsage } = await import('./chat-file.js');
      return readQwenUsage(file, previous);
    },
  },
  compactCommand: '/compress',
  config,
};
