// Pure (but for the transcript read in droidFailure): Factory Droid's side of the hook protocol
// (docs/hooks.md, checked on 0.215.0). Droid runs Claude Code's hook model: the same snake_case
// input (session_id, transcript_path, cwd, hook_event_name, source, trigger, tool_name,
// tool_input, tool_response) and the same answer (hookSpecificOutput.additionalContext, a user
// message of its own at SessionStart, UserPromptSubmit and PostToolUse). It has no failure event:
// PostToolUse fires on success only, and a failed command shows only in the transcript, as a
// `tool_result` with `is_error` whose first line is `Error: Command failed (exit code: N)`. So
// Stop (the end of each turn) reads the turn's last failed tool result from the transcript, and is
// ignored when the turn had none. A compaction starts a session with a new id whose transcript
// names its parent: wmem keeps one session across the chain (completeDroidInput).
import { eventByName, type AgentEvent, type HookInput } from '../adapter.js';
import type { ToolEvent } from '../../memory/hot-state.js';
import { toolEventFrom } from '../claude/protocol.js';
import { mayReadTranscript } from '../transcript-path.js';
import { additionalContextAnswer, isObject, parseHookJson, str } from '../hook-json.js';
import { DROID_NAMES } from './names.js';

export const DROID_EVENTS: readonly AgentEvent[] = [
  { name: 'SessionStart', moment: 'session-start' },
  { name: 'UserPromptSubmit', moment: 'prompt' },
  { name: 'PostToolUse', moment: 'tool-done' },
  // The end of a turn: a failed tool call of that turn, read from the transcript (else ignored).
  { name: 'Stop', moment: 'tool-failed' },
  { name: 'PreCompact', moment: 'before-compact' },
  { name: 'SessionEnd', moment: 'session-end' },
];

/** Droid's additional context lands as a user message; wmem keeps Claude Code's cap. */
export const DROID_CONTEXT_CAP = 10_000;

export function droidEvent(name: string): AgentEvent | undefined {
  return eventByName(DROID_EVENTS, name);
}

const AGENT = { ...DROID_NAMES, eventFor: droidEvent };

export function parseDroidInput(text: string, event: AgentEvent): HookInput {
  const { input } = parseHookJson(text, event, AGENT);
  return input;
}

/** Droid takes additional context from SessionStart and UserPromptSubmit (PostToolUse's is not wanted). */
export function droidAnswer(input: HookInput, additionalContext: string): unknown {
  if (input.event !== 'SessionStart' && input.event !== 'UserPromptSubmit') return undefined;
  return additionalContextAnswer(input.event, additionalContext, DROID_CONTEXT_CAP, 'Factory Droid');
}

/** Droid's failure text less its own frame (`Error: Command failed (exit code: N)`, `[Process exited with code N]`). */
export function failureMessage(content: string): { message: string; exitCode?: number } {
  const code = /\bexit(?:ed with)? code:?\s*(\d+)/i.exec(content);
  const lines = content
    .split('\n')
    .filter((l) => !/^Error: Command failed \(exit code: \d+\)$/.test(l.trim()) && !/^\[Process exited with code \d+\]$/.test(l.trim()))
    .join('\n')
    .trim();
  return { message: lines || content.trim(), ...(code ? { exitCode: Number(code[1]) } : {}) };
}

type Line = Record<string, unknown>;

function contentOf(line: Line): unknown[] {
  const message = isObject(line.message) ? line.message : undefined;
  return Array.isArray(message?.content) ? message.content : [];
}

/** A user's own prompt in the transcript (not a hook's message, not a tool result). */
export function isPrompt(line: Line): boolean {
  const message = isObject(line.message) ? line.message : undefined;
  return message?.role === 'user' && !str(message.hookEventName) && !String(line.id ?? '').startsWith('context-') && contentOf(line).some((p) => isObject(p) && p.type === 'text');
}

const failedResult = (part: unknown) => isObject(part) && part.type === 'tool_result' && part.is_error === true;

/**
 * Whether a transcript line, by its raw bytes, can change what lastTurnFailure finds, given the
 * lines after it (`newer`, newest first): a prompt (JSON can only spell `"user"` and `"text"` so,
 * or behind a \u escape), a tool result that says `"is_error"`, or a `"tool_use"` older than a
 * failed result. A tool call with no failure after it cannot be the one looked up.
 */
export function mayMatterToTurn(bytes: Buffer, newer: readonly Line[]): boolean {
  if (bytes.includes('\\u') || bytes.includes('"is_error"') || (bytes.includes('"user"') && bytes.includes('"text"'))) return true;
  return bytes.includes('"tool_use"') && newer.some((line) => contentOf(line).some(failedResult));
}

/**
 * The last failed tool call of the transcript's last turn (the lines after the last prompt): its
 * name and input from the `tool_use`, its failure from the `tool_result`. Pure over the lines.
 */
export function lastTurnFailure(lines: Line[]): HookInput['tool'] | undefined {
  const start = lines.map(isPrompt).lastIndexOf(true);
  const turn = lines.slice(start + 1);
  const uses = new Map<string, Line>();
  let failed: HookInput['tool'] | undefined;
  for (const line of turn) {
    for (const part of contentOf(line)) {
      if (!isObject(part)) continue;
      if (part.type === 'tool_use' && typeof part.id === 'string') uses.set(part.id, part);
      if (failedResult(part)) {
        const use = uses.get(String(part.tool_use_id));
        const text = typeof part.content === 'string' ? part.content : JSON.stringify(part.content ?? '');
        const { message, exitCode } = failureMessage(text);
        failed = { name: str(use?.name), input: isObject(use?.input) ? use.input : undefined, id: str(part.tool_use_id), error: message, ...(exitCode !== undefined ? { exitCode } : {}) };
      }
    }
  }
  return failed;
}

/**
 * The input completed from Droid's files. A session that a compaction started (Droid gives it a new
 * id) is the wmem session of the one it continues, and its SessionStart(compact) is answered as a
 * resume of the parent's conversation: Droid keeps a short conversation verbatim after its summary,
 * memory copy included, so only what changed since goes again. Stop: the turn's failed call
 * becomes tool-failed, or the event is ignored when there was none.
 */
export async function completeDroidInput(input: HookInput): Promise<HookInput> {
  // A path the transcript rule refuses is never read here (the moments then refuse it and log).
  if (!mayReadTranscript(input.transcriptPath)) return input.event === 'Stop' ? { ...input, moment: 'ignore' } : input;
  const { compactionChain, readTail } = await import('./transcript.js');
  let next = input;
  const chain = await compactionChain(input.transcriptPath).catch(() => undefined);
  if (chain) {
    next = { ...next, sessionId: chain.root };
    if (input.source === 'compact') next = { ...next, source: 'resume', transcriptPath: chain.parentTranscript };
  }
  if (input.event !== 'Stop') return next;
  // Read back from the end to the turn's prompt only: lastTurnFailure looks at nothing before it.
  const tool = lastTurnFailure(readTail(input.transcriptPath, isPrompt, mayMatterToTurn));
  return tool ? { ...next, tool } : { ...next, moment: 'ignore' };
}

/** PostToolUse (a success) and the failure Stop found, as `wmem track` events (Claude Code's mapping). */
export function droidToolEvent(input: HookInput, root: string): ToolEvent {
  const event = toolEventFrom(input, root);
  if (input.moment === 'tool-failed' && input.tool?.exitCode !== undefined) event.exit_code = input.tool.exitCode;
  return event;
}
