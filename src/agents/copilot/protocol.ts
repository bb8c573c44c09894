// Pure: the GitHub Copilot CLI's hook protocol (docs/hooks.md, checked on 1.0.102). A hook whose
// event is spelled in camelCase gets camelCase input: `{sessionId, timestamp, cwd}` plus the
// event's own fields (sessionStart `source` new|startup|resume, userPromptSubmitted `prompt`,
// postToolUse `toolName`, `toolArgs`, `toolResult {resultType, textResultForLlm}`,
// postToolUseFailure `error`, preCompact `transcriptPath`, `trigger`). Only a flat
// `{"additionalContext"}` is honoured (Claude's `hookSpecificOutput` is silently ignored). A shell
// command that exits non-zero is still a postToolUse: its exit code is only in the result's last line.
import { isAbsolute, join } from 'node:path';
import os from 'node:os';
import { eventByName, HookInputError, type AgentEvent, type HookInput } from '../adapter.js';
import { parseHookText, str } from '../hook-json.js';
import { within, withOutcome } from '../tool-event.js';
import { isObject } from '../../ui/json.js';
import type { ToolEvent } from '../../memory/hot-state.js';

/**
 * The events wmem answers, and those it names so that a stray install of them is understood.
 * There is no postCompact: the compaction shows in events.jsonl (`session.compaction_complete`).
 */
export const COPILOT_EVENTS: readonly AgentEvent[] = [
  { name: 'sessionStart', moment: 'session-start' },
  { name: 'userPromptSubmitted', moment: 'prompt' },
  { name: 'postToolUse', moment: 'tool-done' },
  { name: 'postToolUseFailure', moment: 'tool-failed' },
  { name: 'preCompact', moment: 'before-compact' },
  { name: 'sessionEnd', moment: 'session-end' },
  { name: 'preToolUse', moment: 'ignore' },
  { name: 'agentStop', moment: 'ignore' },
  { name: 'subagentStop', moment: 'ignore' },
  { name: 'errorOccurred', moment: 'ignore' },
];

/** Copilot sets no cap of its own; wmem keeps Claude Code's. */
export const COPILOT_CONTEXT_CAP = 10_000;

export function copilotEvent(name: string): AgentEvent | undefined {
  return eventByName(COPILOT_EVENTS, name);
}

/** Copilot's home folder: `$COPILOT_HOME`, else `~/.copilot`. */
export function copilotDir(env: NodeJS.ProcessEnv): string {
  return env.COPILOT_HOME || join(env.HOME || os.homedir(), '.copilot');
}

/** A session id Copilot makes (a UUID): anything else never becomes a path. */
const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;

/**
 * Copilot's log of the session, `<COPILOT_HOME>/session-state/<id>/events.jsonl`: only agentStop
 * and preCompact name it, so the other events find it from the session id.
 */
export function eventsFile(sessionId: string, env: NodeJS.ProcessEnv): string | undefined {
  return SESSION_ID.test(sessionId) ? join(copilotDir(env), 'session-state', sessionId, 'events.jsonl') : undefined;
}

/** What `<shellId: N completed with exit code K>` (the result's last line) says, if it is there. */
export function shellExit(text: string): { output: string; exitCode: number } | undefined {
  const m = /\n?<shellId: [^>]*? completed with exit code (-?\d+)>\s*$/.exec(text);
  return m ? { output: text.slice(0, m.index), exitCode: Number(m[1]) } : undefined;
}

function parseTool(raw: Record<string, unknown>, input: HookInput): HookInput {
  const tool = { name: str(raw.toolName), input: isObject(raw.toolArgs) ? raw.toolArgs : undefined } as NonNullable<HookInput['tool']>;
  if (input.moment === 'tool-failed') {
    const error = str(raw.error) ?? (isObject(raw.error) ? str(raw.error.message) : undefined);
    return { ...input, tool: { ...tool, error: error ?? 'the tool failed' } };
  }
  const result = isObject(raw.toolResult) ? raw.toolResult : {};
  const text = str(result.textResultForLlm);
  if (result.resultType === 'failure') return { ...input, moment: 'tool-failed', tool: { ...tool, error: text ?? 'the tool failed', response: text } };
  const shell = text === undefined ? undefined : shellExit(text);
  if (!shell) return { ...input, tool: { ...tool, response: text } };
  const done = { ...tool, response: shell.output, exitCode: shell.exitCode };
  if (shell.exitCode === 0) return { ...input, tool: done };
  return { ...input, moment: 'tool-failed', tool: { ...done, error: shell.output.trim() || `the command failed with exit code ${shell.exitCode}` } };
}

/** Parses what Copilot CLI writes on a hook's stdin. Throws HookInputError on anything malformed. */
export function parseCopilotInput(text: string, event: AgentEvent, env: NodeJS.ProcessEnv): HookInput {
  if (!text.trim()) throw new HookInputError('empty hook input on stdin (expected the JSON GitHub Copilot CLI sends)');
  const raw = parseHookText(text);
  if (!isObject(raw)) throw new HookInputError('hook input is not a JSON object');
  for (const key of ['sessionId', 'transcriptPath', 'cwd'] as const) {
    if (raw[key] !== undefined && raw[key] !== null && typeof raw[key] !== 'string') throw new HookInputError(`hook input field ${key} is not a string`);
  }
  const sessionId = str(raw.sessionId);
  const input: HookInput = {
    agent: 'copilot',
    event: event.name,
    moment: event.moment,
    sessionId,
    transcriptPath: str(raw.transcriptPath) ?? (sessionId ? eventsFile(sessionId, env) : undefined),
    cwd: str(raw.cwd),
    source: str(raw.source),
    trigger: str(raw.trigger),
    reason: str(raw.reason),
    prompt: str(raw.prompt),
  };
  const projectDir = str(env.COPILOT_PROJECT_DIR);
  if (projectDir && isAbsolute(projectDir)) input.projectDir = projectDir;
  return event.moment === 'tool-done' || event.moment === 'tool-failed' ? parseTool(raw, input) : input;
}

/** A tool moment as a `wmem track` event; paths inside `root` are kept relative to it. */
export function copilotToolEvent(input: HookInput, root?: string): ToolEvent {
  const tool = input.tool ?? {};
  const args = tool.input ?? {};
  // Copilot's names (bash, view, create, edit, str_replace) are ones hot-state's actionFor knows.
  const event: ToolEvent = { tool: tool.name?.toLowerCase() };
  if (typeof args.command === 'string') event.command = args.command;
  const file = ['path', 'file_path', 'filePath'].map((k) => args[k]).find((v): v is string => typeof v === 'string' && v !== '');
  if (file) event.files = [within(file, root)];
  const output = typeof tool.response === 'string' ? tool.response : undefined;
  if (output !== undefined) event.output = output;
  return withOutcome(event, input, output, 'the tool failed');
}

/**
 * The answer: a flat `{"additionalContext"}` (the only shape Copilot honours) at
 * userPromptSubmitted, a reminder appended to the prompt and kept with it in the history. Nothing
 * at sessionStart: Copilot runs it at the same time as the first userPromptSubmitted (both would
 * race to give the first copy), and drops its text on a resume. Nothing at postToolUse: its text
 * would be appended to the tool's result.
 */
export function copilotAnswer(input: HookInput, additionalContext: string): unknown | undefined {
  if (input.moment !== 'prompt') return undefined;
  if (additionalContext.length > COPILOT_CONTEXT_CAP) throw new Error(`additional context of ${additionalContext.length} characters is over GitHub Copilot CLI's cap`);
  return { additionalContext };
}
