// A loopback stand-in for the Anthropic Messages API, enough for Claude Code to run headless:
// POST /v1/messages answered as a stream of server-sent events (message_start, content_block_*,
// message_delta with usage, message_stop), or as one JSON message when the request is not
// streamed; count_tokens answered with a count. Every request is recorded with its body, so a
// test can look at exactly what the client sent. Replies are scripted by markers in the user's
// prompt, so a test says what the "model" does in the prompt it writes:
//   [[bash: CMD]]   the reply is a Bash tool call running CMD (then, after its result, plain text)
//   anything else   a plain text reply
// The client's compaction request (it asks for a <summary>) gets a summary. Message and tool
// ids are unique per response: the client keys its transcript on them, and resumes break on
// repeats.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';

export interface Usage {
  input_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
  output_tokens: number;
}

export interface RecordedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: any;
  /** What the mock answered: 'text', 'tool_use', 'summary', 'count_tokens', 'not_found'. */
  answered?: string;
  /** The usage the mock reported in its answer, when it answered a message. */
  usage?: Usage;
  messageId?: string;
}

type ContentBlock = { type: 'text'; text: string } | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> };

const SUMMARY_REQUEST = /Respond with TEXT ONLY|<summary>|summary of the conversation/i;
const BASH_MARKER = /\[\[bash:\s*([\s\S]*?)\]\]/;

/** The text of a message's content (a string or a list of blocks; tool results included). */
export function messageText(message: { content?: unknown } | undefined): string {
  if (!message) return '';
  const { content } = message;
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((block: any) => {
      if (typeof block?.text === 'string') return block.text;
      if (typeof block?.content === 'string') return block.content;
      if (Array.isArray(block?.content)) return block.content.map((c: any) => c?.text ?? '').join('\n');
      return '';
    })
    .join('\n');
}

function uniqueId(prefix: string): string {
  return `${prefix}${randomBytes(12).toString('hex')}`;
}

export class AnthropicMock {
  readonly requests: RecordedRequest[] = [];
  /** Usage reported by the next responses; a test sets it before the run it measures. */
  usage: Usage = { input_tokens: 1000, cache_creation_input_tokens: 200, cache_read_input_tokens: 30, output_tokens: 12 };
  /** The text of plain replies. */
  replyText = 'Done.';
  summaryText = 'The user asked for a few shell commands; one failed. Nothing else is pending.';
  private server?: http.Server;

  get url(): string {
    const address = this.server?.address() as AddressInfo | null;
    if (!address) throw new Error('the mock is not listening');
    return `http://127.0.0.1:${address.port}`;
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

  /** Requests for model replies (the compaction request included), in order. */
  messageRequests(): RecordedRequest[] {
    return this.requests.filter((r) => r.path === '/v1/messages' && r.method === 'POST');
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
    if (req.method === 'POST' && path === '/v1/messages/count_tokens') {
      record.answered = 'count_tokens';
      // A rough count: the client only uses it for display and thresholds.
      return this.json(res, 200, { input_tokens: Math.max(1, Math.ceil(raw.length / 4)) });
    }
    if (req.method === 'POST' && path === '/v1/messages' && body && typeof body === 'object') {
      const { kind, blocks } = this.reply(body);
      const usage = { ...this.usage };
      const id = uniqueId('msg_mock_');
      Object.assign(record, { answered: kind, usage, messageId: id });
      if (body.stream) return this.stream(res, id, String(body.model ?? 'mock-model'), blocks, usage);
      return this.json(res, 200, { id, type: 'message', role: 'assistant', model: body.model, content: blocks, stop_reason: stopReason(blocks), stop_sequence: null, usage });
    }
    record.answered = 'not_found';
    this.json(res, 404, { type: 'error', error: { type: 'not_found_error', message: `the mock does not serve ${req.method} ${path}` } });
  }

  /** What the "model" says: decided by the last message that is not the client's system entry. */
  private reply(body: any): { kind: string; blocks: ContentBlock[] } {
    const messages: any[] = Array.isArray(body.messages) ? body.messages.filter((m: any) => m?.role !== 'system') : [];
    const last = messages[messages.length - 1];
    const lastText = messageText(last);
    if (last?.role === 'user' && SUMMARY_REQUEST.test(lastText)) {
      return { kind: 'summary', blocks: [{ type: 'text', text: `<analysis>Looked at the conversation.</analysis>\n<summary>${this.summaryText}</summary>` }] };
    }
    const answersTool = Array.isArray(last?.content) && last.content.some((b: any) => b?.type === 'tool_result');
    const bash = answersTool ? null : BASH_MARKER.exec(lastText);
    if (bash) {
      return { kind: 'tool_use', blocks: [{ type: 'tool_use', id: uniqueId('toolu_mock_'), name: 'Bash', input: { command: bash[1].trim(), description: 'Run the command the test asked for' } }] };
    }
    return { kind: 'text', blocks: [{ type: 'text', text: this.replyText }] };
  }

  private stream(res: http.ServerResponse, id: string, model: string, blocks: ContentBlock[], usage: Usage): void {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    const send = (event: string, data: Record<string, unknown>) => res.write(`event: ${event}\ndata: ${JSON.stringify({ type: event, ...data })}\n\n`);
    send('message_start', { message: { id, type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage: { ...usage, output_tokens: 1 } } });
    blocks.forEach((block, index) => {
      if (block.type === 'text') {
        send('content_block_start', { index, content_block: { type: 'text', text: '' } });
        send('content_block_delta', { index, delta: { type: 'text_delta', text: block.text } });
      } else {
        send('content_block_start', { index, content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} } });
        send('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: JSON.stringify(block.input) } });
      }
      send('content_block_stop', { index });
    });
    send('message_delta', { delta: { stop_reason: stopReason(blocks), stop_sequence: null }, usage });
    send('message_stop', {});
    res.end();
  }

  private json(res: http.ServerResponse, status: number, value: unknown): void {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(value));
  }
}

function stopReason(blocks: ContentBlock[]): string {
  return blocks.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn';
}
