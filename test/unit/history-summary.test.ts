import { describe, expect, it } from 'vitest';
import { lineFacts } from '../../src/history/model/messages.js';
import { renderMessage, fenceFor } from '../../src/history/model/transcript.js';
import { SummaryCollector } from '../../src/history/model/summary.js';
import type { MessageLine } from '../../src/history/model/lines.js';

const J = (v: unknown) => JSON.stringify(v);
const lines = [
  J({ type: 'user', timestamp: '2026-03-01T10:00:00Z', message: { role: 'user', content: 'Fix the login bug in src/auth.ts\nit fails on empty passwords' } }),
  J({ type: 'assistant', timestamp: '2026-03-01T10:00:05Z', message: { id: 'm1', role: 'assistant', content: [{ type: 'thinking', thinking: 'hmm', signature: 'x' }, { type: 'text', text: 'I decided to validate in the handler instead of the model. Running tests.' }, { type: 'tool_use', id: 't1', name: 'Bash', input: { command: 'npm test' } }] } }),
  J({ type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', is_error: true, content: 'Error: expected 200, got 500\n```\nstack\n```' }] } }),
  J({ type: 'assistant', message: { id: 'm2', role: 'assistant', content: [{ type: 'tool_use', id: 't2', name: 'Edit', input: { file_path: 'src/auth.ts', old_string: 'a', new_string: 'b' } }] } }),
  J({ type: 'user', timestamp: '2026-03-01T10:05:00Z', message: { role: 'user', content: 'Now update the docs' } }),
];

describe('transcript and summary', () => {
  it('renders messages readably, fencing tool output safely', () => {
    const facts = lineFacts(lines[2]!);
    const md = renderMessage(facts.info as MessageLine, 3, 3, facts.parts);
    expect(md).toMatch(/^### 3\. user · line 3\n\n\*\*tool result\*\* \(t1\) — error\n````\nError: expected 200/);
    expect(fenceFor('a ``` b ```` c')).toBe('`````');
    const first = lineFacts(lines[1]!);
    expect(renderMessage(first.info as MessageLine, 2, 2)).toContain('**tool call** `Bash` (t1)');
  });

  it('extracts requests, decisions, files, commands and errors before the cut', () => {
    const collector = new SummaryCollector();
    lines.forEach((line, i) => {
      const facts = lineFacts(line);
      if (facts.info.kind === 'message') collector.add(i, facts.info as MessageLine, facts.turnStart, facts.parts);
    });
    const summary = collector.build(4, { turns: 1, messages: 4, lines: 4, firstTime: '2026-03-01T10:00:00Z', lastTime: '2026-03-01T10:00:05Z' });
    expect(summary.split('\n')[0]).toBe('Compacted 1 turn (4 messages, 4 lines) from 2026-03-01T10:00:00Z to 2026-03-01T10:00:05Z: Fix the login bug in src/auth.ts');
    expect(summary).toContain('## Decisions\n- I decided to validate in the handler instead of the model.');
    expect(summary).toContain('## Files touched\n- src/auth.ts');
    expect(summary).toContain('## Commands run\n- npm test');
    expect(summary).toContain('## Errors\n- Error: expected 200, got 500');
    expect(summary).not.toContain('Now update the docs');
  });
});
