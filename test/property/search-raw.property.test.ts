// Property: searching an archive on its raw bytes (the first search after a compaction,
// src/store/search-raw.ts) ranks exactly what scanning its extracted text ranks, when the average
// line length is taken from every line (a sample share of 1). Random archives of every line shape
// the extraction reads (Claude Code, Codex with its developer role and unnamed calls, plain chat,
// lines longer than a candidate keeps whole,
// summaries, images, metadata, broken JSON, blank lines), words written with JSON escapes
// (\u0065 for "e", non-ASCII as \u00fc, a tab as \u0009), numbers in exponent form, words glued
// to what stands before them, other case, several or no timestamps, a last line without a line
// end; queries of those words and of the words the extraction writes itself.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { searchMemory } from '../../src/store/search-corpus.js';

const WORDS = ['deploy', 'Deployed', 'RELEASE', 'config', 'über', 'naïve', '日本語', 'error', 'errors', 'fix', 'cache', 'flamingo', 'module', 'turn', '4242', 'x_deploy', 'tool', 'user', 'image', 'Object', 'summary', 'system', 'block', 'redacted'];
const QUERY_WORDS = [...WORDS, 'tmodule', '4242', 'how do we ship', 'configure', 'systems', 'tools', 'users', 'summaries', 'blocks', 'images', 'objects', 'assistant', 'read', 'turn', 'deploy', 'cache'];

// Words against what may stand before them: a newline or tab (escaped in JSON), a backslash, a
// non-ASCII letter (escaped by some writers), an underscore, a letter (camelCase).
const GLUED = ['—deploy', '«module»', 'a\ndeploy', 'b\tmodule', 'x\\flamingo', 'édeploy', 'ümodule', 'end_turn', 'cacheRead', 'myDeploy', 'x_cache', '14242'];
const words = fc.array(fc.constantFrom(...WORDS, ...GLUED, ' ', '. ', '\n', '"quoted"', 'a\\b'), { maxLength: 10 }).map((ws) => ws.join(' '));
const date = fc.constantFrom('2026-01-01T10:00:00.000Z', '2026-01-02T09:00:00.000Z', '2026-01-02T11:00:00.000Z', '2026-13-45Tbad', 'yesterday');
const stamp = fc.option(date, { nil: undefined });

/** One archived line as an agent writes it. */
const line = fc.tuple(fc.integer({ min: 0, max: 12 }), words, words, stamp, stamp).map(([kind, a, b, ts, nested]) => {
  const t = ts === undefined ? {} : { timestamp: ts };
  const meta = nested === undefined ? {} : { toolUseResult: { timestamp: nested } };
  switch (kind) {
    case 0:
      return JSON.stringify({ type: 'user', ...t, message: { role: 'user', content: a }, ...meta });
    case 1:
      return JSON.stringify({ ...t, type: 'assistant', message: { role: 'assistant', content: [{ type: 'text', text: a }, { type: 'tool_use', input: { command: b, n: 4242 } }, { type: 'thinking', thinking: b }] } });
    case 2:
      return JSON.stringify({ type: 'user', ...t, message: { role: 'user', content: [{ type: 'tool_result', content: [{ type: 'text', text: a }, { type: 'image' }] }, { type: 'redacted_thinking' }, { type: 'mystery' }, { text: { nested: b } }, { type: 'text', text: { nested: a } }] } });
    case 3:
      return JSON.stringify({ ...t, type: 'response_item', payload: { type: 'message', role: 'developer', content: [{ type: 'input_text', text: a }] } });
    case 4:
      return JSON.stringify({ ...t, type: 'response_item', payload: { type: 'function_call', arguments: JSON.stringify({ cmd: b }) } });
    case 5:
      return JSON.stringify({ ...t, type: 'response_item', payload: { type: 'function_call_output', output: a } });
    case 6:
      return JSON.stringify({ type: 'summary', summary: a, ...t });
    case 7:
      return JSON.stringify({ role: 'assistant', content: a, tool_calls: [{ function: { arguments: { q: b } } }], ...t });
    case 8:
      return JSON.stringify({ type: 'file-history-snapshot', note: a, ...t });
    case 9:
      return `{"type":"user","message":{"role":"user","content":"${a.replace(/["\\\n]/g, ' ')}"`; // cut short
    case 10:
      return '';
    case 12:
      // Longer than the text a candidate keeps whole (3,000 characters): its window around the first match.
      return JSON.stringify({ type: 'user', ...t, message: { role: 'user', content: `${'filler '.repeat(450)}${a} ${'more '.repeat(700)}${b}` } });
    default:
      return JSON.stringify({ role: 'tool', content: [{ type: 'image' }, { text: a }], ...t });
  }
});

/** How a writer may spell the same JSON: ASCII letters or everything non-ASCII as \u escapes. */
const spelled = fc.tuple(line, fc.integer({ min: 0, max: 7 })).map(([json, how]) => {
  if (how === 1) return json.replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  // Letters only ever stand inside JSON strings (keys and values): an escaped one keeps it valid.
  if (how === 2) return json.replace(/deploy|release|module|flamingo|cache|turn|user|tool|summary|image/i, (w) => `${w[0]}\\u00${w.charCodeAt(1).toString(16)}${w.slice(2)}`);
  // What the extraction writes again as JSON (a tool call's input) can spell otherwise: a tab as
  // \u0009 comes out \t, a number in exponent form spelled out.
  if (how === 3) return json.replace(/\\t/g, '\\u0009');
  if (how === 4) return json.replace(/"n":4242/, '"n":4.242e3');
  return json;
});
const archive = fc.tuple(fc.array(spelled, { minLength: 0, maxLength: 30 }), fc.boolean()).map(([lines, open]) => lines.join('\n') + (open ? '' : '\n'));
const query = fc.array(fc.constantFrom(...QUERY_WORDS), { minLength: 1, maxLength: 3 }).map((ws) => ws.join(' '));

let root: string;
let n = 0;
beforeAll(() => {
  root = mkdtempSync(path.join(tmpdir(), 'wmem-raw-'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('raw-byte search of an archive', () => {
  it('ranks exactly what the scan of its extracted text ranks', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(archive, { minLength: 1, maxLength: 3 }), query, async (files, q) => {
        const projectDir = path.join(root, `p${n++}`);
        const archiveDir = path.join(projectDir, 's', 'working-memory', 'archive');
        mkdirSync(archiveDir, { recursive: true });
        files.forEach((text, i) => writeFileSync(path.join(archiveDir, `messages-2026010${i + 1}T000000000Z.jsonl`), text));
        const scope = { projectDir, sessions: ['s'], nowMs: 0 };
        const scanned = await searchMemory(scope, q, { limit: 10, noIndex: true });
        const raw = await searchMemory(scope, q, { limit: 10, rawMessages: { sampleShare: 1 } });
        expect(raw.lines).toBe(scanned.lines);
        expect(raw.hits).toEqual(scanned.hits);
      }),
      { numRuns: 300 },
    );
  });
});
