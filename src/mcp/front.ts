// The first moments of `wmem mcp`, in the lean entry: stdin is read as newline-delimited JSON-RPC
// (MCP's stdio framing) from the start, and until the SDK server has loaded, `initialize`,
// `tools/list` and `ping` are answered from the build-time manifest (the SDK server's own
// answers). Any other request waits; the SDK loads right after tools/list is answered, or at once
// when something else arrives. Then the SDK server is handed the session: it is replayed the
// client's initialize (its answer, already given, is dropped), then every message that waited, in
// order, and from then on it gets every message. At the end of input every request read is
// answered before the server stops. Built from Node built-ins only.
import type { Manifest } from './manifest.js';
import { jsonBreak } from '../ui/errors.js';

type Message = { jsonrpc: '2.0'; id?: string | number; method?: string; params?: Record<string, unknown>; [key: string]: unknown };

/** The SDK Transport interface, as far as the server uses it. */
export interface FrontTransport {
  start(): Promise<void>;
  send(message: Message): Promise<void>;
  close(): Promise<void>;
  onmessage?: (message: Message) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
}

export interface FrontOptions {
  /** The early answers; without it (the full CLI's `wmem mcp`) the server loads at once. */
  manifest?: Manifest;
  input: NodeJS.ReadableStream;
  write: (line: string) => void;
  /** Loads the SDK and connects a server to the transport; returns how to stop it. */
  load: (transport: FrontTransport) => Promise<() => Promise<void>>;
  log: (message: string) => void;
}

const REPLAYED_INIT_ID = '__wmem_front_initialize__';

/**
 * The requests read and not yet answered, by id (a client may reuse one): the server stops at
 * the end of input only once each has its answer, or was cancelled (then none is sent).
 */
export class Unanswered {
  private readonly open = new Map<string, { id: unknown; count: number }>();
  private drained?: () => void;

  private static key = (id: unknown) => `${typeof id}:${String(id)}`;

  add(id: unknown): void {
    const entry = this.open.get(Unanswered.key(id)) ?? { id, count: 0 };
    entry.count++;
    this.open.set(Unanswered.key(id), entry);
  }

  settle(id: unknown): void {
    const entry = this.open.get(Unanswered.key(id));
    if (entry && --entry.count === 0) this.open.delete(Unanswered.key(id));
    if (!this.open.size) this.drained?.();
  }

  /** The ids still waiting, each as often as it was asked. */
  ids(): unknown[] {
    return [...this.open.values()].flatMap((e) => Array<unknown>(e.count).fill(e.id));
  }

  /** Resolves once every request has its answer. */
  all(): Promise<void> {
    return this.open.size ? new Promise((resolve) => (this.drained = resolve)) : Promise.resolve();
  }
}

/** A request's id the server will answer with (one an answer can carry back). */
const answerable = (message: Message) => 'method' in message && (typeof message.id === 'string' || typeof message.id === 'number');
const isAnswer = (message: Message) => message.id !== undefined && ('result' in message || 'error' in message);
/** Only a well-formed envelope is answered early: anything else goes to the server, which says what is wrong. */
const ENVELOPE = new Set(['jsonrpc', 'id', 'method', 'params']);
const wellFormed = (message: Message) =>
  message.jsonrpc === '2.0' &&
  (message.id === undefined || typeof message.id === 'string' || Number.isSafeInteger(message.id)) &&
  Object.keys(message).every((key) => ENVELOPE.has(key)) &&
  (message.params === undefined || (typeof message.params === 'object' && message.params !== null && !Array.isArray(message.params)));
/** The longest line read as a message (the rest of a longer one reads as a line that is not JSON). */
const MAX_LINE_CHARS = 64 * 1024 * 1024;

export async function runFront(options: FrontOptions): Promise<void> {
  const { manifest, write } = options;
  const send = (message: object) => write(JSON.stringify(message) + '\n');
  const unanswered = new Unanswered();
  let initialize: Message | undefined;
  let initialized: Message | undefined;
  const waiting: Message[] = [];
  let transport: FrontTransport | undefined;
  let loading: Promise<void> | undefined;
  let stop: (() => Promise<void>) | undefined;

  const handOver = () => {
    loading ??= (async () => {
      const t: FrontTransport = {
        start: async () => {},
        send: async (message) => {
          if (message.id === REPLAYED_INIT_ID) return; // answered already, from the manifest
          send(message);
          if (isAnswer(message)) unanswered.settle(message.id);
        },
        close: async () => t.onclose?.(),
      };
      try {
        stop = await options.load(t);
      } catch (err) {
        options.log(`wmem mcp: the server did not load: ${(err as Error)?.stack ?? String(err)}`);
        for (const id of unanswered.ids()) send({ jsonrpc: '2.0', id, error: { code: -32603, message: 'wmem mcp: the server did not load (its stderr says why)' } });
        process.exitCode = 1;
        process.stdin.destroy();
        return;
      }
      if (initialize) t.onmessage?.({ ...initialize, id: REPLAYED_INIT_ID });
      if (initialized) t.onmessage?.(initialized);
      transport = t;
      for (const message of waiting.splice(0)) t.onmessage?.(message);
    })();
  };

  const answerEarly = (message: Message): boolean => {
    if (!manifest || !wellFormed(message)) return false;
    if (message.method === 'initialize' && message.id !== undefined && !initialize) {
      initialize = message;
      const asked = String(message.params?.protocolVersion ?? '');
      const protocolVersion = manifest.supported.includes(asked) ? asked : manifest.latest;
      send({ jsonrpc: '2.0', id: message.id, result: { ...manifest.initialize, protocolVersion } });
      return true;
    }
    if (message.method === 'notifications/initialized' && initialize && !initialized) {
      initialized = message;
      return true;
    }
    if (message.method === 'tools/list' && message.id !== undefined && initialize && !message.params?.cursor) {
      send({ jsonrpc: '2.0', id: message.id, result: manifest.toolsList });
      // The SDK loads now: its compile would have delayed this answer.
      setImmediate(handOver);
      return true;
    }
    if (message.method === 'ping' && message.id !== undefined) {
      send({ jsonrpc: '2.0', id: message.id, result: {} });
      return true;
    }
    return false;
  };

  const notJsonRpc = (why: string) => (transport?.onerror ?? ((e: Error) => options.log(`wmem mcp: ${e.message}`)))(new Error(`not JSON-RPC: ${why}`));

  const onLine = (line: string) => {
    if (!line.trim()) return;
    let message: Message;
    try {
      message = JSON.parse(line) as Message;
    } catch (err) {
      // As the SDK's own stdio transport does: report, answer nothing, go on. Where it broke
      // only: Node's message quotes the line's first bytes, which may be a secret.
      notJsonRpc(`a line that is not JSON (${jsonBreak(err, line)})`);
      return;
    }
    // A batch (allowed by the 2025-03-26 protocol, removed since): one answer says so, as JSON-RPC asks.
    if (Array.isArray(message)) return send({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'wmem mcp: batches are not supported: send one request a line' } });
    if (typeof message !== 'object' || message === null) return notJsonRpc('a line that is not a JSON object');
    if (!loading && answerEarly(message)) return;
    if (answerable(message)) unanswered.add(message.id);
    // A cancelled request gets no answer (the server drops it): nothing to wait for.
    if (message.method === 'notifications/cancelled') unanswered.settle((message.params as Message | undefined)?.requestId);
    if (transport) return transport.onmessage?.(message);
    waiting.push(message);
    handOver();
  };

  if (!manifest) handOver();
  await readLines(options.input, onLine, () => notJsonRpc(`a line over ${MAX_LINE_CHARS} characters without its end; dropped`));
  await loading?.catch(() => {});
  // Every request read gets its answer, even when the client closed its end right after it.
  if (transport) await unanswered.all();
  transport?.onclose?.();
  await stop?.().catch(() => {});
}

/** Calls `onLine` with each line of `input` (newline-delimited, a CR before it dropped) until its end or an error. */
function readLines(input: NodeJS.ReadableStream, onLine: (line: string) => void, tooLong: () => void): Promise<void> {
  return new Promise<void>((resolve) => {
    let buffer = '';
    input.setEncoding?.('utf8');
    input.on('data', (chunk: string) => {
      buffer += chunk;
      for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
        const line = buffer.slice(0, nl).replace(/\r$/, '');
        buffer = buffer.slice(nl + 1);
        onLine(line);
      }
      // A line that never ends would grow without bound: no request is that long.
      if (buffer.length > MAX_LINE_CHARS) {
        tooLong();
        buffer = '';
      }
    });
    input.once('end', () => resolve());
    input.once('error', () => resolve());
  });
}

/**
 * Nothing a client sends may end the server: a failure that escapes a handler is logged on
 * stderr and the session goes on (every write is atomic or appended under a lock, so there is no
 * half-done state in memory to protect).
 */
export function guardProcess(log: (message: string) => void): void {
  // A client that went away closed stdout too: the answers still owed (every request read is
  // answered) have nowhere to go. Said once, without a trace; the server ends with its input.
  let gone = false;
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (!gone) log(`wmem mcp: stdout is closed (${err.code ?? err.message}): answers dropped`);
    gone = true;
  });
  process.on('uncaughtException', (err) => log(`wmem mcp: uncaught: ${err?.stack ?? String(err)}`));
  process.on('unhandledRejection', (err) => log(`wmem mcp: unhandled: ${(err as Error)?.stack ?? String(err)}`));
}
