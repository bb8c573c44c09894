// Pure: what compaction needs to know about one line of a history — whether it starts a turn,
// which tool calls / results / split responses tie it to other lines, and its content as
// readable parts (text, thinking, tool calls, tool results, images) for transcripts and summaries.
import { classifyLine, isObject, type LineInfo, type MessageLine } from './lines.js';

export interface LineFacts {
  info: LineInfo;
  /** The message's parts (empty for other lines). */
  parts: Part[];
  /** A user message that opens a turn (not a tool result, not injected metadata). */
  turnStart: boolean;
  /** Ids that must stay on one side of a cut: tool call ids and Claude Code `message.id`s. */
  links: Link[];
}

export interface Link {
  id: string;
  /** A call opens a pair, a result closes it; a split response (`msg`) just spans its lines. */
  role: 'use' | 'result' | 'msg';
}

export type PartKind = 'text' | 'thinking' | 'tool_use' | 'tool_result' | 'image' | 'other';

export interface Part {
  kind: PartKind;
  text: string;
  /** Tool name for tool_use. */
  name?: string;
  /** Tool call id for tool_use / tool_result. */
  id?: string;
  /** Parsed input of a tool call (object), when there is one. */
  input?: Record<string, unknown>;
  isError?: boolean;
}

/** The object holding role/content: Claude Code's `message`, Codex's `payload`, or the line itself. */
export function messageRoot(info: MessageLine): Record<string, unknown> {
  const v = info.value;
  if (isObject(v.message)) return v.message;
  if (isObject(v.payload)) return v.payload;
  return v;
}

function blocks(content: unknown): unknown[] {
  if (Array.isArray(content)) return content;
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return [];
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .map((b) => (typeof b === 'string' ? b : isObject(b) && typeof b.text === 'string' ? b.text : isObject(b) && b.type === 'image' ? '[image]' : ''))
      .filter(Boolean)
      .join('\n');
  }
  if (isObject(content) && typeof content.text === 'string') return content.text;
  return '';
}

function parseArgs(raw: unknown): Record<string, unknown> | undefined {
  if (isObject(raw)) return raw;
  if (typeof raw !== 'string') return undefined;
  try {
    const parsed = JSON.parse(raw);
    return isObject(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/** The readable parts of a message, in order. */
export function messageParts(info: MessageLine): Part[] {
  const root = messageRoot(info);
  const parts: Part[] = [];
  // Codex rollout items.
  if (root.type === 'function_call' || root.type === 'custom_tool_call') {
    const args = root.arguments ?? root.input;
    parts.push({ kind: 'tool_use', name: String(root.name ?? 'tool'), id: str(root.call_id), text: typeof args === 'string' ? args : JSON.stringify(args ?? {}), input: parseArgs(args) });
    return parts;
  }
  if (root.type === 'function_call_output' || root.type === 'custom_tool_call_output') {
    parts.push({ kind: 'tool_result', id: str(root.call_id), text: typeof root.output === 'string' ? root.output : textOf(root.output) });
    return parts;
  }
  if (info.role === 'tool') {
    parts.push({ kind: 'tool_result', id: str(root.tool_call_id), text: textOf(root.content) });
    return parts;
  }
  for (const block of blocks(root.content)) {
    if (typeof block === 'string') {
      parts.push({ kind: 'text', text: block });
      continue;
    }
    if (!isObject(block)) continue;
    switch (block.type) {
      case 'text':
      case 'input_text':
      case 'output_text':
        parts.push({ kind: 'text', text: String(block.text ?? '') });
        break;
      case 'thinking':
        parts.push({ kind: 'thinking', text: String(block.thinking ?? '') });
        break;
      case 'redacted_thinking':
        parts.push({ kind: 'thinking', text: '[redacted]' });
        break;
      case 'tool_use':
      case 'server_tool_use':
        parts.push({ kind: 'tool_use', name: String(block.name ?? 'tool'), id: str(block.id), text: JSON.stringify(block.input ?? {}), input: isObject(block.input) ? block.input : undefined });
        break;
      case 'tool_result':
      case 'web_search_tool_result':
        parts.push({ kind: 'tool_result', id: str(block.tool_use_id), text: textOf(block.content), isError: block.is_error === true });
        break;
      case 'image':
      case 'input_image':
        parts.push({ kind: 'image', text: '[image]' });
        break;
      default:
        parts.push({ kind: 'other', text: typeof block.text === 'string' ? block.text : `[${String(block.type ?? 'block')}]` });
    }
  }
  if (Array.isArray(root.tool_calls)) {
    for (const call of root.tool_calls) {
      if (!isObject(call)) continue;
      const fn = isObject(call.function) ? call.function : {};
      parts.push({ kind: 'tool_use', name: String(fn.name ?? 'tool'), id: str(call.id), text: typeof fn.arguments === 'string' ? fn.arguments : JSON.stringify(fn.arguments ?? {}), input: parseArgs(fn.arguments) });
    }
  }
  return parts;
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' && value ? value : undefined;
}

/** A user message made only of tool results belongs to the turn before; so does injected metadata. */
export function isTurnStart(info: LineInfo, parts?: Part[]): boolean {
  if (info.kind !== 'message' || info.role !== 'user') return false;
  const v = info.value;
  if (v.isMeta === true || v.isCompactSummary === true || v.isVisibleInTranscriptOnly === true) return false;
  if (isObject(v.toolUseResult) || typeof v.toolUseResult === 'string') return false;
  parts ??= messageParts(info);
  if (parts.length && parts.every((p) => p.kind === 'tool_result')) return false;
  return true;
}

/** Ids that tie this line to others: a cut must keep all lines sharing one on the same side. */
export function lineLinks(info: LineInfo, parts?: Part[]): Link[] {
  if (info.kind !== 'message') return [];
  const links: Link[] = [];
  for (const part of parts ?? messageParts(info)) {
    if ((part.kind === 'tool_use' || part.kind === 'tool_result') && part.id) links.push({ id: `t:${part.id}`, role: part.kind === 'tool_use' ? 'use' : 'result' });
  }
  const v = info.value;
  if (v.type === 'assistant' && isObject(v.message) && typeof v.message.id === 'string') links.push({ id: `m:${v.message.id}`, role: 'msg' });
  return links;
}

export function lineFacts(line: string): LineFacts {
  const info = classifyLine(line);
  if (info.kind !== 'message') return { info, parts: [], turnStart: false, links: [] };
  const parts = messageParts(info);
  return { info, parts, turnStart: isTurnStart(info, parts), links: lineLinks(info, parts) };
}
