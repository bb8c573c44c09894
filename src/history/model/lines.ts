// Pure: what one line of a history file is. wmem reads plain chat lines ({role, content}, OpenAI
// tool_calls, role tool), Anthropic content blocks, Claude Code transcript lines and Codex
// rollout lines. Anything else (metadata, bookkeeping, broken JSON) is "other": carried byte for
// byte, never counted as a message.
import { isObject } from '../../ui/json.js';

export type Role = 'user' | 'assistant' | 'tool' | 'system';

export interface MessageLine {
  kind: 'message';
  role: Role;
  /** The parsed object (for format-specific readers). */
  value: Record<string, unknown>;
}

export interface OtherLine {
  kind: 'other';
  value?: unknown;
}

export type LineInfo = MessageLine | OtherLine;

const ROLES = new Set(['user', 'assistant', 'tool', 'system']);

export function parseJsonLine(line: string): unknown {
  const trimmed = line.trim();
  if (!trimmed || (trimmed[0] !== '{' && trimmed[0] !== '[' && trimmed[0] !== '"' && !/^[-\d tfn]/.test(trimmed))) return undefined;
  try {
    return JSON.parse(trimmed);
  } catch {
    return undefined;
  }
}

export { isObject };

export function classifyValue(value: unknown): LineInfo {
  if (!isObject(value)) return { kind: 'other', value };
  // Claude Code transcript line: {type: user|assistant, message: {role, content}}.
  if ((value.type === 'user' || value.type === 'assistant') && isObject(value.message)) {
    return { kind: 'message', role: value.type, value };
  }
  // Codex rollout: {type: response_item, payload: {type: message|function_call|function_call_output}}.
  if (value.type === 'response_item' && isObject(value.payload)) {
    const payload = value.payload;
    if (payload.type === 'message' && typeof payload.role === 'string') {
      const role = payload.role === 'developer' ? 'system' : payload.role;
      if (ROLES.has(role)) return { kind: 'message', role: role as Role, value };
    }
    if (payload.type === 'function_call' || payload.type === 'custom_tool_call') return { kind: 'message', role: 'assistant', value };
    if (payload.type === 'function_call_output' || payload.type === 'custom_tool_call_output') return { kind: 'message', role: 'tool', value };
    return { kind: 'other', value };
  }
  // Plain chat line (OpenAI / Anthropic API shape); `_usage`, `_checkpoint` and the like are bookkeeping.
  if (typeof value.role === 'string' && ROLES.has(value.role) && ('content' in value || 'tool_calls' in value)) {
    return { kind: 'message', role: value.role as Role, value };
  }
  return { kind: 'other', value };
}

export function classifyLine(line: string): LineInfo {
  return classifyValue(parseJsonLine(line));
}

const SKIP_KEYS = new Set(['signature', 'data', 'encrypted_content', 'uuid', 'parentUuid', 'id', 'tool_use_id', 'call_id', 'usage']);

/** The text a model would see of a message: every string under its content, minus ids, signatures and base64. */
export function messageText(info: MessageLine): string {
  const v = info.value;
  const root = isObject(v.message) ? v.message : isObject(v.payload) ? v.payload : v;
  const out: string[] = [];
  const walk = (node: unknown, key?: string) => {
    if (key && SKIP_KEYS.has(key)) return;
    if (typeof node === 'string') out.push(node);
    else if (Array.isArray(node)) node.forEach((n) => walk(n));
    else if (isObject(node)) for (const [k, child] of Object.entries(node)) walk(child, k);
  };
  for (const key of ['content', 'tool_calls', 'arguments', 'output', 'input', 'name']) {
    if (key in root) walk(root[key], undefined);
  }
  return out.join('\n');
}
