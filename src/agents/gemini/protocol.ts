// Pure: the Gemini CLI's hook protocol (docs/hooks.md, checked on 0.61.0). Every event's stdin is one
// JSON object with session_id, transcript_path (the chat JSONL), cwd, hook_event_name, timestamp
// and the event's own fields; the environment adds GEMINI_SESSION_ID and GEMINI_PROJECT_DIR.
// AfterTool's tool_response is `{llmContent, returnDisplay, error?}`: a shell command's exit code
// is only in llmContent (`Exit Code: N`, written when it is not 0).
import { isAbsolute } from 'node:path';
import { eventByName, type AgentEvent, type HookInput } from '../adapter.js';
import { additionalContextAnswer, isObject, parseHookJson, str } from '../hook-json.js';
import { entryOf } from '../../ui/json.js';
import { within, withOutcome } from '../tool-event.js';
import type { ToolEvent } from '../../memory/hot-state.js';
import { GEMINI_NAMES } from './names.js';

/**
 * The events wmem answers. PreCompress fires before every model call, compression or not
 * (google-gemini/gemini-cli#18083): `speculative`. BeforeTool, AfterAgent, BeforeModel and
 * AfterModel are named so that a stray install of them is understood, but wmem does nothing there.
 */
export const GEMINI_EVENTS: readonly AgentEvent[] = [
  { name: 'SessionStart', moment: 'session-start' },
  { name: 'BeforeAgent', moment: 'prompt' },
  { name: 'BeforeTool', moment: 'ignore' },
  { name: 'AfterTool', moment: 'tool-done' },
  { name: 'PreCompress', moment: 'before-compact', speculative: true },
  { name: 'AfterAgent', moment: 'ignore' },
  { name: 'BeforeModel', moment: 'ignore' },
  { name: 'AfterModel', moment: 'ignore' },
  { name: 'SessionEnd', moment: 'session-end' },
];

/** Gemini puts SessionStart's text before the prompt and BeforeAgent's beside it; wmem keeps Claude Code's cap. */
export const GEMINI_CONTEXT_CAP = 10_000;

export function geminiEvent(name: string): AgentEvent | undefined {
  return eventByName(GEMINI_EVENTS, name);
}

const AGENT = { ...GEMINI_NAMES, eventFor: geminiEvent };

/** The text of a tool's llmContent: a string, a part, or a list of parts. */
export function llmText(content: unknown): string | undefined {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    const texts = content.map(llmText).filter((t): t is string => t !== undefined);
    return texts.length ? texts.join('\n') : undefined;
  }
  if (isObject(content) && typeof content.text === 'string') return content.text;
  return undefined;
}

/** What a shell tool's llmContent says: its output, error and exit code (absent: it exited 0). */
export interface ShellOutcome {
  output?: string;
  error?: string;
  exitCode?: number;
  cancelled?: boolean;
}

/** Reads Gemini's shell result text: `Output: …\nError: …\nExit Code: N\nSignal: …\nProcess Group PGID: N`. */
export function shellOutcome(text: string): ShellOutcome {
  const body = text.replace(/^\s*<untrusted_context>\n?/, '').replace(/\n?<\/untrusted_context>\s*$/, '');
  if (/^Command was (?:cancelled|automatically cancelled)/.test(body)) return { cancelled: true, output: body };
  const out: ShellOutcome = {};
  // Output runs up to the first of Gemini's own trailer lines.
  const trailer = /\n(?=(?:Error|Exit Code|Signal|Background PIDs|Process Group PGID): )/;
  const [first, ...rest] = body.split(trailer);
  if (first.startsWith('Output: ')) out.output = first.slice('Output: '.length);
  for (const line of rest) {
    const [key, ...value] = line.split(': ');
    const text = value.join(': ').trim();
    if (key === 'Exit Code' && /^-?\d+$/.test(text)) out.exitCode = Number(text);
    else if (key === 'Error') out.error = text;
  }
  if (out.exitCode === undefined && out.output !== undefined && !out.error && !/\nSignal: /.test(body)) out.exitCode = 0;
  return out;
}

/** Parses what Gemini CLI writes on a hook's stdin. Throws HookInputError on anything malformed. */
export function parseGeminiInput(text: string, event: AgentEvent, env: NodeJS.ProcessEnv): HookInput {
  const { input, raw } = parseHookJson(text, event, AGENT);
  input.sessionId ??= str(env.GEMINI_SESSION_ID);
  const projectDir = str(env.GEMINI_PROJECT_DIR);
  if (projectDir && isAbsolute(projectDir)) input.projectDir = projectDir;
  if (!input.tool) return input;
  const response = isObject(raw.tool_response) ? raw.tool_response : {};
  const content = llmText(response.llmContent);
  const error = isObject(response.error) ? str(response.error.message) : str(response.error);
  input.tool.response = content ?? response.returnDisplay;
  if (error) return { ...input, moment: 'tool-failed', tool: { ...input.tool, error } };
  if (input.tool.name !== 'run_shell_command' || content === undefined) return input;
  const shell = shellOutcome(content);
  if (shell.cancelled) return { ...input, moment: 'tool-failed', tool: { ...input.tool, isInterrupt: true, error: content } };
  // An error without an exit code (the shell could not start the command) is a failure too.
  const exitCode = shell.exitCode ?? (shell.error ? 1 : undefined);
  const tool = { ...input.tool, exitCode, response: shell.output ?? content };
  if (exitCode === undefined || exitCode === 0) return { ...input, tool };
  const message = [shell.output, shell.error].filter((s) => s && s !== '(empty)').join('\n').trim();
  return { ...input, moment: 'tool-failed', tool: { ...tool, error: message || `the command failed with exit code ${exitCode}` } };
}

/** Gemini's tool names in wmem's generic ones (hot-state's actionFor knows read_file, write_file, replace). */
const TOOL_NAMES: Record<string, string> = {
  run_shell_command: 'bash',
  grep_search: 'grep',
  search_file_content: 'grep',
  list_directory: 'ls',
  read_many_files: 'read',
};

/** A tool moment as a `wmem track` event; paths inside `root` are kept relative to it. */
export function geminiToolEvent(input: HookInput, root?: string): ToolEvent {
  const tool = input.tool ?? {};
  const toolInput = tool.input ?? {};
  const name = tool.name?.toLowerCase();
  const event: ToolEvent = { tool: (name && entryOf(TOOL_NAMES, name)) ?? name };
  if (typeof toolInput.command === 'string') event.command = toolInput.command;
  const file = ['file_path', 'absolute_path', 'path', 'dir_path'].map((k) => toolInput[k]).find((v): v is string => typeof v === 'string' && v !== '');
  if (file) event.files = [within(file, root)];
  const output = typeof tool.response === 'string' ? tool.response : undefined;
  if (output !== undefined) event.output = output;
  if (input.moment === 'tool-failed' && tool.isInterrupt) event.is_interrupt = true;
  return withOutcome(event, input, output, 'the tool failed');
}

/**
 * The answer: additional context at BeforeAgent, which Gemini adds as a part of the user's turn.
 * Nothing anywhere else: SessionStart's text is prepended to the prompt, and Gemini drops a user
 * turn that starts with <hook_context> when it rebuilds a resumed history (the prompt and its
 * reply go with it); AfterTool's text would be appended to the tool's result.
 */
export function geminiAnswer(input: HookInput, additionalContext: string): unknown | undefined {
  if (input.moment !== 'prompt') return undefined;
  return additionalContextAnswer(input.event, additionalContext, GEMINI_CONTEXT_CAP, 'Gemini CLI');
}
