// Pure: Qwen Code's hook protocol (docs/hooks.md, checked on 0.24.4): Claude Code's model. Every
// event's stdin is one JSON object with session_id, transcript_path (the chat JSONL), cwd,
// hook_event_name and the event's own fields. UserPromptSubmit fires again after each tool round
// with `prompt: ""`: that is no new prompt (wmem ignores it, so nothing is counted or sent twice).
// A failing shell command is a PostToolUseFailure whose `error` is Qwen's shell report
// (`Command: …\nDirectory: …\nOutput: …\nError: …\nExit Code: N\n…`).
import { isAbsolute } from 'node:path';
import { eventByName, type AgentEvent, type HookInput } from '../adapter.js';
import { CLAUDE_EVENTS } from '../claude/protocol.js';
import { additionalContextAnswer, parseHookJson, str } from '../hook-json.js';
import { within, withOutcome } from '../tool-event.js';
import { entryOf, isObject } from '../../ui/json.js';
import type { ToolEvent } from '../../memory/hot-state.js';
import { QWEN_NAMES } from './names.js';

/** Claude Code's events (Qwen took its hook model), and two more it fires that wmem leaves alone. */
export const QWEN_EVENTS: readonly AgentEvent[] = [...CLAUDE_EVENTS, { name: 'PreToolUse', moment: 'ignore' }, { name: 'Stop', moment: 'ignore' }];

/** Qwen sets no cap of its own; wmem keeps Claude Code's. */
export const QWEN_CONTEXT_CAP = 10_000;

export function qwenEvent(name: string): AgentEvent | undefined {
  return eventByName(QWEN_EVENTS, name);
}

const AGENT = { ...QWEN_NAMES, eventFor: qwenEvent };

/** Qwen's shell report: the command's output, its exit code, and what its Error line says. */
export function shellReport(text: string): { output?: string; exitCode?: number; error?: string } {
  const trailer = '(?:Error|Exit Code|Signal|Background PIDs|Process Group PGID)';
  const output = new RegExp(`(?:^|\\n)Output: ([\\s\\S]*?)(?=\\n${trailer}: |$)`).exec(text)?.[1];
  const exit = /(?:^|\n)Exit Code: (-?\d+)/.exec(text)?.[1];
  const error = /(?:^|\n)Error: (.*)/.exec(text)?.[1]?.trim();
  return { ...(output !== undefined ? { output } : {}), ...(exit !== undefined ? { exitCode: Number(exit) } : {}), ...(error && error !== '(none)' ? { error } : {}) };
}

function responseText(response: unknown): string | undefined {
  if (typeof response === 'string') return response;
  if (Array.isArray(response)) return response.map(responseText).filter(Boolean).join('\n') || undefined;
  if (!isObject(response)) return undefined;
  return str(response.llmContent) ?? str(response.output) ?? str(response.text) ?? str(response.returnDisplay);
}

/** Parses what Qwen Code writes on a hook's stdin. Throws HookInputError on anything malformed. */
export function parseQwenInput(text: string, event: AgentEvent, env: NodeJS.ProcessEnv): HookInput {
  const { input, raw } = parseHookJson(text, event, AGENT);
  const projectDir = str(env.QWEN_PROJECT_DIR);
  if (projectDir && isAbsolute(projectDir)) input.projectDir = projectDir;
  if (event.moment === 'after-compact') input.summary = str(raw.compact_summary);
  // The UserPromptSubmit after a tool round carries no prompt: the turn goes on, nothing is new.
  if (event.moment === 'prompt' && raw.prompt === '') return { ...input, moment: 'ignore' };
  if (!input.tool) return input;
  if (input.moment === 'tool-done') return { ...input, tool: { ...input.tool, response: responseText(raw.tool_response) } };
  const report = shellReport(input.tool.error ?? '');
  const first = [report.output, report.error].filter((s) => s && s !== '(empty)').join('\n').trim();
  return { ...input, tool: { ...input.tool, ...(report.exitCode !== undefined ? { exitCode: report.exitCode } : {}), error: first || input.tool.error || 'the tool failed', response: report.output } };
}

/** Qwen's tool names in wmem's generic ones (hot-state's actionFor knows read_file, write_file, edit). */
const TOOL_NAMES: Record<string, string> = { run_shell_command: 'bash', grep_search: 'grep', list_directory: 'ls', glob: 'glob' };

/** A tool moment as a `wmem track` event; paths inside `root` are kept relative to it. */
export function qwenToolEvent(input: HookInput, root?: string): ToolEvent {
  const tool = input.tool ?? {};
  const args = tool.input ?? {};
  const name = tool.name?.toLowerCase();
  const event: ToolEvent = { tool: (name && entryOf(TOOL_NAMES, name)) ?? name };
  if (typeof args.command === 'string') event.command = args.command;
  const file = ['file_path', 'absolute_path', 'path'].map((k) => args[k]).find((v): v is string => typeof v === 'string' && v !== '');
  if (file) event.files = [within(file, root)];
  const output = typeof tool.response === 'string' ? tool.response : undefined;
  if (output !== undefined) event.output = output;
  if (input.moment === 'tool-failed' && tool.isInterrupt) return { ...event, is_interrupt: true };
  // Qwen fires PostToolUse only when the tool succeeded.
  if (input.moment === 'tool-done') event.exit_code = 0;
  return withOutcome(event, input, output, 'the tool failed');
}

/** The answer: hookSpecificOutput.additionalContext at UserPromptSubmit, a part of the user's turn. */
export function qwenAnswer(input: HookInput, additionalContext: string): unknown | undefined {
  if (input.moment !== 'prompt') return undefined;
  return additionalContextAnswer(input.event, additionalContext, QWEN_CONTEXT_CAP, 'Qwen Code');
}
