// The commands the lean entries serve (`context` and `hook` on every prompt, `compact` timed
// against cp, `search` against grep), declared as data without their loaders: the lean bundles import these rows and the
// command modules statically, and a file holding a dynamic import() of a module they bundle would
// make esbuild wrap that module's whole graph in lazy initialisers. The command table
// (commands.ts) lists them with every other command and adds their loaders.
import type * as Registry from '../agents/registry.js';
import type { OptionSpec } from '../options.js';

/** Help text that names the agents is written from the registry, which the full command line loads. */
export type HelpText = string | ((registry: typeof Registry) => string);

export interface ArgumentSpec {
  /** commander-style: '<section>', '[file]', '<text...>'. */
  name: string;
  description: HelpText;
  default?: string;
}

/** A command without its loader (lean-commands.ts holds the rows the lean entries read). */
export interface CommandData {
  name: string;
  summary: string;
  args?: ArgumentSpec[];
  options?: OptionSpec<HelpText>[];
}

export const CONTEXT: CommandData = {
  name: 'context',
  summary: 'render what is injected into the agent: memory (stable) and meta (volatile)',
  options: [
    { flags: '--part <part>', description: 'which part', choices: ['all', 'memory', 'meta'], default: 'all' },
    { flags: '--format <format>', description: 'output format', choices: ['text', 'json', 'claude'], default: 'text' },
    { flags: '--tokens-used <n>', description: 'tokens used so far (else from the transcript, else counted)', intMin: 0 },
    { flags: '--tokens-max <n>', description: 'the context window (else meta.json)', intMin: 1 },
    { flags: '--budget <chars>', description: 'character budget of the memory part', intMin: 200 },
    { flags: '--event <name>', description: 'with --format claude: the hook event name (default SessionStart for --part memory, else UserPromptSubmit)', choices: ['SessionStart', 'UserPromptSubmit', 'PostToolUse'] },
  ],
};

export const COMPACT: CommandData = {
  name: 'compact',
  summary: 'move old history out of messages.jsonl, losslessly',
  options: [
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
  ],
};

export const SEARCH: CommandData = {
  name: 'search',
  summary: 'ranked hits across overview, scratch, detail, archive and workspace memory',
  args: [{ name: '<query...>', description: 'what to look for, in your own words' }],
  options: [
    { flags: '--limit <n>', description: 'how many hits', intMin: 1, default: 10 },
    { flags: '--all-sessions', description: 'search every session of the project' },
  ],
};

export const HOOK: CommandData = {
  name: 'hook',
  summary: 'answer an agent hook (JSON on stdin); never fails the agent',
  args: [{ name: '<event>', description: "the agent's event: SessionStart, UserPromptSubmit, PostToolUse, …" }],
  options: [
    { flags: '--agent <id>', description: 'the agent whose hook this is (default claude)' },
    { flags: '--tokens-max <n>', description: "the window of the agent's model in tokens (else looked up from the model)", intMin: 1 },
  ],
};
