import { describe, expect, it } from 'vitest';
import { collapseRepeats, detectKind, pruneOutput, rewriteToolOutputs, PRUNE_RULES } from '../../src/history/model/prune.js';

const listing = (n: number) => Array.from({ length: n }, (_, i) => `src/module${i % 7}/file${i}.${['ts', 'json', 'md'][i % 3]}`).join('\n');

describe('pruneOutput', () => {
  it('passes short output through unchanged', () => {
    for (const text of ['', 'ok', 'a\nb\nc\n', listing(50)]) {
      const r = pruneOutput(text, 'normal');
      expect(r.pruned).toBe(false);
      expect(r.text).toBe(text);
    }
  });

  it('applies the documented thresholds per mode (head and tail halves)', () => {
    const text = listing(51);
    expect(pruneOutput(text, 'normal').pruned).toBe(true);
    expect(pruneOutput(listing(50), 'normal').pruned).toBe(false);
    expect(pruneOutput(listing(31), 'aggressive').pruned).toBe(true);
    expect(pruneOutput(listing(30), 'aggressive').pruned).toBe(false);
    expect(pruneOutput(listing(16), 'hyper').pruned).toBe(true);
    expect(pruneOutput(listing(15), 'hyper').pruned).toBe(false);
    for (const mode of ['normal', 'aggressive', 'hyper'] as const) {
      const lines = listing(200).split('\n');
      const r = pruneOutput(lines.join('\n'), mode);
      const out = r.text.split('\n');
      const keep = PRUNE_RULES[mode].keepLines;
      expect(out.slice(0, Math.ceil(keep / 2))).toEqual(lines.slice(0, Math.ceil(keep / 2)));
      expect(out.slice(-Math.floor(keep / 2))).toEqual(lines.slice(-Math.floor(keep / 2)));
      expect(out.length).toBe(keep + 1);
    }
  });

  it('recognises listings and trees and summarises what it left out', () => {
    const r = pruneOutput(listing(300), 'normal');
    expect(r.kind).toBe('listing');
    expect(r.text).toMatch(/… \[270 entries omitted: \d+ \.ts, \d+ \.json, \d+ \.md\]/);
    const tree = ['.', ...Array.from({ length: 80 }, (_, i) => `${i % 5 ? '│   ├── ' : '├── '}file${i}.ts`), '└── end'].join('\n');
    expect(detectKind(tree.split('\n'))).toBe('tree');
    expect(pruneOutput(tree, 'normal').pruned).toBe(true);
    const lsLong = Array.from({ length: 60 }, (_, i) => `-rw-r--r--  1 me  staff  ${i * 10} Mar  1 10:00 f${i}.txt`).join('\n');
    expect(detectKind(lsLong.split('\n'))).toBe('listing');
  });

  it('keeps every error line of a log, and collapses repeated lines', () => {
    const lines: string[] = [];
    for (let i = 0; i < 400; i++) lines.push(`2026-03-01T10:00:${String(i % 60).padStart(2, '0')} INFO request ${i} served`);
    lines[123] = '2026-03-01T10:02:03 ERROR database connection refused';
    lines[321] = 'Traceback (most recent call last):';
    const r = pruneOutput(lines.join('\n'), 'hyper');
    expect(r.kind).toBe('log');
    expect(r.text).toContain('ERROR database connection refused');
    expect(r.text).toContain('Traceback (most recent call last):');
    expect(r.errorLines).toBe(2);
    const repeated = Array.from({ length: 100 }, () => 'warning: deprecated API').join('\n');
    const rr = pruneOutput(repeated, 'normal');
    expect(rr.pruned).toBe(true);
    expect(rr.text).toBe('warning: deprecated API  [×100]');
    expect(collapseRepeats(['a', 'a', 'b'], false)).toEqual(['a', 'a', 'b']);
  });

  it('cuts one very long line by characters', () => {
    const r = pruneOutput('z'.repeat(50_000), 'normal');
    expect(r.pruned).toBe(true);
    expect(r.text.length).toBeLessThan(9_000);
    expect(r.text).toContain('characters omitted');
  });
});

describe('rewriteToolOutputs', () => {
  const cut = (text: string) => (text.length > 5 ? 'CUT' : undefined);
  it('finds tool outputs in every format', () => {
    const cc = { type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: 'long output' }] }, toolUseResult: { stdout: 'long output', stderr: '' } };
    expect(rewriteToolOutputs(cc, cut)).toBe(true);
    expect(cc.message.content[0]!.content).toBe('CUT');
    expect(cc.toolUseResult.stdout).toBe('CUT');
    const blocks = { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: [{ type: 'text', text: 'long output' }] }] };
    expect(rewriteToolOutputs(blocks, cut)).toBe(true);
    const openai = { role: 'tool', tool_call_id: 'c', content: 'long output' };
    expect(rewriteToolOutputs(openai, cut)).toBe(true);
    expect(openai.content).toBe('CUT');
    const codex = { type: 'response_item', payload: { type: 'function_call_output', call_id: 'c', output: 'long output' } };
    expect(rewriteToolOutputs(codex, cut)).toBe(true);
    expect(codex.payload.output).toBe('CUT');
    const plain = { role: 'user', content: 'long user text' };
    expect(rewriteToolOutputs(plain, cut)).toBe(false);
    expect(plain.content).toBe('long user text');
  });
});
