// A loopback stand-in for the Gemini API, enough for Gemini CLI 0.61 to run headless with
// GOOGLE_GEMINI_BASE_URL pointing at it:
//   POST /v1beta/models/<m>:streamGenerateContent?alt=sse  the main turn, as server-sent events:
//        one chunk with the reply's parts, finishReason STOP and the usageMetadata the test set;
//   POST /v1beta/models/<m>:generateContent  utility calls: the model router (it expects JSON with
//        complexity_score) and the compression summarizer (it gets a <state_snapshot>);
//   POST /v1beta/models/<m>:countTokens  a token count.
// Every request is recorded with its body, so a test can look at exactly what the client sent.
//
// What the "model" does in a main turn, in this order:
//   1. `mock.script`: replies a test pushes (each used once, by the next main-turn request);
//   2. `[[shell: CMD]]` in the last user message, unless the request answers a tool call already:
//      a function call to run_shell_command {"command": CMD};
//   3. otherwise a plain text reply (`replyText`).
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** The usage a response reports, in the Gemini API's shape. */
export interface GeminiUsage {
  promptTokenCount: number;
  candidatesTokenCount: number;
  cachedContentTokenCount?: number;
  thoughtsTokenCount?: number;
}

export type GeminiReply =
  | { kind: 'text'; text: string; usage?: GeminiUsage }
  | { kind: 'call'; name: string; args: Record<string, unknown>; usage?: GeminiUsage };

export interface GeminiRequest {
  method: string;
  path: string;
  /** `stream` (a main turn), `router`, `summary`, `count`, or `other`. */
  kind: string;
  body: any;
  /** The usage the mock reported, for a main turn. */
  usage?: GeminiUsage;
  answered?: string;
}

const SHELL_MARKER = /\[\[shell:\s*([\s\S]*?)\]\]/;

/** The text parts of a request's contents, by role, in order. */
export function contentsOf(request: GeminiRequest): { role: string; text: string }[] {
  const contents: any[] = Array.isArray(request.body?.contents) ? request.body.contents : [];
  return contents.map((c) => ({
    role: String(c?.role),
    text: (Array.isArray(c?.parts) ? c.parts : []).map((p: any) => (typeof p?.text === 'string' ? p.text : p?.functionResponse ? JSON.stringify(p.functionResponse) : '')).join('\n'),
  }));
}

/** Every text the request sends the model: system instruction and contents. */
export function allText(request: GeminiRequest): string {
  const system = (request.body?.systemInstruction?.parts ?? []).map((p: any) => p?.text ?? '').join('\n');
  return [system, ...contentsOf(request).map((c) => c.text)].join('\n');
}

/** Gemini CLI sends hook text HTML-escaped: the text as the hook wrote it. */
export function unescaped(text: string): string {
  return text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, '&');
}

export class GeminiMock {
  readonly requests: GeminiRequest[] = [];
  /** Usage reported by the next main-turn responses; a test sets it before the run it measures. */
  usage: GeminiUsage = { promptTokenCount: 1200, candidatesTokenCount: 20, cachedContentTokenCount: 300 };
  readonly script: GeminiReply[] = [];
  replyText = 'Done.';
  summaryText = '<state_snapshot>\nThe user ran commands; nothing is pending.\n</state_snapshot>';
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

  /** The main-turn requests, in order. */
  turns(): GeminiRequest[] {
    return this.requests.filter((r) => r.kind === 'stream');
  }

  private answer(req: http.IncomingMessage, raw: string, res: http.ServerResponse): void {
    let body: any = raw;
    try {
      body = raw ? JSON.parse(raw) : undefined;
    } catch {
      /* kept as text */
    }
    const path = (req.url ?? '/').split('?')[0];
    const record: GeminiRequest = { method: req.method ?? 'GET', path, kind: 'other', body };
    this.requests.push(record);
    if (req.method !== 'POST') return this.json(res, 404, { error: { code: 404, message: `the mock does not serve ${req.method} ${path}` } });
    if (path.endsWith(':streamGenerateContent')) {
      record.kind = 'stream';
      const reply = this.reply(body);
      record.usage = { ...this.usage, ...reply.usage };
      record.answered = reply.kind;
      return this.stream(res, reply, record.usage, String(path.match(/models\/([^:]+):/)?.[1] ?? 'gemini'));
    }
    if (path.endsWith(':generateContent')) {
      const text = JSON.stringify(body ?? {});
      const router = text.includes('complexity_score');
      record.kind = router ? 'router' : 'summary';
      const answer = router ? JSON.stringify({ complexity_reasoning: 'A simple request.', complexity_score: 10 }) : this.summaryText;
      return this.json(res, 200, { candidates: [{ content: { role: 'model', parts: [{ text: answer }] }, finishReason: 'STOP', index: 0 }], usageMetadata: { promptTokenCount: 100, candidatesTokenCount: 20, totalTokenCount: 120 } });
    }
    if (path.endsWith(':countTokens')) {
      record.kind = 'count';
      return this.json(res, 200, { totalTokens: 100 });
    }
    this.json(res, 404, { error: { code: 404, message: `the mock does not serve ${path}` } });
  }

  private reply(body: any): GeminiReply {
    const scripted = this.script.shift();
    if (scripted) return scripted;
    const contents: any[] = Array.isArray(body?.contents) ? body.contents : [];
    const last = contents[contents.length - 1];
    const parts: any[] = Array.isArray(last?.parts) ? last.parts : [];
    // After a tool's result the model just says it is done (no loop on the same marker).
    if (parts.some((p) => p?.functionResponse)) return { kind: 'text', text: this.replyText };
    const text = parts.map((p) => (typeof p?.text === 'string' ? p.text : '')).join('\n');
    const shell = SHELL_MARKER.exec(unescaped(text));
    if (shell) return { kind: 'call', name: 'run_shell_command', args: { command: shell[1].trim() } };
    return { kind: 'text', text: this.replyText };
  }

  private stream(res: http.ServerResponse, reply: GeminiReply, usage: GeminiUsage, model: string): void {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    const parts = reply.kind === 'text' ? [{ text: reply.text }] : [{ functionCall: { name: reply.name, args: reply.args } }];
    const usageMetadata = {
      ...usage,
      totalTokenCount: usage.promptTokenCount + usage.candidatesTokenCount + (usage.thoughtsTokenCount ?? 0),
    };
    const chunk = { candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }], usageMetadata, modelVersion: model };
    res.write(`data: ${JSON.stringify(chunk)}\n\n`);
    res.end();
  }

  private json(res: http.ServerResponse, status: number, value: unknown): void {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(value));
  }
}
