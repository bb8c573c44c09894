// Codex CLI's hook part (adapter.ts's AgentHook), without its hooks.json planner and trust check
// (index.ts adds those): the answer in hookSpecificOutput.additionalContext (a developer message);
// token use, window and compactions from the rollout; a command's exit code from the rollout too
// (PostToolUse carries none).
import type { AgentHook, HookInput } from '../adapter.js';
import { CODEX_CONTEXT_CAP, CODEX_EVENTS, codexAnswer, codexEvent, codexToolEvent, parseCodexInput, withOutcome } from './protocol.js';
import { CODEX_NAMES } from './names.js';
import { mayReadTranscript } from '../transcript-path.js';

export const codexHook: AgentHook = {
  ...CODEX_NAMES,
  events: CODEX_EVENTS,
  eventFor: codexEvent,
  parseInput: (text, event) => parseCodexInput(text, event),
  // PostCompact carries no summary: the rollout's compacted line, written just before, has it.
  async completeInput(input: HookInput): Promise<HookInput> {
    if (input.moment !== 'after-compact' || input.summary || !mayReadTranscript(input.transcriptPath)) return input;
    try {
      const { findCompactionSummary } = await import('./rollout-file.js');
      const summary = await findCompactionSummary(input.transcriptPath);
      return summary ? { ...input, summary } : input;
    } catch {
      return input;
    }
  },
  // PostToolUse carries no exit code: the rollout's finished command, written just before, has it.
  toolEvent: async (input, root) => codexToolEvent(await withRolloutOutcome(input), root),
  answer: { contextCap: CODEX_CONTEXT_CAP, answer: codexAnswer },
  transcript: {
    async read(file, previous) {
      const { readRolloutUsage } = await import('./rollout-file.js');
      return readRolloutUsage(file, previous);
    },
  },
  // Codex 0.169 reports 258,400 tokens for the gpt-5 models it knows (model_context_window).
  defaultWindow: 258_400,
  compactCommand: '/compact',
  usageLines: async () => (await import('./usage-lines.js')).CODEX_USAGE,
};

/** The input with its command's outcome from the rollout (tool-failed on a non-zero exit). */
export async function withRolloutOutcome(input: HookInput): Promise<HookInput> {
  // A path the moments would refuse (not a .jsonl, a link out of one) is not read here either.
  if (!mayReadTranscript(input.transcriptPath) || !input.tool?.id) return input;
  try {
    const { findCommandOutcome } = await import('./rollout-file.js');
    return withOutcome(input, await findCommandOutcome(input.transcriptPath, input.tool.id));
  } catch {
    // No rollout to read: the command is tracked without an exit code (it opens and clears nothing).
    return input;
  }
}
