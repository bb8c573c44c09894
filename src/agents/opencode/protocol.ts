// Pure: OpenCode's side of the hook protocol (SPEC §10.4, checked on 1.18.33). OpenCode runs no
// command hooks: wmem's plugin (templates/opencode-plugin.ts) runs `wmem hook --agent opencode
// EVENT` from its hooks and writes one JSON object on stdin: the event, sessionID, directory, the
// model ({providerID, modelID, limit}), the session's messages as the plugin's SDK client gives
// them ({info, parts}), and for tool.execute.after the tool call. OpenCode keeps messages and
// token use in SQLite, not in a file: the token use comes in the input (`HookInput.usage`), the
// messages too (`HookInput.conversation`, archived before a compaction).
import { eventByName, HookInputError, type AgentEvent, type HookInput, type UsageView } from '../adapter.js';
import type { ToolEvent } from '../../memory/hot-state.js';
import { parseHookText } from '../hook-json.js';
import { within, withOutcome } from '../tool-event.js';
import { entryOf, isObject } from '../../ui/json.js';

/** The plugin's events, named after the OpenCode hooks that run them. */
export const OPENCODE_EVENTS: readonly AgentEvent[] = [
  { name: 'system.transform', moment: 'session-start' },
  { name: 'chat.message', moment: 'prompt' },
  { name: 'tool.execute.after', moment: 'tool-done' },
  { name: 'session.compacting', moment: 'before-compact' },
  { name: 'session.compacted', moment: 'after-compact' },
  { name: 'session.idle', moment: 'session-end' },
  { name: 'session.deleted', moment: 'session-end' },
];

/** The plugin pushes the memory part as a system message; wmem keeps the cap it uses elsewhere. */
export const OPENCODE_CONTEXT_CAP = 10_000;

export function opencodeEvent(name: string): AgentEvent | undefined {
  return eventByName(OPENCODE_EVENTS, name);
}

type Json = Record<string, unknown>;

function str(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function num(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : 0;
}

/** A message as the SDK client lists it: `{info, parts}` (the plugin may leave parts out). */
export interface OpenCodeMessage {
  info: Json;
  parts?: unknown[];
}

function messagesOf(raw: unknown): OpenCodeMessage[] {
  if (raw === undefined) return [];
  if (!Array.isArray(raw)) throw new HookInputError('hook input field messages is not a list');
  return raw.filter((m): m is OpenCodeMessage => isObject(m) && isObject(m.info) && typeof m.info.id === 'string');
}

/**
 * The context in use after one assistant message. OpenCode's `tokens.input` leaves out cached
 * input (the provider's prompt_tokens minus cached_tokens); its `total` is prompt + completion,
 * the whole of what the request and its answer put in the context. Without a total: the sum.
 */
export function contextOf(tokens: unknown): number {
  if (!isObject(tokens)) return 0;
  if (num(tokens.total)) return num(tokens.total);
  const cache = isObject(tokens.cache) ? tokens.cache : {};
  return num(tokens.input) + num(tokens.output) + num(tokens.reasoning) + num(cache.read) + num(cache.write);
}

function isSummary(info: Json): boolean {
  return info.role === 'assistant' && info.summary === true;
}

/**
 * Token use from the session's messages: the last assistant message since the last compaction
 * (OpenCode's summary message, `summary: true`, is itself the compaction's request: not counted);
 * the window from the model's limit when the plugin saw it.
 */
export function usageFromMessages(messages: OpenCodeMessage[], window?: number): UsageView {
  const infos = messages.map((m) => m.info);
  let start = 0;
  infos.forEach((info, i) => {
    if (isSummary(info)) start = i + 1;
  });
  const last = infos.slice(start).reverse().find((info) => info.role === 'assistant' && contextOf(info.tokens) > 0);
  const view: UsageView = { lastUsage: last ? contextOf(last.tokens) : null };
  const model = str(last?.modelID);
  if (model) view.model = model;
  if (window) view.window = window;
  const summary = start > 0 ? infos[start - 1] : undefined;
  if (summary && !last && isObject(summary.tokens) && num(summary.tokens.output)) view.afterCompaction = num(summary.tokens.output);
  return view;
}

/** The text of a message's text parts (OpenCode's summary, a user prompt). */
export function textOf(message: OpenCodeMessage): string {
  return (message.parts ?? [])
    .filter((p): p is Json => isObject(p) && p.type === 'text' && typeof p.text === 'string' && !p.synthetic)
    .map((p) => String(p.text))
    .join('\n');
}

/** The summary OpenCode's last compaction wrote, if the messages hold one. */
export function compactionSummary(messages: OpenCodeMessage[]): string | undefined {
  const summary = [...messages].reverse().find((m) => isSummary(m.info));
  return summary ? textOf(summary).trim() || undefined : undefined;
}

function windowOf(model: unknown): number | undefined {
  const limit = isObject(model) && isObject(model.limit) ? model.limit : undefined;
  return limit && num(limit.context) ? num(limit.context) : undefined;
}

/** Parses what wmem's plugin writes on the hook's stdin. Throws HookInputError on anything malformed. */
export function parseOpenCodeInput(text: string, event: AgentEvent, agent = 'opencode'): HookInput {
  if (!text.trim()) throw new HookInputError("empty hook input on stdin (expected the JSON wmem's OpenCode plugin sends)");
  // Where the JSON broke, never its first bytes: they may be a secret, and failures are logged.
  const raw = parseHookText(text);
  if (!isObject(raw)) throw new HookInputError('hook input is not a JSON object');
  const named = str(raw.event);
  if (named && opencodeEvent(named)?.name !== event.name) throw new HookInputError(`hook input is for ${named}, but the command is 'wmem hook --agent ${agent} ${event.name}'`);
  for (const key of ['sessionID', 'directory', 'parentID'] as const) {
    if (raw[key] !== undefined && raw[key] !== null && typeof raw[key] !== 'string') throw new HookInputError(`hook input field ${key} is not a string`);
  }
  const model = isObject(raw.model) ? raw.model : undefined;
  const input: HookInput = {
    agent,
    event: event.name,
    moment: event.moment,
    sessionId: str(raw.sessionID),
    cwd: str(raw.directory),
    model: str(model?.modelID),
  };
  // A subagent's session (the plugin names its parent): its events count for the parent session.
  const parentID = str(raw.parentID);
  if (parentID) Object.assign(input, { subagent: true, sessionId: parentID });
  const messages = messagesOf(raw.messages);
  if (event.moment === 'session-start') input.source = 'startup';
  if (raw.messages !== undefined && (event.moment === 'prompt' || event.moment === 'session-end')) input.usage = usageFromMessages(messages, windowOf(model));
  if (event.moment === 'before-compact') {
    input.trigger = 'auto';
    // Each line made when asked for: the mirror asks only for the messages it does not hold yet
    // (a compaction late in a long session passes every message: store/conversation-file.ts).
    input.conversation = messages.map((m) => {
      let line: string | undefined;
      return {
        id: String(m.info.id),
        get line() {
          return (line ??= JSON.stringify(m)); // asked twice for a new message: made once
        },
      };
    });
  }
  if (event.moment === 'after-compact') {
    input.trigger = 'auto';
    input.summary = compactionSummary(messages);
  }
  if (event.name === 'session.deleted') input.reason = 'deleted';
  if (event.moment === 'tool-done') input.tool = toolOf(raw.tool);
  return outcomeOf(input);
}

function toolOf(raw: unknown): HookInput['tool'] {
  if (!isObject(raw)) throw new HookInputError('tool.execute.after input has no tool object');
  const metadata = isObject(raw.metadata) ? raw.metadata : {};
  return {
    name: str(raw.tool),
    input: isObject(raw.args) ? raw.args : undefined,
    response: typeof raw.output === 'string' ? raw.output : metadata.output,
    id: str(raw.callID),
    // OpenCode's bash tool reports the command's exit code in its metadata.
    exitCode: typeof metadata.exit === 'number' ? metadata.exit : undefined,
  };
}

/** A command that exited non-zero is a failed tool call (its output is the error). */
function outcomeOf(input: HookInput): HookInput {
  const tool = input.tool;
  if (!tool || tool.exitCode === undefined || tool.exitCode === 0) return input;
  const output = typeof tool.response === 'string' ? tool.response.trim() : '';
  return { ...input, moment: 'tool-failed', tool: { ...tool, error: output || `the command failed with exit code ${tool.exitCode}` } };
}

/** OpenCode's tools by the name wmem's hot state knows (read, edit, write, grep, bash). */
const TOOL_NAMES: Record<string, string> = { multiedit: 'edit', patch: 'edit', apply_patch: 'edit', glob: 'grep', list: 'read' };

/** A tool moment as a `wmem track` event; paths inside `root` are kept relative to it. */
export function opencodeToolEvent(input: HookInput, root?: string): ToolEvent {
  const tool = input.tool ?? {};
  const args = tool.input ?? {};
  const name = tool.name?.toLowerCase();
  const event: ToolEvent = { tool: name ? (entryOf(TOOL_NAMES, name) ?? name) : undefined };
  if (typeof args.command === 'string') event.command = args.command;
  const file = ['filePath', 'file_path', 'path'].map((k) => args[k]).find((v): v is string => typeof v === 'string' && v !== '');
  if (file) event.files = [within(file, root)];
  const output = typeof tool.response === 'string' ? tool.response : undefined;
  if (output !== undefined) event.output = output;
  return withOutcome(event, input, output, 'the command failed');
}

/**
 * The answer the plugin reads: `{context}` for the memory part (system) or the meter (the turn);
 * at a prompt, `memory` too when the memory part changed: the plugin puts it in the system prompt
 * in place of the copy it holds.
 */
export function opencodeAnswer(input: HookInput, additionalContext: string, memory?: string): unknown | undefined {
  if (input.moment !== 'session-start' && input.moment !== 'prompt') return undefined;
  for (const text of [additionalContext, memory ?? '']) {
    if (text.length > OPENCODE_CONTEXT_CAP) throw new Error(`additional context of ${text.length} characters is over the cap`);
  }
  return memory !== undefined && input.moment === 'prompt' ? { context: additionalContext, memory } : { context: additionalContext };
}
