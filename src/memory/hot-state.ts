// Pure: hot session state (docs/memory.md) — the files the agent is working on, weighted by what it did
// with them, and the errors still open, by category and fingerprint. Only a non-zero exit opens
// an error; an exit 0 of a command of the same category clears it; no exit code changes nothing.
// Secrets in outputs are redacted before anything is kept.
import { isoTime } from '../ui/time.js';
import { nameHash } from './name-hash.js';
import { redactSecrets } from './gate.js';
import { mayMatch, type Needled } from './needles.js';
import { applyTodoChange, renderTodos, todoFields, type TodoChange, type TodoItem } from './todos.js';

/** What a tool did, in the generic shape; hooks map an agent's events into it. */
export interface ToolEvent {
  tool?: string;
  files?: string[];
  command?: string;
  exit_code?: number | null;
  output?: string;
  error?: string;
  is_interrupt?: boolean;
  /** A change to the agent's todo list (its todo tool), or why a todo call changed nothing. */
  todo?: TodoChange;
  todoSkipped?: string;
}

export type ErrorCategory = 'typecheck' | 'test' | 'lint' | 'build' | 'runtime';
export const ERROR_CATEGORIES: ErrorCategory[] = ['typecheck', 'test', 'lint', 'build', 'runtime'];

export interface ActiveFile {
  path: string;
  weight: number;
  touches: number;
  /** The last action: edit, write, grep, read. */
  action: string;
  /** Event counter at the last touch (a clock would make the state depend on time). */
  seq: number;
}

export interface OpenError {
  fingerprint: string;
  category: ErrorCategory;
  summary: string;
  command?: string;
  count: number;
  first: string;
  last: string;
  seq: number;
}

export interface HotState {
  version: 1;
  seq: number;
  files: ActiveFile[];
  errors: OpenError[];
  /** The agent's own todo list, as its todo tool last left it. */
  todos?: TodoItem[];
  updated?: string;
}

export const ACTION_WEIGHT: Record<string, number> = { edit: 50, write: 45, grep: 30, read: 20 };
export const TOUCH_BONUS = 3;
export const TOP_FILES = 8;
/**
 * Each tool event multiplies every file's weight by this, so the file edited now outranks the one
 * edited 200 tool calls ago; a file whose weight falls under FORGET_BELOW leaves the list. The
 * decay is the same for all, so it never reorders files by itself: the block's bytes change only
 * when a file is touched or forgotten (the prompt cache survives the calls in between).
 */
export const DECAY = 0.85;
export const FORGET_BELOW = 1;
export const TOP_ERRORS = 3;
const KEEP_FILES = 32;
const KEEP_ERRORS = 10;

export function emptyHotState(): HotState {
  return { version: 1, seq: 0, files: [], errors: [] };
}

export function migrateHotState(raw: unknown): HotState {
  const r = (raw && typeof raw === 'object' ? raw : {}) as Partial<HotState>;
  return {
    version: 1,
    seq: typeof r.seq === 'number' ? r.seq : 0,
    files: Array.isArray(r.files) ? r.files.filter((f) => f && typeof f.path === 'string') : [],
    errors: Array.isArray(r.errors) ? r.errors.filter((e) => e && typeof e.fingerprint === 'string') : [],
    ...(Array.isArray(r.todos) ? { todos: r.todos.filter((t) => t && typeof t.text === 'string' && typeof t.status === 'string') } : {}),
    ...(typeof r.updated === 'string' ? { updated: r.updated } : {}),
  };
}

/** The kind of file action a tool name stands for (Claude Code's, the generic ones, others'). */
export function actionFor(tool: string | undefined): string | undefined {
  const t = (tool ?? '').toLowerCase().replace(/[^a-z_]/g, '');
  if (/^(edit|multiedit|notebookedit|str_replace|str_replace_editor|apply_patch|patch|replace|edit_file)$/.test(t)) return 'edit';
  if (/^(write|create|write_file|create_file|save)$/.test(t)) return 'write';
  if (/^(grep|glob|search|find|rg|ls|list|search_files|codebase_search)$/.test(t)) return 'grep';
  if (/^(read|view|cat|open|read_file|notebookread)$/.test(t)) return 'read';
  return undefined;
}

// Every pattern here carries its needles (needles.ts): a hook's command or output then compiles
// only the patterns it may match (test/unit/hot-state.test.ts checks the needles skip no match).
type Categorizer = Needled & { category: ErrorCategory };

const CATEGORY_BY_COMMAND: Categorizer[] = [
  { category: 'typecheck', pattern: /\b(?:tsc|vue-tsc|tsgo|typecheck|type-check|mypy|pyright|flow\s+check|check-types)\b/i, needles: ['tsc', 'tsgo', 'typecheck', 'type-check', 'mypy', 'pyright', 'flow', 'check-types'] },
  { category: 'lint', pattern: /\b(?:eslint|lint|biome\s+(?:check|lint)|prettier\s+--check|ruff|flake8|pylint|clippy|stylelint|golangci-lint|rubocop|shellcheck)\b/i, needles: ['lint', 'biome', 'prettier', 'ruff', 'flake8', 'clippy', 'rubocop', 'shellcheck'] },
  { category: 'test', pattern: /\b(?:vitest|jest|mocha|ava|pytest|playwright\s+test|cypress\s+run|go\s+test|cargo\s+test|rspec|phpunit|node\s+--test|(?:npm|pnpm|yarn|bun)\s+(?:run\s+)?test)\b/i, needles: ['test', 'jest', 'mocha', 'ava', 'cypress', 'rspec', 'phpunit'] },
  { category: 'build', pattern: /\b(?:build|esbuild|webpack|rollup|vite\s+build|tsup|parcel|make|cmake|cargo\s+build|go\s+build|gradle|mvn|gcc|g\+\+|clang|next\s+build)\b/i, needles: ['build', 'make', 'webpack', 'rollup', 'tsup', 'parcel', 'gradle', 'mvn', 'gcc', 'g++', 'clang'] },
];

// ✗ and × spelled \u2717 and \xD7 in the patterns: esbuild leaves a regular expression's
// characters as written, and one non-ASCII character makes the whole bundle (first-tool.cjs,
// context-hot.cjs) a two-byte string, twice the memory to read and scan on every tool call.
const CATEGORY_BY_OUTPUT: Categorizer[] = [
  { category: 'typecheck', pattern: /\berror\s+TS\d{3,5}\b|: error: .*\[(?:assignment|arg-type|attr-defined|name-defined)\]/, needles: ['error'] },
  { category: 'test', pattern: /\b(?:Tests?|Test Files)\s+\d+\s+failed\b|^\s*(?:FAIL|\u2717|\xD7)\s|\bAssertionError\b|\b\d+\s+failing\b|^FAILED\s|--- FAIL:/m, needles: ['failed', 'FAIL', '✗', '×', 'AssertionError', 'failing'] },
  { category: 'lint', pattern: /\b\d+\s+problems?\s+\(\d+\s+errors?|\s\d+:\d+\s+error\s+.+\s[\w@/-]+$/m, needles: ['error'] },
  { category: 'build', pattern: /\bBuild failed\b|\bCould not resolve\b|\bERROR in\b|\berror: could not compile\b|\bModule not found\b|\bfailed to compile\b/i, needles: ['build failed', 'could not resolve', 'error in', 'error: could not compile', 'module not found', 'failed to compile'] },
  { category: 'runtime', pattern: /^\s*at\s.+:\d+:\d+\)?$|\bUncaught\b|\bTraceback \(most recent call last\)|^\w*(?:Error|Exception):\s|^panic:|\bSegmentation fault\b/m, needles: ['at', 'Uncaught', 'Traceback', 'Error:', 'Exception:', 'panic:', 'Segmentation fault'] },
];

/**
 * The error category of a command and its output: the command says it first (a test run that
 * prints a stack trace is still a failing test); the output decides when the command is not
 * recognised. `runtime` needs evidence (a stack trace, an uncaught error): a `grep` that found
 * nothing exits 1 without opening anything.
 */
export function categorize(command: string | undefined, output: string | undefined): ErrorCategory | undefined {
  const first = (table: Categorizer[], text: string | undefined) => {
    const may = text ? mayMatch(text) : undefined;
    return may && table.find((entry) => may(entry) && entry.pattern.test(text!))?.category;
  };
  return first(CATEGORY_BY_COMMAND, command) || first(CATEGORY_BY_OUTPUT, output) || undefined;
}

// Per category, the lines that best say what went wrong, most telling first.
const SUMMARY_LINES: Record<ErrorCategory, Needled[]> = {
  typecheck: [
    { pattern: /error\s+TS\d+:/, needles: ['error'] },
    { pattern: /: error: /, needles: [': error: '] },
  ],
  test: [
    { pattern: /^\s*FAIL\s+\S/, needles: ['FAIL'] },
    { pattern: /--- FAIL:/, needles: ['--- FAIL:'] },
    { pattern: /^FAILED\s/, needles: ['FAILED'] },
    { pattern: /AssertionError/, needles: ['AssertionError'] },
    { pattern: /^\s*(?:\u2717|\xD7)\s/, needles: ['✗', '×'] },
    { pattern: /\d+\s+failing/, needles: ['failing'] },
  ],
  lint: [{ pattern: /\s\d+:\d+\s+error\s/, needles: ['error'] }],
  build: [
    { pattern: /\[ERROR\]|ERROR in|error: could not compile|Could not resolve|Module not found|Build failed|failed to compile/i, needles: ['[error]', 'error in', 'error: could not compile', 'could not resolve', 'module not found', 'build failed', 'failed to compile'] },
    { pattern: /\berror\b/i, needles: ['error'] },
  ],
  runtime: [
    { pattern: /^\s*\w*(?:Error|Exception)(?: \[\w+\])?:\s/, needles: ['Error', 'Exception'] },
    { pattern: /Uncaught/, needles: ['Uncaught'] },
    { pattern: /^panic:/, needles: ['panic:'] },
    { pattern: /Segmentation fault/, needles: ['Segmentation fault'] },
    { pattern: /Traceback/, needles: ['Traceback'] },
  ],
};

// Lines that say only that something failed, not what: an agent's header over a failed command's
// output (Claude Code's "Exit code 1"), a shell's or npm's closing line. Keyed on one of them,
// every failure of a category would fold into one error.
const UNINFORMATIVE: Needled[] = [
  { pattern: /^exit (?:code|status):?\s*-?\d+\.?$/i, needles: ['exit '] },
  { pattern: /^(?:the )?command (?:failed|exited)(?: with (?:exit )?(?:code|status) -?\d+)?\.?$/i, needles: ['command '] },
  { pattern: /^process (?:completed|exited) with (?:exit )?code -?\d+\.?$/i, needles: ['process '] },
  { pattern: /^(?:npm|pnpm|yarn)(?: err!| error)? (?:code|errno|command failed|lifecycle)\b/i, needles: ['npm', 'yarn'] },
  { pattern: /^error: (?:process|command) (?:completed|failed|exited) with (?:exit )?code -?\d+\.?$/i, needles: ['error: '] },
];

// A function, not a constant: a constant built by a call stays in every bundle that imports this
// module (esbuild cannot drop it), and with it every pattern, in the prompt hooks that only render.
/** Every pattern above with its needles (test/unit/hot-state.test.ts checks them). */
export const needledPatterns = (): readonly Needled[] => [...CATEGORY_BY_COMMAND, ...CATEGORY_BY_OUTPUT, ...Object.values(SUMMARY_LINES).flat(), ...UNINFORMATIVE];

/** The output's lines, without colour codes, blank lines and headers that carry no information. */
export function informativeLines(output: string): string[] {
  return (output.includes('\x1b') ? output.replace(/\x1b\[[0-9;]*[A-Za-z]/g, '') : output).split('\n').filter((line) => {
    const text = line.trim();
    const may = mayMatch(text);
    return text && !UNINFORMATIVE.some((entry) => may(entry) && entry.pattern.test(text));
  });
}

/** A stable one-line summary: the line that best says what went wrong, with the file it names. */
export function summarize(category: ErrorCategory, output: string, command?: string): string {
  const lines = informativeLines(output);
  let summary: string | undefined;
  const may = mayMatch(lines.join('\n'));
  for (const entry of SUMMARY_LINES[category]) {
    const i = may(entry) ? lines.findIndex((l) => entry.pattern.test(l)) : -1;
    if (i === -1) continue;
    let text = lines[i].trim();
    // eslint prints the file on its own line above the problems.
    if (category === 'lint') {
      for (let j = i - 1; j >= 0; j--) {
        const above = lines[j].trim();
        if (/^\S+\.\w+$/.test(above)) {
          text = `${above}: ${text}`;
          break;
        }
      }
    }
    // A runtime error names where it happened on the first stack line below it.
    if (category === 'runtime') {
      const at = lines.slice(i + 1).find((l) => /^\s+at\s/.test(l));
      if (at) text = `${text} (${at.trim()})`;
    }
    summary = text;
    break;
  }
  summary ??= lines.map((l) => l.trim()).find((l) => /error|fail|exception/i.test(l)) ?? lines.find((l) => l.trim())?.trim() ?? '';
  if (!summary) summary = command ? `${command} failed` : `${category} failed`;
  // Durations and timestamps vary from run to run; they must not change the fingerprint.
  summary = summary
    .replace(/\(\d+(?:\.\d+)?\s*m?s\)/g, '')
    .replace(/\s\d+(?:\.\d+)?\s?m?s$/, '')
    .replace(/\b\d{4}-\d\d-\d\dT[\d:.]+Z?\b/g, '')
    .replace(/\s+/g, ' ')
    .trim();
  return redactSecrets(summary).slice(0, 240);
}

/**
 * First 12 hex characters of the summary's nameHash (FNV-1a): a name to show and to clear by, over
 * a short text, with nothing to load or compile on a failed tool call's hook (a sha256 in
 * JavaScript cost ~8 M instructions of its ~160). Errors recorded with the earlier fingerprint (a
 * sha256's) still match: an error is the same one when its summary is (applyToolEvent).
 */
export function fingerprint(summary: string): string {
  return nameHash(summary).slice(0, 12);
}

function clip(text: string, max: number): string {
  return text.length > max ? text.slice(0, max - 1) + '…' : text;
}

export interface TrackOutcome {
  state: HotState;
  opened?: OpenError;
  cleared: OpenError[];
  files: string[];
  todosChanged?: boolean;
}

/** Applies one tool event. The state holds no secret: commands and summaries are redacted. */
export function applyToolEvent(previous: HotState, event: ToolEvent, now: Date): TrackOutcome {
  const decayed = previous.files.map((f) => ({ ...f, weight: Math.round(f.weight * DECAY * 1000) / 1000 })).filter((f) => f.weight >= FORGET_BELOW);
  const state: HotState = { version: 1, seq: previous.seq + 1, files: decayed, errors: previous.errors.map((e) => ({ ...e })), ...(previous.todos ? { todos: previous.todos } : {}) };
  const seq = state.seq;
  const stamp = isoTime(now);
  const action = actionFor(event.tool);
  const touched: string[] = [];
  const todosBefore = JSON.stringify(state.todos ?? []);
  if (event.todo) state.todos = applyTodoChange(state.todos ?? [], event.todo);
  const todosChanged = JSON.stringify(state.todos ?? []) !== todosBefore;
  if (action) {
    for (const file of event.files ?? []) {
      if (typeof file !== 'string' || !file.trim()) continue;
      const path = clip(redactSecrets(file.trim()), 300);
      const found = state.files.find((f) => f.path === path);
      if (found) {
        found.weight = Math.round((Math.max(found.weight, ACTION_WEIGHT[action]) + TOUCH_BONUS) * 1000) / 1000;
        found.touches++;
        found.action = action;
        found.seq = seq;
      } else {
        state.files.push({ path, weight: ACTION_WEIGHT[action], touches: 1, action, seq });
      }
      touched.push(path);
    }
    state.files.sort((a, b) => b.weight - a.weight || b.seq - a.seq);
    state.files = state.files.slice(0, KEEP_FILES);
  }

  const outcome: TrackOutcome = { state, cleared: [], files: touched, todosChanged };
  const exit = event.exit_code;
  if (event.is_interrupt || exit === undefined || exit === null || !Number.isFinite(exit)) return finish(outcome, stamp, touched.length > 0 || todosChanged);
  // Redacted whole, before any line is picked: a key's body lines carry no marker of their own.
  const output = redactSecrets([event.error, event.output].filter((s): s is string => typeof s === 'string' && s !== '').join('\n'));
  const command = event.command ? clip(redactSecrets(event.command.replace(/\s+/g, ' ').trim()), 200) : undefined;
  if (exit === 0) {
    // Only the command decides what a success clears: a passing run may print the word "error".
    // The same command succeeding clears what it opened too (a script's runtime error).
    const category = event.command ? categorize(event.command, undefined) : undefined;
    const clears = (e: OpenError) => (category !== undefined && e.category === category) || (command !== undefined && e.command === command);
    outcome.cleared = state.errors.filter(clears);
    state.errors = state.errors.filter((e) => !clears(e));
    return finish(outcome, stamp, touched.length > 0 || todosChanged || outcome.cleared.length > 0);
  }
  const category = categorize(event.command, output);
  if (!category) return finish(outcome, stamp, touched.length > 0 || todosChanged);
  const summary = summarize(category, output, command);
  const fp = fingerprint(summary);
  const existing = state.errors.find((e) => e.fingerprint === fp || e.summary === summary);
  if (existing) {
    existing.count++;
    existing.last = stamp;
    existing.seq = seq;
    if (command) existing.command = command;
    outcome.opened = existing;
  } else {
    const opened: OpenError = { fingerprint: fp, category, summary, ...(command ? { command } : {}), count: 1, first: stamp, last: stamp, seq };
    state.errors.push(opened);
    outcome.opened = opened;
  }
  state.errors.sort((a, b) => b.seq - a.seq);
  state.errors = state.errors.slice(0, KEEP_ERRORS);
  return finish(outcome, stamp, true);
}

function finish(outcome: TrackOutcome, stamp: string, changed: boolean): TrackOutcome {
  if (changed) outcome.state.updated = stamp;
  return outcome;
}

/** The `<session_state>` body: top files and open errors, no clock in it. '' when empty. */
export function renderHotState(state: HotState): string {
  const lines: string[] = [];
  const files = [...state.files].sort((a, b) => b.weight - a.weight || b.seq - a.seq).slice(0, TOP_FILES);
  if (files.length) {
    lines.push('Active files:');
    for (const f of files) lines.push(`- ${f.path} (${f.action}${f.touches > 1 ? ` ×${f.touches}` : ''})`);
  }
  lines.push(...renderTodos(state.todos ?? []));
  const errors = [...state.errors].sort((a, b) => b.seq - a.seq).slice(0, TOP_ERRORS);
  if (errors.length) {
    lines.push('Open errors:');
    for (const e of errors) lines.push(`- [${e.category}] ${e.summary} (#${e.fingerprint}${e.count > 1 ? `, ${e.count}×` : ''}${e.command ? `, from \`${e.command}\`` : ''})`);
  }
  return lines.join('\n');
}

function textOf(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.map(textOf).filter(Boolean).join('\n') || undefined;
  if (value && typeof value === 'object') {
    const v = value as Record<string, unknown>;
    const parts = [v.stdout, v.stderr, v.output, v.error, v.text, v.content].map(textOf).filter(Boolean);
    return parts.length ? parts.join('\n') : undefined;
  }
  return undefined;
}

/**
 * Reads `wmem track`'s input: the generic shape, or Claude Code's PostToolUse /
 * PostToolUseFailure input (`tool_name`, `tool_input`, `tool_response`, `error`, `is_interrupt`).
 */
export function toolEventFromJson(raw: unknown): ToolEvent | undefined {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return undefined;
  const r = raw as Record<string, unknown>;
  if (typeof r.tool_name === 'string') {
    const input = (r.tool_input && typeof r.tool_input === 'object' ? r.tool_input : {}) as Record<string, unknown>;
    const files = ['file_path', 'notebook_path', 'path'].map((k) => input[k]).filter((v): v is string => typeof v === 'string' && v !== '');
    const event: ToolEvent = { tool: r.tool_name };
    if (files.length) event.files = [...new Set(files)];
    Object.assign(event, todoFields(r.tool_name, input, r.tool_response));
    if (typeof input.command === 'string') event.command = input.command;
    const failure = r.hook_event_name === 'PostToolUseFailure' || typeof r.error === 'string';
    if (failure) {
      if (r.is_interrupt === true) return { ...event, is_interrupt: true };
      const message = typeof r.error === 'string' ? r.error : 'the tool failed';
      const code = /\bexit code:?\s*(\d+)/i.exec(message);
      return { ...event, error: message, exit_code: code ? Number(code[1]) || 1 : 1 };
    }
    const response = r.tool_response as Record<string, unknown> | undefined;
    const output = textOf(response);
    if (output !== undefined) event.output = output;
    const code = response && typeof response === 'object' ? (response.exit_code ?? response.exitCode ?? response.returnCode) : undefined;
    // Claude Code fires PostToolUse only when the tool succeeded.
    event.exit_code = typeof code === 'number' ? code : 0;
    return event;
  }
  const event: ToolEvent = {};
  if (typeof r.tool === 'string') event.tool = r.tool;
  if (Array.isArray(r.files)) event.files = r.files.filter((f): f is string => typeof f === 'string');
  else if (typeof r.file === 'string') event.files = [r.file];
  if (typeof r.command === 'string') event.command = r.command;
  if (typeof r.exit_code === 'number') event.exit_code = r.exit_code;
  else if (r.exit_code === null) event.exit_code = null;
  if (typeof r.output === 'string') event.output = r.output;
  if (typeof r.error === 'string') event.error = r.error;
  if (r.is_interrupt === true) event.is_interrupt = true;
  return event;
}

