// Option tables shared by the full command line (commander) and the lean entries (`context` and
// `hook`, which run on every prompt, and `compact`, timed against cp), which parse with
// node:util's parseArgs so that they do not pay for loading commander. One table, so the two can
// never disagree.
import { WmemError } from './ui/errors.js';

/** Kept equal to package.json's version (a unit test checks). */
export const VERSION = '0.1.0';

export interface OptionSpec {
  /** commander-style flags: '--part <part>', '--dry-run', '-q, --quiet'. */
  flags: string;
  description: string;
  choices?: readonly string[];
  default?: string | number | boolean;
  /** A whole number with this minimum. */
  intMin?: number;
  /** Left out of --help (internal). */
  hidden?: boolean;
}

export const GLOBAL_OPTIONS: OptionSpec[] = [
  { flags: '--home <dir>', description: 'where memory lives (default $WMEM_HOME or ~/.ai)' },
  { flags: '--cwd <dir>', description: 'the project folder (default: the current directory)' },
  { flags: '--session <id>', description: "the session to act on (default $WMEM_SESSION, then the project's current one)" },
  { flags: '--json', description: 'print one JSON document on stdout' },
  { flags: '-q, --quiet', description: 'no diagnostics on stderr' },
  { flags: '--no-color', description: 'no colour (also NO_COLOR=1)' },
];

export const CONTEXT_OPTIONS: OptionSpec[] = [
  { flags: '--part <part>', description: 'which part', choices: ['all', 'memory', 'meta'], default: 'all' },
  { flags: '--format <format>', description: 'output format', choices: ['text', 'json', 'claude'], default: 'text' },
  { flags: '--tokens-used <n>', description: 'tokens used so far (else from the transcript, else counted)', intMin: 0 },
  { flags: '--tokens-max <n>', description: 'the context window (else meta.json)', intMin: 1 },
  { flags: '--budget <chars>', description: 'character budget of the memory part', intMin: 200 },
  { flags: '--event <name>', description: 'with --format claude: the hook event name (default SessionStart for --part memory, else UserPromptSubmit)', choices: ['SessionStart', 'UserPromptSubmit', 'PostToolUse'] },
];

/** `wmem hook`'s own flag besides --tokens-max (from CONTEXT_OPTIONS). */
export const HOOK_OPTIONS: OptionSpec[] = [
  { flags: '--agent <id>', description: 'the agent whose hook this is (default claude)' },
];

export const COMPACT_OPTIONS: OptionSpec[] = [
  { flags: '--target <target>', description: 'what to compact', choices: ['conversation', 'tools', 'all'], default: 'conversation' },
  { flags: '--strategy <strategy>', description: 'archive only, or archive and summarize', choices: ['archive', 'summarize'], default: 'archive' },
  { flags: '--keep-recent <n>', description: 'turns to keep (a turn: a user message and all that follows it until the next)', intMin: 0, default: 5 },
  { flags: '--keep-steps <n>', description: 'at most this many steps kept (a step: one assistant response with the tool results answering it); the cut may fall inside a turn, whose opening message is then repeated', intMin: 1, default: 20 },
  { flags: '--archive-to <path>', description: 'archive file, relative to working-memory/ (e.g. archive/before-refactor.jsonl); must stay inside it' },
  { flags: '--summarizer <cmd>', description: 'with --strategy summarize: a command that reads the transcript on stdin and prints the summary' },
  { flags: '--timeout <seconds>', description: 'how long the summarizer may take', intMin: 1, default: 120 },
  { flags: '--dry-run', description: 'print the plan, change nothing' },
  { flags: '--wait', description: 'write the readable transcript and the overview lines before returning (a long history otherwise has them written in the background)' },
  { flags: '--finish', description: 'only finish what a compaction left to the background (the next compact or restore also does)' },
];

export const SEARCH_OPTIONS: OptionSpec[] = [
  { flags: '--limit <n>', description: 'how many hits', intMin: 1, default: 10 },
  { flags: '--all-sessions', description: 'search every session of the project' },
];

export interface ParsedFlags {
  long: string;
  short?: string;
  /** camelCase key, as commander names it. */
  key: string;
  takesValue: boolean;
  negated: boolean;
}

export function parseFlags(spec: OptionSpec): ParsedFlags {
  const short = /(?:^|[ ,])-([A-Za-z])\b/.exec(spec.flags)?.[1];
  const long = /--([a-z][a-z0-9-]*)/.exec(spec.flags)![1];
  const negated = long.startsWith('no-');
  const base = negated ? long.slice(3) : long;
  return { long, short, key: base.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase()), takesValue: /[<[]/.test(spec.flags), negated };
}

/** Checks and converts one option value; the same rules for both parsers. */
export function coerceOption(spec: OptionSpec, raw: string): string | number {
  const { long } = parseFlags(spec);
  if (spec.intMin !== undefined) {
    const n = Number(raw);
    if (!/^\s*\d+\s*$/.test(raw) || !Number.isSafeInteger(n) || n < spec.intMin) {
      throw new WmemError(`--${long} must be a whole number ≥ ${spec.intMin}, not ${JSON.stringify(raw)}`);
    }
    return n;
  }
  if (spec.choices && !spec.choices.includes(raw)) {
    throw new WmemError(`--${long} must be one of ${spec.choices.join(', ')}, not ${JSON.stringify(raw)}`);
  }
  return raw;
}
