// The OpenCode conversation's mirror (store/conversation-file.ts): a message whose id the file holds
// is not appended again, whichever way its line was written; a line cut short does not count as
// its message kept (the message is appended whole after it).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { mirrorConversation } from '../../src/store/conversation-file.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'wmem-conversation-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const message = (id: string, text = 'hello') => ({ info: { id, role: 'user' }, parts: [{ type: 'text', text }] });
const entry = (m: ReturnType<typeof message>) => ({ id: m.info.id, line: JSON.stringify(m) });

describe('mirrorConversation', () => {
  it('appends only the messages the file does not hold: ids read from the line lead, from any other key order, never from a cut line', async () => {
    const file = path.join(dir, 'opencode-transcript.jsonl');
    const a = message('msg_a');
    const b = message('msg_b');
    const c = message('msg_c');
    const d = message('msg_d', 'with a "quote" and \\ a backslash');
    const held = [JSON.stringify(a), JSON.stringify({ parts: b.parts, info: b.info }), JSON.stringify(c).slice(0, 30)];
    writeFileSync(file, held.join('\n') + '\n');
    expect(await mirrorConversation(file, [a, b, c, d].map(entry))).toBe(2);
    expect(readFileSync(file, 'utf8')).toBe([...held, JSON.stringify(c), JSON.stringify(d)].join('\n') + '\n');
    // Every id now held, the escaped text too: nothing more to append.
    expect(await mirrorConversation(file, [a, b, c, d].map(entry))).toBe(0);
  });

  it('never takes a copy cut short at the file\'s end as its message kept, even one cut right after a brace', async () => {
    const file = path.join(dir, 'opencode-transcript.jsonl');
    const a = message('msg_a');
    const b = message('msg_b');
    const whole = JSON.stringify(b);
    // A kill inside the append: the line stops after `"role":"user"}`, the lead intact, no newline.
    const cut = whole.slice(0, whole.indexOf('}') + 1);
    writeFileSync(file, JSON.stringify(a) + '\n' + cut);
    expect(await mirrorConversation(file, [a, b].map(entry))).toBe(1);
    expect(readFileSync(file, 'utf8')).toBe(JSON.stringify(a) + '\n' + cut + '\n' + whole + '\n');
    expect(await mirrorConversation(file, [a, b].map(entry))).toBe(0);
  });

  it('starts the file, and keeps a message whose id has escapes by parsing its line', async () => {
    const file = path.join(dir, 'opencode-transcript.jsonl');
    const odd = message('msg_"odd"');
    expect(await mirrorConversation(file, [entry(odd)])).toBe(1);
    expect(await mirrorConversation(file, [entry(odd)])).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(JSON.stringify(odd) + '\n');
  });
});
