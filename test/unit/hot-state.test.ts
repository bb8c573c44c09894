// Hot session state, pure: file weights, error categories opening and clearing on real tool
// outputs (test/fixtures/tool-outputs), fingerprints, secrets never kept.
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import path from 'node:path';
import { ROOT } from '../helpers/cli.js';
import { DECAY, needledPatterns, applyToolEvent, categorize, emptyHotState, fingerprint, renderHotState, summarize, toolEventFromJson, type HotState, type ToolEvent } from '../../src/memory/hot-state.js';

const fixture = (name: string) => readFileSync(path.join(ROOT, 'test/fixtures/tool-outputs', name), 'utf8');
const NOW = new Date('2026-03-12T14:30:00Z');

function apply(events: ToolEvent[], start: HotState = emptyHotState()): HotState {
  return events.reduce((state, e) => applyToolEvent(state, e, NOW).state, start);
}

describe('active files', () => {
  it('weighs edit 50, write 45, grep 30, read 20, +3 per touch; every event multiplies older weights by 0.85', () => {
    const state = apply([
      { tool: 'read', files: ['a.ts'] },
      { tool: 'grep', files: ['b.ts'] },
      { tool: 'write', files: ['c.ts'] },
      { tool: 'Edit', files: ['d.ts'] },
    ]);
    const weight = Object.fromEntries(state.files.map((f) => [f.path, f.weight]));
    expect(weight['d.ts']).toBe(50);
    expect(weight['c.ts']).toBeCloseTo(45 * DECAY, 3);
    expect(weight['b.ts']).toBeCloseTo(30 * DECAY ** 2, 3);
    expect(weight['a.ts']).toBeCloseTo(20 * DECAY ** 3, 2);
    expect(apply([{ tool: 'read', files: ['x.ts'] }, { tool: 'edit', files: ['x.ts'] }]).files[0].weight).toBe(53);
    expect(apply([{ tool: 'edit', files: ['x.ts'] }, { tool: 'read', files: ['x.ts'] }]).files[0].weight).toBeCloseTo(50 * DECAY + 3, 3);
  });

  it('ranks the file edited now above the one edited many calls ago, and forgets a file left alone', () => {
    const busy = Array.from({ length: 200 }, (_, i) => ({ tool: 'bash', command: `echo ${i}`, exit_code: 0 }));
    const state = apply([{ tool: 'edit', files: ['old.ts'] }, { tool: 'edit', files: ['old.ts'] }, ...busy.slice(0, 5), { tool: 'read', files: ['new.ts'] }]);
    expect(renderHotState(state).split('\n').slice(1, 3)).toEqual(['- new.ts (read)', '- old.ts (edit ×2)']);
    expect(apply([{ tool: 'edit', files: ['old.ts'] }, ...busy]).files).toEqual([]);
  });

  it('keeps the rendered block byte-stable while no file is touched (a uniform decay never reorders)', () => {
    const base = apply([{ tool: 'edit', files: ['a.ts'] }, { tool: 'read', files: ['b.ts'] }, { tool: 'grep', files: ['c.ts'] }]);
    let state = base;
    for (let i = 0; i < 10; i++) state = applyToolEvent(state, { tool: 'bash', command: 'ls', exit_code: 0 }, new Date()).state;
    expect(renderHotState(state)).toBe(renderHotState(base));
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
    expect(opened.opened?.fingerprint).toBe(fingerprint(opened.opened!.summary));
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
    expect(fingerprint('abc')).toBe('1a47e90bacfe');
  });

  it('an error recorded with the earlier fingerprint (a sha256) is still the same error', () => {
    const failure = { command: 'npx tsc', exit_code: 2, output: "src/a.ts(3,5): error TS2322: Type 'string' is not assignable to type 'number'." };
    const first = apply([failure]);
    // As an earlier wmem wrote it: the first 12 hex digits of the summary's sha256.
    const old: HotState = { ...first, errors: first.errors.map((e) => ({ ...e, fingerprint: createHash('sha256').update(e.summary).digest('hex').slice(0, 12) })) };
    const again = apply([failure], old);
    expect(again.errors).toHaveLength(1);
    expect(again.errors[0].count).toBe(2);
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

describe("the agent's todo list", () => {
  const claude = (tool_name: string, tool_input: unknown, tool_response: unknown = {}) => toolEventFromJson({ tool_name, tool_input, tool_response })!;

  it("keeps Claude Code's TodoWrite list, shows the work in progress first", () => {
    const state = apply([
      claude('TodoWrite', { todos: [{ content: 'Write the parser', status: 'completed', activeForm: 'Writing' }, { content: 'Add the CLI flag', status: 'in_progress' }, { content: 'Document it', status: 'pending' }] }),
    ]);
    expect(renderHotState(state).split('\n')).toEqual(['Todo list:', '- [~] Add the CLI flag', '- [ ] Document it', '- [x] Write the parser']);
  });

  it("follows TaskCreate and TaskUpdate one task at a time (Claude Code 2.1), a deleted task leaves", () => {
    const state = apply([
      claude('TaskCreate', { subject: 'Research plan mode', description: 'long text' }, { task: { id: '1', subject: 'Research plan mode' } }),
      claude('TaskCreate', { subject: 'Research teammates' }, { task: { id: '2' } }),
      claude('TaskUpdate', { taskId: '1', status: 'in_progress' }, { success: true }),
      claude('TaskUpdate', { taskId: '2', status: 'deleted' }),
    ]);
    expect(state.todos).toEqual([{ id: '1', text: 'Research plan mode', status: 'in_progress' }]);
  });

  it("reads Codex's update_plan and OpenCode's todowrite the same way", () => {
    expect(apply([claude('update_plan', { plan: [{ step: 'Reproduce the bug', status: 'completed' }, { step: 'Fix it', status: 'in_progress' }] })]).todos).toEqual([
      { text: 'Reproduce the bug', status: 'completed' },
      { text: 'Fix it', status: 'in_progress' },
    ]);
    expect(apply([claude('todowrite', { todos: [{ id: 't1', content: 'Ship', status: 'pending', priority: 'high' }] })]).todos).toEqual([{ id: 't1', text: 'Ship', status: 'pending' }]);
  });

  it('skips a todo call of an unexpected shape, keeping the list, and says why', () => {
    const before = apply([claude('TodoWrite', { todos: [{ content: 'Keep me', status: 'pending' }] })]);
    const odd = claude('TodoWrite', { todos: 'not a list' });
    expect(odd.todoSkipped).toMatch(/without a list/);
    expect(applyToolEvent(before, odd, NOW).state.todos).toEqual(before.todos);
  });

  it('redacts a secret in a todo', () => {
    const state = apply([claude('TodoWrite', { todos: [{ content: 'Rotate ghp_R4nD0mT0k3nV4lu3F0rT3st1ngPurp0s3sXY', status: 'pending' }] })]);
    expect(renderHotState(state)).not.toContain('ghp_R4nD0m');
  });
});

// A pattern is run only on text holding one of its needles (memory/needles.ts): the needles must
// be in every text the pattern matches, whatever its case and its neighbours.
describe('the needles that let most commands and outputs skip the error patterns', () => {
  const words = [
    'tsc', 'vue-tsc', 'tsgo', 'typecheck', 'type-check', 'mypy', 'pyright', 'flow', 'check', 'check-types', 'eslint', 'lint', 'biome', 'prettier', '--check', 'ruff', 'flake8',
    'pylint', 'clippy', 'stylelint', 'golangci-lint', 'rubocop', 'shellcheck', 'vitest', 'jest', 'mocha', 'ava', 'pytest', 'playwright', 'test', 'cypress', 'run', 'go',
    'cargo', 'rspec', 'phpunit', 'node', '--test', 'npm', 'pnpm', 'yarn', 'bun', 'build', 'esbuild', 'webpack', 'rollup', 'vite', 'tsup', 'parcel', 'make', 'cmake', 'gradle',
    'mvn', 'gcc', 'g++', 'clang', 'next', 'error', 'TS2322', 'TS12', ': error: ', '[assignment]', '[arg-type]', 'Tests', 'Test', 'Test Files', 'failed', 'FAIL', 'FAILED', '✗', '×',
    'AssertionError', 'failing', '--- FAIL:', 'problems', 'problem', '(', ')', 'errors', 'Build failed', 'Could not resolve', 'ERROR in', '[ERROR]', 'error: could not compile',
    'Module not found', 'failed to compile', 'at', 'Uncaught', 'Traceback (most recent call last)', 'Error', 'Exception', 'TypeError', ': ', 'panic:', 'Segmentation fault',
    'exit', 'Exit', 'code', 'status', 'command', 'the', 'with', 'exited', 'process', 'completed', 'err!', 'ERR!', 'errno', 'lifecycle', 'command failed', '[E1]',
  ];
  const caseOf = (w: string, c: number) => (c === 0 ? w : c === 1 ? w.toUpperCase() : w[0]!.toUpperCase() + w.slice(1));
  const fragment = fc.oneof(
    fc.tuple(fc.constantFrom(...words), fc.integer({ min: 0, max: 2 })).map(([w, c]) => caseOf(w, c)),
    fc.constantFrom(' ', '  ', '\t', '\n', ':', '.', '-', '1', '42', '3:5', '12:7', '5ms', '/', 'a.ts', '@x/y', 'İ', 'ſ', 'é', '\x1b[31m', '\x1b[0m'),
  );
  const text = fc.array(fragment, { maxLength: 16 }).map((parts) => parts.join(''));

  it('are in every text a pattern matches', () => {
    fc.assert(
      fc.property(text, (t) => {
        for (const { pattern, needles } of needledPatterns()) {
          if (!pattern.test(t)) continue;
          const haystack = pattern.ignoreCase ? t.toLowerCase() : t;
          expect(needles.some((n) => haystack.includes(n)), `${pattern} matched ${JSON.stringify(t)} without a needle`).toBe(true);
        }
      }),
      { numRuns: 5000 },
    );
  });
});
