// `wmem off` / `wmem on`: src/app/switch.ts flips the project's switch; this prints what it did.
import { switchProject } from '../app/switch.js';
import type { CommandResult, RunContext } from './run.js';

async function flip(ctx: RunContext, off: boolean): Promise<CommandResult> {
  const result = await switchProject({ off }, ctx);
  const data = { off: result.off, changed: result.changed, ...(result.project ? { project: result.project.cwd, file: result.file } : {}) };
  const where = result.project?.cwd ?? ctx.cwd;
  const text = off
    ? `wmem is ${result.changed ? 'now' : 'already'} off for ${where}: hooks and wmem context do nothing here ('wmem on' turns it back on)`
    : `wmem is ${result.changed ? 'now' : 'already'} on for ${where}`;
  return { data, text: ctx.quiet ? '' : text };
}

export const runOff = (_options: unknown, ctx: RunContext) => flip(ctx, true);
export const runOn = (_options: unknown, ctx: RunContext) => flip(ctx, false);
