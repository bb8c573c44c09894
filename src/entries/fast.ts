// The lean entry for the commands that run on every prompt: `wmem context` and `wmem hook EVENT`.
// It parses with node:util's parseArgs from the same command table as the full CLI and skips
// loading commander (~10 ms). Anything it does not recognise exactly (help, a typo, another
// command) returns false, and bin/wmem.js hands the whole command line to the full CLI, which
// gives the usual messages.
import { VERSION } from '../options.js';
import { leanLine } from './lean-line.js';
import { buildRunContext, printResult, reportError, stdoutOf, writeStdout, type GlobalFlags } from './runtime.js';
import { fileURLToPath } from 'node:url';
import { envKey, signInputs } from '../store/answers.js';
import { saveAnswer, settleMs } from '../store/answers-save.js';
import { ANSWER_VERSION } from './first.js';
import type { CommandResult, RunContext } from '../commands/run.js';
import { consolidationBeside } from './consolidate-beside.js';
// Static, so the whole `context` path is in this one bundle file (no chunk loading per prompt).
import * as contextCommand from '../commands/context.js';

/**
 * Returns false when the full CLI should handle this command line. `input`: the hook's standard
 * input, when the hook's first stage (first-hook.ts) read it and then handed the hook over.
 */
export async function runFast(argv: string[], input?: string): Promise<boolean> {
  const args = argv.slice(2);
  if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
    writeStdout(VERSION + '\n');
    return true;
  }
  const line = leanLine(args);
  if (!line) return false;
  const isHook = line.command === 'hook';
  try {
    const ctx = await buildRunContext(line.options as GlobalFlags, { plain: true });
    if (!isHook) return await answerContext(args, line.options as never, ctx);
    if (input !== undefined) ctx.inputText = input;
    ctx.loadConsolidation = consolidationBeside;
    const command: { run: (o: never, c: RunContext, a: string[]) => Promise<CommandResult> } = await import('../commands/hook.js');
    printResult(await command.run(line.options as never, ctx, line.rest), ctx);
  } catch (err) {
    // A hook never fails the agent: the hook command logs its own errors; this is the last guard.
    if (isHook) process.exitCode = 0;
    else reportError(err);
  }
  return true;
}

/**
 * `wmem context`, answered in full: printed, then kept in the session's answer cache with what it
 * was computed from, so that the first stage (first.ts) answers the same call while nothing changed.
 */
async function answerContext(args: string[], options: Parameters<typeof contextCommand.run>[0], ctx: RunContext): Promise<true> {
  const warned: string[] = [];
  const warn = ctx.warn;
  ctx.warn = (message) => {
    warn(message);
    if (!ctx.quiet) warned.push(message.endsWith('\n') ? message : message + '\n');
  };
  const result = await contextCommand.run(options, ctx);
  printResult(result, ctx);
  const cache = result.answerCache;
  if (cache && !result.exitCode) {
    const self = fileURLToPath(import.meta.url);
    // This bundle is an input too: a rebuild never answers from an entry the old one wrote.
    const inputs = [...signInputs([self]), ...cache.inputs];
    const entry = { version: ANSWER_VERSION, cwd: process.cwd(), env: envKey(ctx.env), inputs, stdout: stdoutOf(result, ctx), stderr: warned.join('') };
    await saveAnswer(cache.stateDir, args, entry, settleMs(ctx.env));
  }
  return true;
}
