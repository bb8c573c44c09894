// The first stage of `wmem hook`, run on every prompt and every tool call. It is the same hook
// path as the full one (commands/hook.ts → app/hook.ts → app/hook-moments.ts), from the same
// source modules, built into a smaller file (dist/fast/first-hook.cjs, src/entries/build-first-hook.mjs)
// that leaves out what the common events of Claude Code (the default agent) never load: the other
// agents' adapters, a new session's tree and handoff, the compaction and session-end work. Each
// module left out is a stand-in that throws FirstStageMiss when loaded; the driver lets that error
// through unlogged, and this stage then hands the whole hook, with the input it read, to the full
// entry (fast-hook.cjs), which runs it from the start. What ran before the miss is undone or
// harmless to run twice: the moments load those modules before they write anything but a project
// folder or the current-session pointer (tests: test/e2e/hook-first-stage.test.ts).
import { fileURLToPath } from 'node:url';
import { CLAUDE_NAMES } from '../agents/claude/names.js';
import { FIRST_STAGE_MISS } from '../app/hook.js';
import * as hookCommand from '../commands/hook.js';
import type { RunContext } from '../commands/run.js';
import { leanLine } from './lean-line.js';
import { buildRunContext, printResult, type GlobalFlags } from './runtime.js';

/** The events this stage serves: every prompt, every tool call, and a session's (re)start. */
const SERVED = new Set(['SessionStart', 'UserPromptSubmit', 'PostToolUse', 'PostToolUseFailure']);

/** The full entry beside this file, with the hook's input when this stage read it already. */
function fullPath(argv: string[], input?: string): Promise<boolean> {
  const fast = require(fileURLToPath(new URL('./fast-hook.cjs', import.meta.url))) as { runFast: (argv: string[], input?: string) => Promise<boolean> };
  return fast.runFast(argv, input);
}

/** Answers `wmem hook …` here or on the full path; false when the full CLI should handle the command line. */
export async function runHook(argv: string[]): Promise<boolean> {
  const line = leanLine(argv.slice(2));
  const agent = typeof line?.options.agent === 'string' ? line.options.agent.trim().toLowerCase() : CLAUDE_NAMES.id;
  const claude = agent === CLAUDE_NAMES.id || CLAUDE_NAMES.aliases.includes(agent);
  if (line?.command !== 'hook' || !claude || !SERVED.has(line.rest[0] ?? '')) return fullPath(argv);
  let ctx: RunContext | undefined;
  try {
    ctx = await buildRunContext(line.options as GlobalFlags, { plain: true });
    printResult(await hookCommand.run(line.options as never, ctx, line.rest), ctx);
  } catch (err) {
    // Nothing was printed: the output is printed once the hook has answered. The hook read its
    // input inside its own error handling (a failed read is logged there, and answered); what it
    // read stays on the context (readInputText), for the full path to take over with.
    if (ctx === undefined || (err as Error)?.name === FIRST_STAGE_MISS) return fullPath(argv, ctx?.inputText);
    // A hook never fails the agent: the hook command logs its own errors; this is the last guard.
    process.exitCode = 0;
  }
  return true;
}
