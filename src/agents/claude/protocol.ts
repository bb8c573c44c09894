// Pure: Claude Code's hook protocol. What arrives on stdin for each event (session_id,
// transcript_path, cwd, hook_event_name and the event's own fields), how a tool event maps to
// `wmem track`'s input, and the JSON a hook answers with (hookSpecificOutput.additionalContext).
import { isAbsolute, relative } from 'node:path';
import { todoFields, type ToolEvent } from '../../memory/hot-state.js';

export const CLAUDE_HOOK_EVENTS = [
  'SessionStart',
  'UserPromptSubmit',
  'PostToolUse',
  'PostToolUseFailure',
  'PreCompact',
  'PostCompact',
  'SessionEnd',
] as const;
export type ClaudeHookEvent = (typeof CLAUDE_HOOK_EVENTS)[number];

/** Claude Code caps a hook's additional context at 10,000 characters. */
export const CLAUDE_CONTEXT_CAP = 10_000;

export interface HookInput {
  event: ClaudeHookEvent;
  sessionId?: string;
  transcriptPath?: string;
  cwd?: string;
  /** SessionStart: startup, resume, clear, compact (fork in newer versions). */
  source?: string;
  /** SessionStart: the model the session runs on. */
  model?: string;
  /** PreCompact / PostCompact: manual or auto. */
  trigger?: string;
  compactSummary?: string;
  /** SessionEnd: clear, logout, prompt_input_exit, other, … */
  reason?: string;
  toolName?: string;
  toolInput?: Record<string, unknown>;
  toolResponse?: unknown;
  error?: string;
  isInterrupt?: boolean;
}

/** A tool event in `wmem track`'s shape (SPEC §7). */
export type { ToolEvent };

export class HookInputError extends Error {
  override name = 'HookInputError';
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** The event named on the command line; a few spellings are accepted (session-start, sessionstart). */
export function normalizeEvent(name: string): ClaudeHookEvent | undefined {
  const key = name.replace(/[-_\s]/g, '').toLowerCase();
  return CLAUDE_HOOK_EVENTS.find((e) => e.toLowerCase() === key);
}

/** Parses the JSON Claude Code writes on a hook's stdin. Throws HookInputError on anything malformed. */
export function parseHookInput(text: string, eventArg: string): HookInput {
  const event = normalizeEvent(eventArg);
  if (!event) throw new HookInputError(`unsupported hook event ${JSON.stringify(eventArg)} (wmem answers ${CLAUDE_HOOK_EVENTS.join(', ')})`);
  if (!text.trim()) throw new HookInputError('empty hook input on stdin (expected the JSON Claude Code sends)');
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new HookInputError(`hook input is not JSON: ${(err as Error).message}`);
  }
  if (!isObject(raw)) throw new HookInputError('hook input is not a JSON object');
  const named = str(raw.hook_event_name);
  if (named && normalizeEvent(named) !== event) {
    throw new HookInputError(`hook input is for ${named}, but the command is 'wmem hook ${event}'`);
  }
  for (const key of ['session_id', 'transcript_path', 'cwd'] as const) {
    if (raw[key] !== undefined && raw[key] !== null && typeof raw[key] !== 'string') throw new HookInputError(`hook input field ${key} is not a string`);
  }
  return {
    event,
    sessionId: str(raw.session_id),
    transcriptPath: str(raw.transcript_path),
    cwd: str(raw.cwd),
    source: str(raw.source),
    model: str(raw.model),
    trigger: str(raw.trigger),
    compactSummary: str(raw.compact_summary),
    reason: str(raw.reason),
    toolName: str(raw.tool_name),
    toolInput: isObject(raw.tool_input) ? raw.tool_input : undefined,
    toolResponse: raw.tool_response,
    error: str(raw.error),
    isInterrupt: raw.is_interrupt === true,
  };
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
  const toolInput = input.toolInput ?? {};
  // Paths inside the project are kept relative to it: shorter, and the same on every machine.
  const within = (file: string) => {
    if (!root || !isAbsolute(file)) return file;
    const rel = relative(root, file);
    return rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : file;
  };
  const files = ['file_path', 'notebook_path', 'path']
    .map((k) => toolInput[k])
    .filter((v): v is string => typeof v === 'string' && v !== '')
    .map(within);
  const event: ToolEvent = { tool: input.toolName?.toLowerCase(), ...todoFields(input.toolName, toolInput, input.toolResponse) };
  if (files.length) event.files = [...new Set(files)];
  if (typeof toolInput.command === 'string') event.command = toolInput.command;
  if (input.event === 'PostToolUseFailure') {
    if (input.isInterrupt) {
      event.is_interrupt = true;
      return event;
    }
    const message = input.error ?? 'the tool failed';
    event.error = message;
    event.output = message;
    const code = /\bexit code:?\s*(\d+)/i.exec(message);
    event.exit_code = code ? Number(code[1]) : 1;
    return event;
  }
  const output = responseText(input.toolResponse);
  if (output !== undefined) event.output = output;
  // Claude Code fires PostToolUse only when the tool succeeded.
  event.exit_code = 0;
  return event;
}

export interface HookOutput {
  hookSpecificOutput: { hookEventName: ClaudeHookEvent; additionalContext: string };
}

export function hookOutput(event: ClaudeHookEvent, additionalContext: string): HookOutput {
  if (additionalContext.length > CLAUDE_CONTEXT_CAP) throw new Error(`additional context of ${additionalContext.length} characters is over Claude Code's cap`);
  return { hookSpecificOutput: { hookEventName: event, additionalContext } };
}
