// Pure: what the server answers itself, before the SDK sees a message, so that every request
// with an id gets an answer. The SDK drops a message that is not a well-formed JSON-RPC request
// (`"jsonrpc": "1.0"`, `"params": null`) without a word, answers a malformed request's params
// with -32603 and zod's JSON dump, and looks a tool's name up in a plain object (`__proto__`
// is "disabled"). Here: -32600 for a malformed request, -32602 naming the field at fault, one
// line; a tool it does not have is a tool error, as the SDK gives for any other unknown name.
import { ClientRequestSchema, JSONRPCRequestSchema } from '@modelcontextprotocol/sdk/types.js';

type Message = Record<string, unknown>;
type Issue = { path: PropertyKey[]; message: string };
type Check = { safeParse(value: unknown): { success: boolean; error?: { issues: Issue[] } } };

const INVALID_REQUEST = -32600;
const INVALID_PARAMS = -32602;
/** The longest error message: a field's path and what is wrong with it. */
const MAX_MESSAGE_CHARS = 300;

const BY_METHOD = new Map<string, Check>(ClientRequestSchema.options.map((schema) => [schema.shape.method.value, schema as Check]));

const isObject = (value: unknown): value is Message => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Whether a message is a request to answer: a method with an id, or an id with no result or error. */
export function isRequest(message: Message): boolean {
  return 'id' in message && ('method' in message || !('result' in message || 'error' in message));
}

/** The id an answer carries: the request's when it is one JSON-RPC allows, else null (as the spec says). */
function answerId(message: Message): string | number | null {
  const id = message.id;
  return typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id)) ? id : null;
}

function fieldOf(path: readonly PropertyKey[]): string {
  return path.length ? path.map(String).join('.') : 'the message';
}

function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > MAX_MESSAGE_CHARS ? `${flat.slice(0, MAX_MESSAGE_CHARS - 1)}…` : flat;
}

/** The path of the first key named `__proto__` (JSON.parse makes it an own key; an assignment of it elsewhere changes a prototype). */
export function protoKeyPath(message: unknown): PropertyKey[] | undefined {
  const stack: Array<{ value: unknown; path: PropertyKey[] }> = [{ value: message, path: [] }];
  while (stack.length) {
    const { value, path } = stack.pop()!;
    if (typeof value !== 'object' || value === null) continue;
    if (Object.prototype.hasOwnProperty.call(value, '__proto__')) return [...path, '__proto__'];
    for (const [key, child] of Object.entries(value)) if (typeof child === 'object' && child !== null) stack.push({ value: child, path: [...path, key] });
  }
  return undefined;
}

function error(message: Message, code: number, text: string) {
  return { jsonrpc: '2.0' as const, id: answerId(message), error: { code, message: oneLine(text) } };
}

/**
 * The answer the server gives a request itself, or undefined for one the SDK serves (a method it
 * does not know included: it answers -32601). `tools` are the names of the tools served.
 */
export function answerFirst(message: Message, tools: readonly string[]): object | undefined {
  if (!isRequest(message)) return undefined;
  const proto = protoKeyPath(message);
  if (proto) {
    const code = proto[0] === 'params' ? INVALID_PARAMS : INVALID_REQUEST;
    return error(message, code, `${code === INVALID_PARAMS ? 'Invalid params' : 'Invalid Request'}: ${fieldOf(proto)}: a key named __proto__ is not accepted`);
  }
  const envelope = JSONRPCRequestSchema.safeParse(message);
  if (!envelope.success) {
    const issue = envelope.error.issues[0];
    const code = issue?.path[0] === 'params' && isObject(message.params) ? INVALID_PARAMS : INVALID_REQUEST;
    // zod's word for a union is "Invalid input": the id's is said here.
    const what = issue?.path[0] === 'id' && issue.path.length === 1 ? 'must be a string or an integer' : (issue?.message ?? 'not a JSON-RPC 2.0 request');
    return error(message, code, `${code === INVALID_PARAMS ? 'Invalid params' : 'Invalid Request'}: ${fieldOf(issue?.path ?? [])}: ${what}`);
  }
  const schema = BY_METHOD.get(String(message.method));
  const parsed = schema?.safeParse(message);
  if (parsed && !parsed.success) {
    const issue = parsed.error?.issues[0];
    return error(message, INVALID_PARAMS, `Invalid params: ${fieldOf(issue?.path ?? [])}: ${issue?.message ?? 'invalid'}`);
  }
  if (message.method === 'tools/call') return unknownTool(message, tools);
  return undefined;
}

/** A tool error for a name that is not one of the tools (checked as an own name, never up a prototype). */
function unknownTool(message: Message, tools: readonly string[]): object | undefined {
  const name = String((message.params as Message).name);
  if (tools.includes(name)) return undefined;
  const shown = name.length > 80 ? `${JSON.stringify(name.slice(0, 80))}…` : JSON.stringify(name);
  const text = `wmem: unknown tool ${shown}\n  the tools are ${tools.join(', ')}`;
  return { jsonrpc: '2.0', id: answerId(message), result: { content: [{ type: 'text', text }], isError: true } };
}
