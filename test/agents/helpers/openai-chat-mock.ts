// A loopback stand-in for an OpenAI-compatible Chat Completions API, enough for OpenCode (through
// its @ai-sdk/openai-compatible provider) to run headless: POST /v1/chat/completions answered as
// server-sent chunks (`data: {...}` … `data: [DONE]`), the last chunk carrying the usage the test
// set (OpenCode asks for it with stream_options.include_usage). Every request is recorded with
// its body, so a test can look at exactly what the client sent.
//
// What the "model" does is scripted, in this order:
//   1. `mock.script`: a queue of replies a test pushes (each used once, by the next request);
//   2. a `[[bash: CMD]]` marker in the last user message of a request that offers tools, unless
//      the last message is a tool result already: a call to the client's shell tool (`shellTool`,
//      OpenCode's `bash` unless a test says otherwise);
//   3. otherwise a plain assistant message (`replyText`).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';

/** The usage a response reports, in Chat Completions' shape (prompt_tokens includes cached ones). */
export interface ChatUsage {
  prompt_tokens: number;
  cached_tokens: number;
  completion_tokens: number;
}

export type ChatReply = { kind: 'text'; text: string; usage?: ChatUsage } | { kind: 'call'; name: string; arguments: Record<string, unknown>; usage?: ChatUsage };

export interface ChatRequest {
  method: string;
  path: string;
  body: any;
  answered?: string;
  usage?: ChatUsage;
}

const BASH_MARKER = /\[\[bash:\s*([\s\S]*?)\]\]/;

/** The text of a chat message (string content or text parts). */
export function contentText(message: any): string {
  if (typeof message?.content === 'string') return message.content;
  if (Array.isArray(message?.content)) return message.content.map((p: any) => (typeof p?.text === 'string' ? p.text : '')).join('\n');
  return '';
}

/** OpenCode sends a prompt wrapped in double quotes, inner quotes escaped: the text as typed. */
export function unwrapPrompt(text: string): string {
  if (!/^"[\s\S]*"$/.test(text)) return text;
  try {
    const inner = JSON.parse(text);
    return typeof inner === 'string' ? inner : text;
  } catch {
    return text;
  }
}

export function chatMessages(request: ChatRequest): { role: string; text: string }[] {
  const messages: any[] = Array.isArray(request.body?.messages) ? request.body.messages : [];
  return messages.map((m) => ({ role: String(m?.role), text: contentText(m) }));
}

/** The last `<context_meta>` JSON in the request's user messages (wmem's meter). */
export function contextMeta(request: ChatRequest): Record<string, any> {
  const text = chatMessages(request)
    .filter((m) => m.role === 'user')
    .map((m) => m.text)
    .join('\n');
  const blocks = [...text.matchAll(/<context_meta>\n?([\s\S]*?)\n?<\/context_meta>/g)];
  if (!blocks.length) throw new Error(`no <context_meta> in the request's user messages: ${text.slice(-1200)}`);
  return JSON.parse(blocks[blocks.length - 1]![1]!.trim().split('\n')[0]!);
}

export function chatText(request: ChatRequest): string {
  return chatMessages(request)
    .map((m) => m.text)
    .join('\n');
}

export class ChatMock {
  readonly requests: ChatRequest[] = [];
  usage: ChatUsage = { prompt_tokens: 1200, cached_tokens: 0, completion_tokens: 20 };
  readonly script: ChatReply[] = [];
  replyText = 'Done.';
  /** The tool call a `[[bash: CMD]]` marker makes (OpenCode's `bash`; Droid calls its shell `Execute`, Qwen Code `run_shell_command`). */
  shellCall = (command: string): { name: string; arguments: Record<string, unknown> } => ({ name: 'bash', arguments: { command, description: 'Runs the command' } });
  private server?: http.Server;

  get baseUrl(): string {
    const address = this.server?.address() as AddressInfo | null;
    if (!address) throw new Error('the mock is not listening');
    return `http://127.0.0.1:${address.port}/v1`;
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

  /** The chat completion requests, in order. */
  completions(): ChatRequest[] {
    return this.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/chat/completions'));
  }

  private answer(req: http.IncomingMessage, raw: string, res: http.ServerResponse): void {
    let body: any = raw;
    try {
      body = raw ? JSON.parse(raw) : undefined;
    } catch {
      /* kept as text */
    }
    const path = (req.url ?? '/').split('?')[0];
    const record: ChatRequest = { method: req.method ?? 'GET', path, body };
    this.requests.push(record);
    if (req.method === 'POST' && path.endsWith('/chat/completions') && body && typeof body === 'object') {
      const reply = this.reply(body);
      const usage = reply.usage ?? this.usage;
      Object.assign(record, { answered: reply.kind, usage });
      return this.stream(res, String(body.model ?? 'mock'), reply, usage);
    }
    record.answered = 'not_found';
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { message: `the mock does not serve ${req.method} ${path}` } }));
  }

  private reply(body: any): ChatReply {
    const scripted = this.script.shift();
    if (scripted) return scripted;
    const messages: any[] = Array.isArray(body.messages) ? body.messages : [];
    // After a tool's result the model is done; a request without tools (the summarizer) gets text.
    if (messages.at(-1)?.role === 'tool' || !(Array.isArray(body.tools) && body.tools.length)) return { kind: 'text', text: this.replyText };
    const lastUser = [...messages].reverse().find((m) => m?.role === 'user');
    // Part by part: wmem's meter is a second text part of the same message.
    const parts: string[] = Array.isArray(lastUser?.content) ? lastUser.content.map((p: any) => String(p?.text ?? '')) : [contentText(lastUser)];
    const bash = BASH_MARKER.exec(parts.map(unwrapPrompt).join('\n'));
    if (bash) return { kind: 'call', ...this.shellCall(bash[1].trim()) };
    return { kind: 'text', text: this.replyText };
  }

  private stream(res: http.ServerResponse, model: string, reply: ChatReply, usage: ChatUsage): void {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    const id = `chatcmpl-${randomBytes(8).toString('hex')}`;
    const created = Math.floor(Date.now() / 1000);
    const chunk = (delta: Record<string, unknown>, finish: string | null, extra: Record<string, unknown> = {}) =>
      res.write(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta, finish_reason: finish }], ...extra })}\n\n`);
    chunk({ role: 'assistant', content: '' }, null);
    if (reply.kind === 'text') {
      chunk({ content: reply.text }, null);
      chunk({}, 'stop');
    } else {
      const call = { index: 0, id: `call_${randomBytes(6).toString('hex')}`, type: 'function', function: { name: reply.name, arguments: JSON.stringify(reply.arguments) } };
      chunk({ tool_calls: [call] }, null);
      chunk({}, 'tool_calls');
    }
    const apiUsage = {
      prompt_tokens: usage.prompt_tokens,
      completion_tokens: usage.completion_tokens,
      total_tokens: usage.prompt_tokens + usage.completion_tokens,
      prompt_tokens_details: { cached_tokens: usage.cached_tokens },
    };
    res.write(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [], usage: apiUsage })}\n\n`);
    res.write('data: [DONE]\n\n');
    res.end();
  }
}
