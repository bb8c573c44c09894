// Pure: the built-in extractive summary of compacted turns — what the user asked, decisions
// stated, files touched, commands run, errors seen — collected line by line with bounded memory.
import type { MessageLine } from './lines.js';
import { messageParts, type Part } from './messages.js';

const CAP = 200;
const SHOW = 12;

interface Item {
  position: number;
  text: string;
}

const DECISION = /\b(decided|decision|we(?:'ll| will) use|i(?:'ll| will) use|going with|chose|choosing|instead of|opt(?:ed)? for)\b/i;
const ERROR = /\b(error|exception|traceback|failed|failure|fatal|panic)\b/i;
const FILE_KEYS = ['file_path', 'path', 'notebook_path', 'filePath', 'filename'];

function oneLine(text: string, limit = 160): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > limit ? line.slice(0, limit - 1) + '…' : line;
}

class Bucket {
  items: Item[] = [];
  seen = new Set<string>();
  total = 0;
  add(position: number, text: string) {
    const t = oneLine(text);
    if (!t || this.seen.has(t)) return;
    this.total++;
    if (this.items.length >= CAP) return;
    this.seen.add(t);
    this.items.push({ position, text: t });
  }
  before(cut: number): Item[] {
    return this.items.filter((i) => i.position < cut);
  }
}

export interface SummaryFacts {
  turns: number;
  messages: number;
  lines: number;
  firstTime?: string;
  lastTime?: string;
}

export class SummaryCollector {
  private requests = new Bucket();
  private decisions = new Bucket();
  private files = new Bucket();
  private commands = new Bucket();
  private errors = new Bucket();

  add(position: number, info: MessageLine, turnStart: boolean, parts: Part[] = messageParts(info)): void {
    for (const part of parts) {
      if (part.kind === 'text' && turnStart && info.role === 'user') {
        const first = part.text.split('\n').find((l) => l.trim()) ?? '';
        if (first) this.requests.add(position, first);
      } else if (part.kind === 'text' && info.role === 'assistant') {
        for (const sentence of part.text.split(/(?<=[.!?])\s+|\n+/)) if (DECISION.test(sentence)) this.decisions.add(position, sentence);
      } else if (part.kind === 'tool_use' && part.input) {
        for (const key of FILE_KEYS) if (typeof part.input[key] === 'string') this.files.add(position, part.input[key] as string);
        const cmd = part.input.command ?? part.input.cmd;
        if (typeof cmd === 'string') this.commands.add(position, cmd);
        else if (Array.isArray(cmd)) this.commands.add(position, cmd.map(String).join(' '));
      } else if (part.kind === 'tool_result') {
        const errorLine = part.text.split('\n').find((l) => ERROR.test(l));
        if (part.isError) this.errors.add(position, errorLine ?? part.text.split('\n')[0] ?? 'error');
        // ✗ as \u2717: an ASCII bundle is a one-byte string (memory/hot-state.ts says why).
        else if (errorLine && /^\s*(error|fatal|traceback|\w*error:|\u2717|FAIL)/i.test(errorLine)) this.errors.add(position, errorLine);
      }
    }
  }

  /** The summary of what came before `cut`. Its first line stands alone (it goes to Recent Actions). */
  build(cut: number, facts: SummaryFacts): string {
    const requests = this.requests.before(cut);
    const span = facts.firstTime ? ` from ${facts.firstTime}${facts.lastTime && facts.lastTime !== facts.firstTime ? ` to ${facts.lastTime}` : ''}` : '';
    const first = `Compacted ${facts.turns} turn${facts.turns === 1 ? '' : 's'} (${facts.messages} messages, ${facts.lines} lines)${span}${requests[0] ? `: ${oneLine(requests[0].text, 100)}` : ''}`;
    const out = [first, ''];
    const section = (title: string, items: Item[], empty?: string) => {
      if (!items.length && !empty) return;
      out.push(`## ${title}`);
      if (!items.length) out.push(empty!);
      const shown = items.length > SHOW ? [...items.slice(0, SHOW / 2), ...items.slice(-SHOW / 2)] : items;
      for (const item of shown) out.push(`- ${item.text}`);
      if (items.length > SHOW) out.push(`- … and ${items.length - SHOW} more (see the transcript)`);
      out.push('');
    };
    section('Requests', requests, '- (none)');
    section('Decisions', this.decisions.before(cut));
    section('Files touched', this.files.before(cut));
    section('Commands run', this.commands.before(cut));
    section('Errors', this.errors.before(cut));
    return out.join('\n').trimEnd() + '\n';
  }
}
