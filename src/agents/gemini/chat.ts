// Pure: the context in use according to a Gemini CLI chat file (docs/hooks.md), line by line. The
// file (~/.gemini/tmp/<project>/chats/session-<stamp>-<id8>.jsonl) is only ever appended to:
// - line 1 (and a second one after a resume) is the session's metadata;
// - a message is `{id, type:"user"|"gemini", content, tokens?, model?, toolCalls?}`, written again
//   whole under the same id each time it changes (tokens and tool calls arrive later);
// - `{"$set":{…}}` updates metadata; `{"$set":{"messages":[…]}}` replaces the whole history
//   (at start, on a resume, on a rolled back prompt, and after a compression);
// - `{"$rewindTo": id}` drops the messages from `id` on (the interactive /rewind).
// Settled against Gemini CLI 0.61.0 and a mock that reports usage (test/agents/gemini.test.ts):
// the context in use is `tokens.input` of the last gemini message (the API's promptTokenCount,
// cached tokens included): the figure Gemini itself compares with its compression threshold.
// A compression leaves a history that starts over with the summary as a user message, answered
// by Gemini's fixed "Got it. Thanks for the additional context!": that summary's id names the
// compaction, and usage before it is stale. A resume writes the history again (the same summary
// id, no token figures): only the first line with a summary is its compaction, and other history
// lines change nothing. The same state is reached reading forward or backward.
import { parseJsonLine } from '../../history/model/lines.js';
import { geminiWindow } from './windows.js';
import { isObject } from '../../ui/json.js';

export interface ChatState {
  lastUsage: number | null;
  boundary?: string;
  model?: string;
  window?: number;
}

export const EMPTY_CHAT: ChatState = { lastUsage: null };

/** The model's fixed answer to the summary in a compressed history (Gemini CLI 0.61). */
export const COMPRESSION_ACK = 'Got it. Thanks for the additional context!';

type Message = Record<string, unknown>;

type LineEvent =
  | { kind: 'usage'; tokens: number; model?: string }
  | { kind: 'model'; model: string }
  | { kind: 'compaction'; id: string; usage?: number; model?: string }
  | undefined;

function num(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : 0;
}

function modelOf(message: Message): string | undefined {
  return typeof message.model === 'string' && message.model ? message.model : undefined;
}

/** The text of a message's content (a string or a list of parts). */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((p) => (isObject(p) && typeof p.text === 'string' ? p.text : '')).join('');
}

/** Cheap test before parsing: only these lines can change the state. */
function mayMatter(line: string): boolean {
  return line.includes('"tokens"') || line.includes('"model"') || line.includes(COMPRESSION_ACK);
}

/** The id of the compression summary a history holds (the last one), if any. */
export function compressionSummaryId(messages: unknown[]): string | undefined {
  let found: string | undefined;
  for (let i = 1; i < messages.length; i++) {
    const [before, message] = [messages[i - 1], messages[i]];
    if (!isObject(before) || !isObject(message)) continue;
    if (message.type === 'gemini' && contentText(message.content).trim() === COMPRESSION_ACK && before.type === 'user' && typeof before.id === 'string') found = before.id;
  }
  return found;
}

/**
 * What one parsed chat line says about the context. A history without a compression summary (the
 * start of a run, a resume, a rolled back prompt) says nothing: a resumed history is written
 * again without its token figures, and the context is the one the last reply reported.
 */
export function chatEvent(value: unknown): LineEvent {
  if (!isObject(value)) return undefined;
  if (isObject(value.$set)) {
    const messages = value.$set.messages;
    const id = Array.isArray(messages) ? compressionSummaryId(messages) : undefined;
    if (!id) return undefined;
    const event: LineEvent = { kind: 'compaction', id };
    // What the history kept after its summary, newest first (a compression keeps no figures).
    const list = messages as unknown[];
    const from = list.findIndex((m) => isObject(m) && m.id === id);
    for (let i = list.length - 1; i > from; i--) {
      const m = list[i];
      if (!isObject(m) || m.type !== 'gemini') continue;
      event.model ??= modelOf(m);
      const input = isObject(m.tokens) ? num(m.tokens.input) : 0;
      if (input) {
        event.usage = input;
        break;
      }
    }
    return event;
  }
  if (typeof value.id !== 'string' || value.type !== 'gemini') return undefined;
  const model = modelOf(value);
  const input = isObject(value.tokens) ? num(value.tokens.input) : 0;
  if (input) return { kind: 'usage', tokens: input, ...(model ? { model } : {}) };
  return model ? { kind: 'model', model } : undefined;
}

function withWindow(state: ChatState): ChatState {
  const window = geminiWindow(state.model);
  const { window: _old, ...rest } = state;
  return window ? { ...rest, window } : rest;
}

/** The state right after a compaction line that is the first with its summary. */
function afterCompaction(event: { id: string; usage?: number; model?: string }): ChatState {
  const next: ChatState = { lastUsage: event.usage ?? null, boundary: event.id };
  if (event.model) next.model = event.model;
  return next;
}

/** Applies one line read in file order. */
export function applyChatLine(state: ChatState, line: string): ChatState {
  if (!mayMatter(line)) return state;
  const event = chatEvent(parseJsonLine(line));
  if (!event) return state;
  switch (event.kind) {
    case 'model':
      return withWindow({ ...state, model: event.model });
    case 'usage':
      return withWindow({ ...state, lastUsage: event.tokens, model: event.model ?? state.model });
    case 'compaction':
      // The same summary again (a resume writes the history again): the same compaction.
      return event.id === state.boundary ? state : withWindow(afterCompaction(event));
  }
}

/**
 * Reads lines newest first; `step` returns true once nothing older can change the answer. Only
 * the first line with a given summary is the compaction (later ones repeat it), which reading
 * backward learns only when it meets an older line with another summary, or the file's start:
 * what it finds between the newest and the oldest line with that summary is kept aside until then.
 */
export class ChatBackwardScan {
  private usage: number | undefined;
  private model: string | undefined;
  private boundary: string | undefined;
  /** Found older than the last line met with the boundary's summary: counts if an older one comes. */
  private pending: { usage?: number; model?: string } = {};
  /** What that line itself kept after its summary. */
  private own: { usage?: number; model?: string } = {};
  private done = false;

  step(line: string): boolean {
    if (!mayMatter(line)) return false;
    const event = chatEvent(parseJsonLine(line));
    if (!event) return false;
    if (event.kind === 'compaction') {
      if (this.boundary === undefined) this.boundary = event.id;
      else if (event.id !== this.boundary) return this.finish();
      else this.confirmPending();
      this.own = { usage: event.usage, model: event.model };
      return false;
    }
    const usage = event.kind === 'usage' ? event.tokens : undefined;
    if (this.boundary === undefined) {
      this.usage ??= usage;
      this.model ??= event.model;
    } else {
      this.pending.usage ??= usage;
      this.pending.model ??= event.model;
    }
    return false;
  }

  /** The line met last with the boundary's summary was a repeat: what lies between counts. */
  private confirmPending(): void {
    this.usage ??= this.pending.usage;
    this.model ??= this.pending.model;
    this.pending = {};
  }

  /** The line met last with the boundary's summary is the compaction: nothing older counts. */
  private finish(): boolean {
    if (!this.done && this.boundary !== undefined) {
      this.usage ??= this.own.usage;
      this.model ??= this.own.model;
      this.done = true;
    }
    return true;
  }

  result(): ChatState {
    this.finish();
    const state: ChatState = { lastUsage: this.usage ?? null };
    if (this.boundary) state.boundary = this.boundary;
    if (this.model) state.model = this.model;
    return withWindow(state);
  }
}

/** Forward read of a whole text (tests and small files). */
export function chatUsageOfText(text: string): ChatState {
  let state = EMPTY_CHAT;
  for (const line of text.split('\n')) state = applyChatLine(state, line);
  return state;
}
