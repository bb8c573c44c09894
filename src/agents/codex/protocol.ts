// Pure: the Codex CLI's hook protocol (docs/hooks.md, checked on 0.169.0). Every event's stdin is
// one JSON object with session_id, transcript_path (the rollout), cwd, hook_event_name and the
// event's own fields; there is no session id in the environment. PostToolUse fires for a shell
// command whether it succeeded or not, and its tool_response is the output only: the exit code is
// in the rollout (see rollout.ts), so the adapter completes the input from there.
import { eventByName, type AgentEvent, type HookInput } from '../adapter.js';
import { isObject, parseHookJson } from '../hook-json.js';
import { within, withOutcome as outcomeOf } from '../tool-event.js';
import type { ToolEvent } from '../../memory/hot-state.js';
import { todoFields } from '../../memory/todos.js';
import { CODEX_NAMES } from './names.js';

/**
 * The events wmem answers. PreToolUse and Stop are named so that a stray install of them is
 * understood, but wmem does nothing there. Codex 0.169 runs no PostToolUse for an apply_patch it
 * intercepts from exec_command (only PreToolUse), so file edits made that way are not tracked.
 */
export const CODEX_EVENTS: readonly AgentEvent[] = [
  { name: 'SessionStart', moment: 'session-start' },
  { name: 'UserPromptSubmit', moment: 'prompt' },
  { name: 'PreToolUse', moment: 'ignore' },
  { name: 'PostToolUse', moment: 'tool-done' },
  { name: 'PreCompact', moment: 'before-compact' },
  { name: 'PostCompact', moment: 'after-compact' },
  { name: 'Stop', moment: 'ignore' },
  { name: 'SessionEnd', moment: 'session-end' },
];

/** Codex adds a hook's additional context as a developer message; wmem keeps Claude Code's cap. */
export const CODEX_CONTEXT_CAP = 10_000;

export function codexEvent(name: string): AgentEvent | undefined {
  return eventByName(CODEX_EVENTS, name);
}


/** Parses what Codex writes on a hook's stdin (the shared shape). Throws HookInputError on anything malformed. */
export function parseCodexInput(text: string, event: AgentEvent): HookInput {
  return parseHookJson(text, event, { ...CODEX_NAMES, eventFor: codexEvent }).input;
}

/** What the rollout says about a finished command (CommandExecution item). */
export interface CommandOutcome {
  exitCode?: number;
  /** completed, failed, declined, … */
  status?: string;
  output?: string;
}

/**
 * A tool moment with its outcome from the rollout: a non-zero exit (or a failed status) makes it
 * tool-failed with the output as the error. Without an outcome it stays as it was.
 */
export function withOutcome(input: HookInput, outcome: CommandOutcome | undefined): HookInput {
  if (!outcome || !input.tool) return input;
  const failed = (outcome.exitCode !== undefined && outcome.exitCode !== 0) || (outcome.exitCode === undefined && outcome.status === 'failed');
  const tool = { ...input.tool, exitCode: outcome.exitCode };
  if (!failed) return { ...input, tool };
  const output = outcome.output ?? (typeof input.tool.response === 'string' ? input.tool.response : undefined);
  return { ...input, moment: 'tool-failed', tool: { ...tool, error: output?.trim() || `the command failed with exit code ${outcome.exitCode ?? '?'}` } };
}

/** A tool moment as a `wmem track` event; paths inside `root` are kept relative to it. */
export function codexToolEvent(input: HookInput, root?: string): ToolEvent {
  const tool = input.tool ?? {};
  const toolInput = tool.input ?? {};
  // update_plan, should Codex hook it, is its todo list.
  const event: ToolEvent = { tool: tool.name?.toLowerCase(), ...todoFields(tool.name, toolInput, tool.response) };
  if (typeof toolInput.command === 'string') event.command = toolInput.command;
  const file = ['file_path', 'path'].map((k) => toolInput[k]).find((v): v is string => typeof v === 'string' && v !== '');
  if (file) event.files = [within(file, root)];
  const output = responseText(tool.response);
  if (output !== undefined) event.output = output;
  // No exit code known (the rollout could not be read): hot state then opens and clears nothing.
  return outcomeOf(event, input, output, 'the command failed');
}

/** A command's response is its output; an MCP tool's is the MCP result: its text parts. */
function responseText(response: unknown): string | undefined {
  if (typeof response === 'string') return response;
  if (!isObject(response) || !Array.isArray(response.content)) return undefined;
  const texts = response.content.filter((c): c is { text: string } => isObject(c) && typeof c.text === 'string').map((c) => c.text);
  return texts.length ? texts.join('\n') : undefined;
}

/**
 * The answer: additional context where Codex takes it into the conversation (SessionStart,
 * UserPromptSubmit: a developer message); nothing elsewhere.
 */
export function codexAnswer(input: HookInput, additionalContext: string): unknown | undefined {
  if (input.moment !== 'session-start' && input.moment !== 'prompt') return undefined;
  if (additionalContext.length > CODEX_CONTEXT_CAP) throw new Error(`additional context of ${additionalContext.length} characters is over the Codex cap`);
  return { hookSpecificOutput: { hookEventName: input.event, additionalContext } };
}
