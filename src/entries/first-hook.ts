// The first stage of `wmem hook`, run on every prompt and every tool call. It is the same hook
// path as the full one (commands/hook.ts → app/hook.ts → app/hook-moments.ts), from the same
// source modules, built into a smaller file (dist/fast/first-hook.cjs, src/entries/build-first-hook.mjs)
// that leaves out what every agent's common events (a prompt, a tool call, a session's start) never
// load: the agents' installers (each agent's index.ts; a hook loads its hook.ts), a new session's
// tree and handoff, the compaction and session-end work. A compaction and a session's end have a
// build of their own (first-end*.cjs: the same entry with their work in, without the installers,
// a new session's tree and the other agents' hook parts). Each
// module left out is a stand-in that throws FirstStageMiss when loaded; the driver lets that error
// through unlogged, and this stage then hands the whole hook, with the input it read, to the full
// entry (fast-hook.cjs), which runs it from the start. What ran before the miss is undone or
// harmless to run twice: the moments load those modules before they write anything but a project
// folder or the current-session pointer (tests: test/e2e/hook-first-stage.test.ts).
import { fileURLToPath } from 'node:url';
import type { Moment } from '../agents/adapter.js';
import { DEFAULT_AGENT, entryByName } from '../agents/lookup.js';
import { FIRST_STAGE_MISS } from '../app/hook.js';
import * as hookCommand from '../commands/hook.js';
import type { RunContext } from '../commands/run.js';
import { consolidationBeside } from './consolidate-beside.js';
import type { ParsedLean } from './lean-args.js';
import { leanLine } from './lean-line.js';
import { buildRunContext, printResult, type GlobalFlags } from './runtime.js';

/** The kinds of first stage (src/entries/build-first-hook.mjs's KINDS: what each leaves out). */
export type FirstStageKind = 'first-hook' | 'first-start' | 'first-prompt' | 'first-tool' | 'first-end' | 'first-archive';

/**
 * The moments this stage serves, whichever agent fires them: every prompt, every tool call, a
 * session's (re)start, the compactions, a session's end and an event wmem ignores; and the kind of
 * build that serves each (first-prompt leaves out the memory part's rendering, loaded beside it
 * when needed; first-start as well, and a new session's handoff; first-tool the context's rendering; first-end what only a new session needs; first-archive the context too). src/entries/build-first-hook.mjs
 * builds each agent's pair and bin/wmem.js's routes to them from these (first-routes.ts).
 */
export const SERVED_MOMENTS: Readonly<Partial<Record<Moment, FirstStageKind>>> = {
  'session-start': 'first-start',
  prompt: 'first-prompt',
  'tool-done': 'first-tool',
  'tool-failed': 'first-tool',
  ignore: 'first-tool',
  'before-compact': 'first-archive',
  'after-compact': 'first-end',
  'session-end': 'first-end',
};

/**
 * Whether this stage serves `event` of the agent named `agent`: its hook part (loaded here, and
 * then by the hook) is in this file only when this file is that agent's.
 */
async function serves(agent: string, event: string | undefined): Promise<boolean> {
  try {
    const names = entryByName(agent);
    const moment = names && event !== undefined ? (await names.hook()).eventFor(event)?.moment : undefined;
    return moment !== undefined && moment in SERVED_MOMENTS;
  } catch {
    return false; // another agent's hook part: a stand-in here
  }
}

/**
 * The stage a hook this one cannot answer is handed to, beside this file (the build defines it):
 * the full entry, or for the prompts' build the agent's first-hook build, which hands on in turn.
 */
declare const WMEM_HANDS_TO: string | undefined;

/** The next stage, with the hook's input when this stage read it already. */
function fullPath(argv: string[], input?: string): Promise<boolean> {
  const next = typeof WMEM_HANDS_TO === 'string' ? WMEM_HANDS_TO : 'fast-hook.cjs';
  const stage = require(fileURLToPath(new URL(`./${next}`, import.meta.url))) as { runHook?: typeof runHook; runFast?: typeof runHook };
  return (stage.runHook ?? stage.runFast)!(argv, input);
}

/**
 * Answers `wmem hook …` here or on the next stage; false when the full CLI should handle the
 * command line. `input`: the hook's standard input, when a stage before this one read it; `read`:
 * the command line as bin/wmem.js read it (parseArgs's answer, without loading parseArgs).
 */
export async function runHook(argv: string[], input?: string, read?: ParsedLean): Promise<boolean> {
  const line = leanLine(argv.slice(2), read);
  const agent = typeof line?.options.agent === 'string' ? line.options.agent : DEFAULT_AGENT;
  if (line?.command !== 'hook' || !(await serves(agent, line.rest[0]))) return fullPath(argv, input);
  let ctx: RunContext | undefined;
  try {
    ctx = await buildRunContext(line.options as GlobalFlags, { plain: true });
    if (input !== undefined) ctx.inputText = input;
    ctx.loadConsolidation = consolidationBeside;
    printResult(await hookCommand.run(line.options as never, ctx, line.rest), ctx);
  } catch (err) {
    // Nothing was printed: the output is printed once the hook has answered. The hook read its
    // input inside its own error handling (a failed read is logged there, and answered); what it
    // read stays on the context (readInputText), for the full path to take over with.
    if (ctx === undefined || (err as Error)?.name === FIRST_STAGE_MISS) return fullPath(argv, ctx?.inputText ?? input);
    // A hook never fails the agent: the hook command logs its own errors; this is the last guard.
    process.exitCode = 0;
  }
  return true;
}
