// `wmem sweep`: thin glue over src/app/sweep.ts. Exit 0 even when there was nothing to do; 1 when
// some deletion failed.
import { sweep, type SweepOptions } from '../app/sweep.js';
import { renderSweep } from '../views/reports.js';
import type { CommandResult, RunContext } from './run.js';

export async function run(options: SweepOptions, ctx: RunContext): Promise<CommandResult> {
  const report = await sweep(options, ctx);
  const data = {
    filesScanned: report.filesScanned,
    filesDeleted: report.filesDeleted,
    bytesReclaimed: report.bytesReclaimed,
    errors: report.errors,
    removed: report.removed,
    projects: report.projects,
    dryRun: report.dryRun,
  };
  return { data, text: renderSweep(report), exitCode: report.errors.length ? 1 : 0 };
}
