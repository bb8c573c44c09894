// Hot session state, pure: file weights, error categories opening and clearing on real tool
// outputs (test/fixtures/tool-outputs), fingerprints, secrets never kept.
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import path from 'node:path';
import { ROOT } from '../helpers/cli.js';
import { applyToolEvent, categorize, emptyHotState, fingerprint, renderHotState, summarize, toolEventFromJson, type HotState, type ToolEvent } from '../../src/memory/hot-state.js';

const fixture = (name: string) => readFileSync(path.join(ROOT, 'test/fixtures/tool-outputs', name), 'utf8');
const NOW = new Date('2026-03-12T14:30:00Z');

function apply(events: ToolEvent[], start: HotState = emptyHotState()): HotState {
  return events.reduce((state, e) => applyToolEvent(state, e, NOW).state, start);
}

describe('active files', () => {
  it('weighs edit 50, write 45, grep 30, read 20, +3 per touch', () => {
    const state = apply([
      { tool: 'read', files: ['a.ts'] },
      { tool: 'grep', files: ['b.ts'] },
      { tool: 'write', files: ['c.ts'] },
      { tool: 'Edit', files: ['d.ts'] },
      { tool: 'read', files: ['a.ts'] },
      { tool: 'read', files: ['a.ts'] },
    ]);
    const weight = Object.fromEntries(state.files.map((f) => [f.path, f.weight]));
    expect(weight).toEqual({ 'd.ts': 50, 'c.ts': 45, 'b.ts': 30, 'a.ts': 26 });
    expect(apply([{ tool: 'read', files: ['x.ts'] }, { tool: 'edit', files: ['x.ts'] }]).files[0].weight).toBe(53);
  });

  it('shows the top 8', () => {
    const events = Array.from({ length: 12 }, (_, i) => ({ tool: 'read', files: [`f${i}.ts`] }));
    const text = renderHotState(apply([...events, { tool: 'edit', files: ['main.ts'] }]));
    expect(text.split('\n').filter((l) => l.startsWith('- '))).toHaveLength(8);
    expect(text.split('\n')[1]).toBe('- main.ts (edit)');
  });
});

describe('error categories on real outputs', () => {
  it.each([
    ['tsc.txt', 'npx tsc --noEmit', 'typecheck', /error TS2322/],
    ['vitest.txt', 'npx vitest run', 'test', /FAIL sum\.test\.ts > adds two numbers/],
    ['eslint.txt', 'npx eslint src', 'lint', /src\/server\.ts: 3:10 error 'readFile'/],
    ['esbuild.txt', 'npm run build', 'build', /Could not resolve "\.\/nowhere\.js"/],
    ['node.txt', 'node crash.mjs', 'runtime', /TypeError: Cannot read properties of undefined \(reading 'host'\)/],
  ])('%s (from %s) opens a %s error and its exit 0 clears it', (file, command, category, summary) => {
    const output = fixture(file);
    expect(categorize(command, output)).toBe(category);
    const opened = applyToolEvent(emptyHotState(), { tool: 'bash', command, exit_code: 1, output }, NOW);
    expect(opened.opened?.category).toBe(category);
    expect(opened.opened?.summary).toMatch(summary);
    expect(opened.opened?.fingerprint).toBe(createHash('sha256').update(opened.opened!.summary).digest('hex').slice(0, 12));
    const cleared = applyToolEvent(opened.state, { tool: 'bash', command, exit_code: 0, output: '' }, NOW);
    expect(cleared.state.errors).toEqual([]);
    expect(cleared.cleared).toHaveLength(1);
  });

  it('detects the category from the output when the command says nothing', () => {
    expect(categorize('make check', fixture('tsc.txt'))).toBe('build'); // make → build
    expect(categorize('./scripts/ci.sh', fixture('tsc.txt'))).toBe('typecheck');
    expect(categorize('./scripts/ci.sh', fixture('vitest.txt'))).toBe('test');
    expect(categorize('./scripts/ci.sh', fixture('eslint.txt'))).toBe('lint');
    expect(categorize('./scripts/ci.sh', fixture('esbuild.txt'))).toBe('build');
    expect(categorize('./scripts/ci.sh', fixture('node.txt'))).toBe('runtime');
    expect(categorize('grep -r foo src', '')).toBeUndefined();
  });

  it('only a non-zero exit opens; a missing exit code is ignored; exit 0 clears only its category', () => {
    const tsc = fixture('tsc.txt');
    expect(applyToolEvent(emptyHotState(), { command: 'npx tsc', exit_code: 0, output: tsc }, NOW).state.errors).toEqual([]);
    expect(applyToolEvent(emptyHotState(), { command: 'npx tsc', output: tsc }, NOW).state.errors).toEqual([]);
    expect(applyToolEvent(emptyHotState(), { command: 'npx tsc', exit_code: null, output: tsc }, NOW).state.errors).toEqual([]);
    const both = apply([
      { command: 'npx tsc', exit_code: 2, output: tsc },
      { command: 'npx vitest run', exit_code: 1, output: fixture('vitest.txt') },
    ]);
    const afterLint = apply([{ command: 'npx eslint .', exit_code: 0 }], both);
    expect(afterLint.errors.map((e) => e.category).sort()).toEqual(['test', 'typecheck']);
    const afterTests = apply([{ command: 'npx vitest run', exit_code: 0 }], both);
    expect(afterTests.errors.map((e) => e.category)).toEqual(['typecheck']);
    // A missing exit code never clears either.
    expect(apply([{ command: 'npx tsc' }], both).errors).toHaveLength(2);
  });

  it('a grep that found nothing opens nothing; an interrupt opens nothing', () => {
    expect(apply([{ tool: 'bash', command: 'grep -rn nothing src', exit_code: 1, output: '' }]).errors).toEqual([]);
    expect(apply([{ tool: 'bash', command: 'npx tsc', exit_code: 130, is_interrupt: true }]).errors).toEqual([]);
  });

  it('the same failure twice is one error counted twice; shows the top 3', () => {
    const tsc = fixture('tsc.txt');
    const twice = apply([
      { command: 'npx tsc', exit_code: 2, output: tsc },
      { command: 'npx tsc', exit_code: 2, output: tsc },
    ]);
    expect(twice.errors).toHaveLength(1);
    expect(twice.errors[0].count).toBe(2);
    const many = apply(['a', 'b', 'c', 'd'].map((n) => ({ command: `node ${n}.js`, exit_code: 1, output: `Error: boom in ${n}\n    at main (/app/${n}.js:1:1)` })));
    expect(renderHotState(many).split('\n').filter((l) => l.startsWith('- ['))).toHaveLength(3);
  });

  it('fingerprints ignore durations', () => {
    expect(summarize('test', ' × adds two numbers 5ms')).toBe(summarize('test', ' × adds two numbers 17ms'));
    expect(fingerprint('abc')).toBe('ba7816bf8f01');
  });
});

describe('secrets', () => {
  it('never keeps a secret from a command or an output', () => {
    const state = apply([
      { tool: 'bash', command: 'OPENAI_API_KEY=sk-proj-abcdefghijklmnopqrstuvwxyz012345 node app.js', exit_code: 1, output: 'Error: 401 for key sk-proj-abcdefghijklmnopqrstuvwxyz012345\n    at call (/app/app.js:3:9)' },
    ]);
    const json = JSON.stringify(state);
    expect(json).not.toContain('abcdefghijklmnopqrstuvwxyz012345');
    expect(json).toContain('[redacted');
  });
});

describe('event shapes', () => {
  it('reads Claude Code PostToolUse and PostToolUseFailure input', () => {
    expect(toolEventFromJson({ hook_event_name: 'PostToolUse', tool_name: 'Edit', tool_input: { file_path: '/p/src/a.ts', old_string: 'a', new_string: 'b' }, tool_response: { filePath: '/p/src/a.ts' } })).toMatchObject({ tool: 'Edit', files: ['/p/src/a.ts'], exit_code: 0 });
    expect(toolEventFromJson({ hook_event_name: 'PostToolUse', tool_name: 'Bash', tool_input: { command: 'npx tsc' }, tool_response: { stdout: 'ok', stderr: '', interrupted: false } })).toMatchObject({ command: 'npx tsc', exit_code: 0, output: 'ok' });
    expect(toolEventFromJson({ hook_event_name: 'PostToolUseFailure', tool_name: 'Bash', tool_input: { command: 'npx tsc' }, error: 'Exit code 2\nsrc/a.ts(1,1): error TS2322: x' })).toMatchObject({ exit_code: 2, error: expect.stringContaining('TS2322') });
    expect(toolEventFromJson({ hook_event_name: 'PostToolUseFailure', tool_name: 'Bash', tool_input: { command: 'sleep 100' }, error: 'interrupted', is_interrupt: true })).toMatchObject({ is_interrupt: true });
    expect(toolEventFromJson({ hook_event_name: 'PostToolUse', tool_name: 'Grep', tool_input: { pattern: 'foo', path: 'src' }, tool_response: {} })).toMatchObject({ files: ['src'] });
  });

  it('reads the generic shape', () => {
    expect(toolEventFromJson({ tool: 'edit', files: ['src/a.ts'], exit_code: 1, output: 'x' })).toEqual({ tool: 'edit', files: ['src/a.ts'], exit_code: 1, output: 'x' });
    expect(toolEventFromJson([1, 2])).toBeUndefined();
  });
});
