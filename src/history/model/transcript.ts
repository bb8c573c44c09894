// Pure: a readable Markdown rendering of history lines for detail/ transcripts (and for an
// external summarizer's stdin). Long parts are shortened; the archive holds every byte.
import type { MessageLine } from './lines.js';
import { messageParts, type Part } from './messages.js';
import { isObject } from './lines.js';

const PART_LIMIT = 4000;

function shorten(text: string, limit = PART_LIMIT): string {
  if (text.length <= limit) return text;
  return `${text.slice(0, limit)}\n… [${text.length - limit} more characters in the archive]`;
}

/** A fence longer than any backtick run inside `text`. */
export function fenceFor(text: string): string {
  if (!text.includes('```')) return '```';
  let longest = 2;
  for (const m of text.matchAll(/`{3,}/g)) longest = Math.max(longest, m[0].length);
  return '`'.repeat(longest + 1);
}

function fenced(text: string): string {
  const fence = fenceFor(text);
  return `${fence}\n${text}\n${fence}`;
}

function renderPart(part: Part): string {
  switch (part.kind) {
    case 'text':
      return shorten(part.text.trim());
    case 'thinking':
      return `_(thinking)_ ${shorten(part.text.trim(), 1000)}`;
    case 'tool_use':
      return `**tool call** \`${part.name}\`${part.id ? ` (${part.id})` : ''}\n${fenced(shorten(part.text, 2000))}`;
    case 'tool_result':
      return `**tool result**${part.id ? ` (${part.id})` : ''}${part.isError ? ' — error' : ''}\n${fenced(shorten(part.text))}`;
    case 'image':
      return '[image]';
    default:
      return shorten(part.text);
  }
}

export function messageTime(info: MessageLine): string | undefined {
  const v = info.value;
  const t = v.timestamp ?? (isObject(v.message) ? v.message.timestamp : undefined);
  return typeof t === 'string' ? t : undefined;
}

/** One message as a Markdown block: `### 12. assistant · time · line 40`, then its parts. */
export function renderMessage(info: MessageLine, ordinal: number, lineNo: number, parts: Part[] = messageParts(info)): string {
  const time = messageTime(info);
  const side = info.value.isSidechain === true ? ' · sidechain' : '';
  const head = `### ${ordinal}. ${info.role}${time ? ` · ${time}` : ''}${side} · line ${lineNo}`;
  const body = parts.map(renderPart).filter((s) => s.trim() !== '');
  return `${head}\n\n${body.length ? body.join('\n\n') : '_(no text)_'}\n\n`;
}
