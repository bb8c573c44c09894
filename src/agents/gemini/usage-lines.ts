// Pure: Gemini CLI chat-file lines as usage (chat.ts says what each line is): a gemini message's
// `tokens.input` is the context in use (one message is written again under its id as it
// changes: its id lets it count once); a history that starts over with a compression summary is
// a compaction, named by the summary's id (a resume writes that history again: the id lets it
// count once).
import type { UsageLines } from '../../history/model/usage.js';
import { isObject } from '../../ui/json.js';
import { chatEvent, COMPRESSION_ACK } from './chat.js';

function timeOf(messages: unknown, id: string): string | undefined {
  const summary = Array.isArray(messages) ? messages.find((m) => isObject(m) && m.id === id) : undefined;
  return isObject(summary) && typeof summary.timestamp === 'string' && !Number.isNaN(Date.parse(summary.timestamp)) ? new Date(summary.timestamp).toISOString() : undefined;
}

export const GEMINI_USAGE: UsageLines = {
  marks: ['"tokens"', COMPRESSION_ACK],
  event(value) {
    const event = chatEvent(value);
    if (!event || !isObject(value)) return undefined;
    if (event.kind === 'compaction') {
      const time = isObject(value.$set) ? timeOf(value.$set.messages, event.id) : undefined;
      return { kind: 'boundary', id: event.id, ...(time ? { time } : {}) };
    }
    if (event.kind !== 'usage') return undefined;
    return { kind: 'usage', tokens: event.tokens, ...(typeof value.id === 'string' ? { messageId: value.id } : {}), ...(event.model ? { model: event.model } : {}) };
  },
};
