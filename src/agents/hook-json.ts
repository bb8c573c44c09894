// Pure: the hook input most agents share (Claude Code, Codex, Gemini CLI all write one JSON
// object on stdin with session_id, transcript_path, cwd, hook_event_name and the event's own
// fields, in snake_case). An adapter whose agent speaks this shape parses with `parseHookJson`
// and adds what is its own.
import { HookInputError, type AgentEvent, type HookInput } from './adapter.js';
import { jsonBreak } from '../ui/errors.js';
import { isObject } from '../ui/json.js';

export { isObject };

export function str(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/**
 * JSON.parse of a hook's stdin. Its error never quotes the input: Node's own message shows the
 * first bytes, which may be a secret, and the message goes to the hook log.
 */
export function parseHookText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new HookInputError(`hook input is not JSON (${jsonBreak(err, text)})`);
  }
}

/** What `parseHookJson` needs to know of the agent. */
export interface JsonHookAgent {
  id: string;
  displayName: string;
  eventFor(name: string): AgentEvent | undefined;
}

/** The JSON object on stdin. Throws HookInputError on anything malformed. */
export function readHookObject(text: string, event: AgentEvent, agent: JsonHookAgent): Record<string, unknown> {
  if (!text.trim()) throw new HookInputError(`empty hook input on stdin (expected the JSON ${agent.displayName} sends)`);
  const raw = parseHookText(text);
  if (!isObject(raw)) throw new HookInputError('hook input is not a JSON object');
  const named = str(raw.hook_event_name);
  if (named && agent.eventFor(named)?.name !== event.name) {
    throw new HookInputError(`hook input is for ${named}, but the command is 'wmem hook --agent ${agent.id} ${event.name}'`);
  }
  for (const key of ['session_id', 'transcript_path', 'cwd'] as const) {
    if (raw[key] !== undefined && raw[key] !== null && typeof raw[key] !== 'string') throw new HookInputError(`hook input field ${key} is not a string`);
  }
  return raw;
}

/**
 * Whether the agent marks the event as a subagent's or a side chain's: Claude Code adds
 * `agent_id` (and `agent_type`) to the input of hooks that fire inside a subagent (absent on the
 * main thread, per its 2.1 input schema); a parent session or thread id, or `isSidechain`, say
 * the same wherever an agent sends them.
 */
export function fromSubagent(raw: Record<string, unknown>): boolean {
  return !!(str(raw.agent_id) || str(raw.parent_session_id) || str(raw.parent_thread_id) || raw.isSidechain === true || raw.is_sidechain === true);
}

/** The common fields as a neutral HookInput. */
export function parseHookJson(text: string, event: AgentEvent, agent: JsonHookAgent): { input: HookInput; raw: Record<string, unknown> } {
  const raw = readHookObject(text, event, agent);
  const input: HookInput = {
    agent: agent.id,
    event: event.name,
    moment: event.moment,
    sessionId: str(raw.session_id),
    transcriptPath: str(raw.transcript_path),
    cwd: str(raw.cwd),
    source: str(raw.source),
    model: str(raw.model),
    trigger: str(raw.trigger),
    reason: str(raw.reason),
    prompt: str(raw.prompt),
  };
  if (fromSubagent(raw)) input.subagent = true;
  if (event.moment === 'tool-done' || event.moment === 'tool-failed') {
    input.tool = {
      name: str(raw.tool_name),
      input: isObject(raw.tool_input) ? raw.tool_input : undefined,
      response: raw.tool_response,
      id: str(raw.tool_use_id),
    };
    // Only the agents that send them (Claude Code's PostToolUseFailure) get these fields.
    const error = str(raw.error);
    if (error) input.tool.error = error;
    if (typeof raw.is_interrupt === 'boolean') input.tool.isInterrupt = raw.is_interrupt;
  }
  return { input, raw };
}

/** The usual answer: `{"hookSpecificOutput":{"hookEventName", "additionalContext"}}`, checked against the cap. */
export function additionalContextAnswer(event: string, additionalContext: string, cap: number, agentName: string): unknown {
  if (additionalContext.length > cap) throw new Error(`additional context of ${additionalContext.length} characters is over ${agentName}'s cap`);
  return { hookSpecificOutput: { hookEventName: event, additionalContext } };
}
