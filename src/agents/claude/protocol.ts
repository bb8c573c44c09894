// Pure: Claude Code's hook protocol. Its event names and their moments, what arrives on stdin
// (session_id, transcript_path, cwd, hook_event_name and the event's own fields), how a tool
// event maps to `wmem track`'s input, and the JSON a hook answers with
// (hookSpecificOutput.additionalContext, under 10,000 characters).
import type { ToolEvent } from '../../memory/hot-state.js';
import { todoFields } from '../../memory/todos.js';
import { eventByName, HookInputError, type AgentEvent, type HookInput } from '../adapter.js';
import { additionalContextAnswer, isObject, parseHookJson, str } from '../hook-json.js';
import { within } from '../tool-event.js';
import { CLAUDE_NAMES } from './names.js';

export { HookInputError };
export type { HookInput };

export const CLAUDE_EVENTS = [
  { name: 'SessionStart', moment: 'session-start' },
  { name: 'UserPromptSubmit', moment: 'prompt' },
  { name: 'PostToolUse', moment: 'tool-done' },
  { name: 'PostToolUseFailure', moment: 'tool-failed' },
  { name: 'PreCompact', moment: 'before-compact' },
  { name: 'PostCompact', moment: 'after-compact' },
  { name: 'SessionEnd', moment: 'session-end' },
] as const satisfies readonly AgentEvent[];
export type ClaudeHookEvent = (typeof CLAUDE_EVENTS)[number]['name'];
export const CLAUDE_HOOK_EVENTS: readonly ClaudeHookEvent[] = CLAUDE_EVENTS.map((e) => e.name);

/** Claude Code caps a hook's additional context at 10,000 characters. */
export const CLAUDE_CONTEXT_CAP = 10_000;

/** A tool event in `wmem track`'s shape (docs/memory.md). */
export type { ToolEvent };

/** The event named on the command line; a few spellings are accepted (session-start, sessionstart). */
export function claudeEvent(name: string): AgentEvent | undefined {
  return eventByName(CLAUDE_EVENTS, name);
}

export function normalizeEvent(name: string): ClaudeHookEvent | undefined {
  return claudeEvent(name)?.name as ClaudeHookEvent | undefined;
}

const AGENT = { ...CLAUDE_NAMES, eventFor: claudeEvent };

/** Parses the JSON Claude Code writes on a hook's stdin. Throws HookInputError on anything malformed. */
export function parseHookInput(text: string, eventArg: string, env: NodeJS.ProcessEnv = {}): HookInput {
  const event = claudeEvent(eventArg);
  if (!event) throw new HookInputError(`unsupported hook event ${JSON.stringify(eventArg)} (wmem answers ${CLAUDE_HOOK_EVENTS.join(', ')})`);
  const { input, raw } = parseHookJson(text, event, AGENT);
  if (event.moment === 'after-compact') input.summary = str(raw.compact_summary);
  const projectDir = str(env.CLAUDE_PROJECT_DIR);
  if (projectDir) input.projectDir = projectDir;
  return input;
}

function responseText(response: unknown): string | undefined {
  if (typeof response === 'string') return response;
  if (!isObject(response)) return undefined;
  const parts = [response.stdout, response.stderr, response.output, response.content].filter((p): p is string => typeof p === 'string' && p !== '');
  return parts.length ? parts.join('\n') : undefined;
}

/**
 * PostToolUse (the tool succeeded) and PostToolUseFailure (`error` holds the message) as a
 * `wmem track` event. A Bash failure's exit code is read from "Exit code N"; an interrupt by the
 * user carries no exit code, so it opens no error.
 */
export function toolEventFrom(input: HookInput, root?: string): ToolEvent {
  const call = input.tool ?? {};
  const toolInput = call.input ?? {};
  const files = ['file_path', 'notebook_path', 'path']
    .map((k) => toolInput[k])
    .filter((v): v is string => typeof v === 'string' && v !== '')
    .map((file) => within(file, root));
  const event: ToolEvent = { tool: call.name?.toLowerCase(), ...todoFields(call.name, toolInput, call.response) };
  if (files.length) event.files = [...new Set(files)];
  if (typeof toolInput.command === 'string') event.command = toolInput.command;
  if (input.moment === 'tool-failed') {
    if (call.isInterrupt) {
      event.is_interrupt = true;
      return event;
    }
    const message = call.error ?? 'the tool failed';
    event.error = message;
    event.output = message;
    const code = /\bexit code:?\s*(\d+)/i.exec(message);
    event.exit_code = code ? Number(code[1]) : 1;
    return event;
  }
  const output = responseText(call.response);
  if (output !== undefined) event.output = output;
  // Claude Code fires PostToolUse only when the tool succeeded.
  event.exit_code = 0;
  return event;
}

export interface HookOutput {
  hookSpecificOutput: { hookEventName: ClaudeHookEvent; additionalContext: string };
}

export function hookOutput(event: ClaudeHookEvent, additionalContext: string): HookOutput {
  return additionalContextAnswer(event, additionalContext, CLAUDE_CONTEXT_CAP, 'Claude Code') as HookOutput;
}

/** Claude Code takes additional context from SessionStart and UserPromptSubmit only. */
export function claudeAnswer(input: HookInput, additionalContext: string): HookOutput | undefined {
  if (input.event !== 'SessionStart' && input.event !== 'UserPromptSubmit') return undefined;
  return hookOutput(input.event, additionalContext);
}
