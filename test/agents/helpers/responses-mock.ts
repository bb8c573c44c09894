// A loopback stand-in for the OpenAI Responses API, enough for the Codex CLI to run headless:
// POST /v1/responses answered as server-sent events (response.created, one
// response.output_item.done per output item, response.completed with the usage the test set).
// Every request is recorded with its body, so a test can look at exactly what the client sent.
//
// What the "model" does is scripted, in this order:
//   1. `mock.script`: a queue of replies a test pushes (each used once, by the next request);
//   2. markers in the last user message, unless the request answers a tool call already:
//        [[exec: CMD]]                 a function_call to exec_command {"cmd": CMD}
//        [[call: NAME {json args}]]    a function_call to any tool the client offered
//        [[call: NS/NAME {json args}]] one in a namespace: Codex offers an MCP server's tools as
//                                      {"type":"namespace","name":"mcp__<server>", tools}, so
//                                      the MCP tool `note` of server `wmem` is `mcp__wmem/note`
//   3. otherwise a plain assistant message (`replyText`).
// Response, item and call ids are unique: the client keys its rollout on them.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';

/** The usage a response reports, in the Responses API's shape. */
export interface ResponsesUsage {
  input_tokens: number;
  cached_tokens: number;
  output_tokens: number;
  reasoning_tokens?: number;
}

export type Reply =
  | { kind: 'text'; text: string }
  | { kind: 'call'; name: string; namespace?: string; arguments: Record<string, unknown> | string; usage?: ResponsesUsage }
  | { kind: 'status'; status: number; body: unknown };

export interface RecordedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: any;
  /** What the mock answered: 'text', 'call', 'status', 'not_found'. */
  answered?: string;
  /** The usage the mock reported, when it answered a response. */
  usage?: ResponsesUsage;
  responseId?: string;
  /** The call id of the function_call it answered with, if any. */
  callId?: string;
}

const EXEC_MARKER = /\[\[exec:\s*([\s\S]*?)\]\]/;
const CALL_MARKER = /\[\[call:\s*(?:([\w.-]+)\/)?([\w.-]+)\s*(\{[\s\S]*?\})?\s*\]\]/;

export function uniqueId(prefix: string): string {
  return `${prefix}${randomBytes(12).toString('hex')}`;
}

/** The text of one input item of a Responses request (a message's parts, or a tool output). */
export function itemText(item: any): string {
  if (!item || typeof item !== 'object') return '';
  if (typeof item.content === 'string') return item.content;
  if (Array.isArray(item.content)) return item.content.map((part: any) => (typeof part?.text === 'string' ? part.text : '')).join('\n');
  if (typeof item.output === 'string') return item.output;
  return '';
}

/** The request's input items (messages, function calls, their outputs), in order. */
export function inputItems(request: RecordedRequest): any[] {
  return Array.isArray(request.body?.input) ? request.body.input : [];
}

/** The messages of a request by role ("user", "developer", "assistant", ...) with their text. */
export function messagesOf(request: RecordedRequest): { role: string; text: string }[] {
  return inputItems(request)
    .filter((item) => item?.type === 'message' || (item?.role && item?.type === undefined))
    .map((item) => ({ role: String(item.role), text: itemText(item) }));
}

/** Every text the request sends the model: instructions and input items. */
export function allText(request: RecordedRequest): string {
  const instructions = typeof request.body?.instructions === 'string' ? request.body.instructions : '';
  return [instructions, ...inputItems(request).map(itemText)].join('\n');
}

/** The tool names the client offered in a request; a namespace's tools as `NS/NAME`. */
export function toolNames(request: RecordedRequest): string[] {
  const tools: any[] = Array.isArray(request.body?.tools) ? request.body.tools : [];
  return tools.flatMap((t) => (t?.type === 'namespace' && Array.isArray(t.tools) ? t.tools.map((inner: any) => `${t.name}/${inner?.name}`) : [String(t?.name ?? t?.type)]));
}

export class ResponsesMock {
  readonly requests: RecordedRequest[] = [];
  /** Usage reported by the next responses; a test sets it before the run it measures. */
  usage: ResponsesUsage = { input_tokens: 1200, cached_tokens: 300, output_tokens: 20, reasoning_tokens: 0 };
  /** Replies used before any marker, one per request, oldest first. */
  readonly script: Reply[] = [];
  replyText = 'Done.';
  private server?: http.Server;

  get url(): string {
    const address = this.server?.address() as AddressInfo | null;
    if (!address) throw new Error('the mock is not listening');
    return `http://127.0.0.1:${address.port}`;
  }

  /** The base_url Codex's model provider takes. */
  get baseUrl(): string {
    return `${this.url}/v1`;
  }

  async start(): Promise<void> {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => this.answer(req, Buffer.concat(chunks).toString('utf8'), res));
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** The requests for model replies, in order. */
  responseRequests(): RecordedRequest[] {
    return this.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/responses'));
  }

  private answer(req: http.IncomingMessage, raw: string, res: http.ServerResponse): void {
    let body: any = raw;
    try {
      body = raw ? JSON.parse(raw) : undefined;
    } catch {
      /* kept as text */
    }
    const path = (req.url ?? '/').split('?')[0];
    const record: RecordedRequest = { method: req.method ?? 'GET', path, headers: req.headers, body };
    this.requests.push(record);
    if (req.method === 'POST' && path.endsWith('/responses') && body && typeof body === 'object') {
      const reply = this.reply(body);
      if (reply.kind === 'status') {
        record.answered = 'status';
        return this.json(res, reply.status, reply.body);
      }
      const usage = { ...this.usage, ...(reply.kind === 'call' ? reply.usage : undefined) };
      const responseId = uniqueId('resp_mock_');
      const item = this.item(reply);
      Object.assign(record, { answered: reply.kind, usage, responseId, callId: item.call_id });
      return this.stream(res, responseId, String(body.model ?? 'mock-model'), item, usage);
    }
    if (req.method === 'GET' && path.endsWith('/models')) return this.json(res, 200, { object: 'list', data: [], models: [] });
    record.answered = 'not_found';
    this.json(res, 404, { error: { type: 'not_found', message: `the mock does not serve ${req.method} ${path}` } });
  }

  /** What the "model" says next: the script first, then markers in the last user message. */
  private reply(body: any): Reply {
    const scripted = this.script.shift();
    if (scripted) return scripted;
    const input: any[] = Array.isArray(body.input) ? body.input : [];
    const last = input[input.length - 1];
    // After a tool's output the model just says it is done (no loop on the same marker).
    if (last?.type === 'function_call_output' || last?.type === 'custom_tool_call_output') return { kind: 'text', text: this.replyText };
    const lastUser = [...input].reverse().find((item) => item?.role === 'user');
    const text = itemText(lastUser);
    const exec = EXEC_MARKER.exec(text);
    if (exec) return { kind: 'call', name: 'exec_command', arguments: { cmd: exec[1].trim() } };
    const call = CALL_MARKER.exec(text);
    if (call) return { kind: 'call', ...(call[1] ? { namespace: call[1] } : {}), name: call[2], arguments: call[3] ? JSON.parse(call[3]) : {} };
    return { kind: 'text', text: this.replyText };
  }

  private item(reply: Reply & { kind: 'text' | 'call' }): Record<string, any> {
    if (reply.kind === 'text') {
      return { type: 'message', id: uniqueId('msg_mock_'), role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: reply.text, annotations: [] }] };
    }
    const args = typeof reply.arguments === 'string' ? reply.arguments : JSON.stringify(reply.arguments);
    return { type: 'function_call', id: uniqueId('fc_mock_'), call_id: uniqueId('call_mock_'), name: reply.name, ...(reply.namespace ? { namespace: reply.namespace } : {}), arguments: args, status: 'completed' };
  }

  private stream(res: http.ServerResponse, id: string, model: string, item: Record<string, any>, usage: ResponsesUsage): void {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    const send = (event: string, data: Record<string, unknown>) => res.write(`event: ${event}\ndata: ${JSON.stringify({ type: event, ...data })}\n\n`);
    const response = { id, object: 'response', created_at: Math.floor(Date.now() / 1000), model, status: 'in_progress', output: [] as unknown[] };
    send('response.created', { response });
    send('response.output_item.done', { output_index: 0, item });
    const apiUsage = {
      input_tokens: usage.input_tokens,
      input_tokens_details: { cached_tokens: usage.cached_tokens },
      output_tokens: usage.output_tokens,
      output_tokens_details: { reasoning_tokens: usage.reasoning_tokens ?? 0 },
      total_tokens: usage.input_tokens + usage.output_tokens,
    };
    send('response.completed', { response: { ...response, status: 'completed', output: [item], usage: apiUsage } });
    res.end();
  }

  private json(res: http.ServerResponse, status: number, value: unknown): void {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(value));
  }
}
