// `wmem share [ID…] [--all] [--type T] [--remove ID] [--init] [--check] [--diff]`: thin glue over
// src/app/share.ts.
import { share, type ShareOptions } from '../app/share.js';
import { renderShare } from '../views/reports.js';
import type { CommandResult, RunContext } from './run.js';

export async function run(options: Omit<ShareOptions, 'ids'>, ctx: RunContext, args: unknown[]): Promise<CommandResult> {
  const result = await share({ ...options, ids: ((args[0] as string[] | undefined) ?? []).map(String) }, ctx);
  const text = renderShare(result, ctx.cwd);
  if (result.action === 'check') {
    const { action: _a, exists: _e, ...data } = result;
    return { data, text, exitCode: result.problems.some((p) => p.severity === 'error') ? 1 : 0 };
  }
  const { action: _a, ...data } = result;
  return { data, text: ctx.quiet ? '' : text };
}
