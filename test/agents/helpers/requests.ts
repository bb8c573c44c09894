// Pure: what a recorded request to the mock carries: the texts of its messages by role, the
// context_meta wmem injected (the last one: the current prompt's), copies of the memory part.
import { messageText, type RecordedRequest } from './anthropic-mock.js';

export interface SentMessage {
  role: string;
  text: string;
}

export function sentMessages(request: RecordedRequest): SentMessage[] {
  const messages: any[] = Array.isArray(request.body?.messages) ? request.body.messages : [];
  return messages.map((m) => ({ role: String(m?.role), text: messageText(m) }));
}

/** Every text the request sends the model: system prompt and messages. */
export function allText(request: RecordedRequest): string {
  const system = request.body?.system;
  const systemText = typeof system === 'string' ? system : Array.isArray(system) ? system.map((b: any) => b?.text ?? '').join('\n') : '';
  return [systemText, ...sentMessages(request).map((m) => m.text)].join('\n');
}

export function countOf(text: string, needle: string): number {
  let n = 0;
  for (let i = text.indexOf(needle); i !== -1; i = text.indexOf(needle, i + needle.length)) n++;
  return n;
}

export interface ContextMeta {
  figures: Record<string, any>;
  /** The lines after the JSON: paths and the way to compact. */
  text: string;
  raw: string;
}

/** Every <context_meta> block in the request, oldest first. */
export function contextMetas(request: RecordedRequest): ContextMeta[] {
  const out: ContextMeta[] = [];
  const pattern = /<context_meta>\n?([\s\S]*?)\n?<\/context_meta>/g;
  for (const message of sentMessages(request)) {
    for (const m of message.text.matchAll(pattern)) {
      const [first, ...rest] = m[1].trim().split('\n');
      let figures: Record<string, any> = {};
      try {
        figures = JSON.parse(first);
      } catch {
        /* left empty: the test says what it saw */
      }
      out.push({ figures, text: rest.join('\n'), raw: m[1] });
    }
  }
  return out;
}

/** The main-conversation requests of a run (the compaction request set apart). */
export function conversationRequests(requests: RecordedRequest[]): RecordedRequest[] {
  return requests.filter((r) => r.path === '/v1/messages' && r.answered !== 'summary');
}

/** Which hook put each copy of `needle` in the request: "SessionStart", "UserPromptSubmit", … in order. */
export function copiesByHook(request: RecordedRequest, needle: string): string[] {
  const out: string[] = [];
  for (const message of sentMessages(request)) {
    const parts = message.text.split(/(\w+) hook additional context: /);
    // parts: [before, hook1, text1, hook2, text2, …]
    for (let i = 1; i + 1 < parts.length; i += 2) for (let n = countOf(parts[i + 1], needle); n > 0; n--) out.push(parts[i]);
    for (let n = countOf(parts[0], needle); n > 0; n--) out.push(`(${message.role}, not a hook)`);
  }
  return out;
}
