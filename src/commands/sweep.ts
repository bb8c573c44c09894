// `wmem sweep`: storage governance for CI and cron, over every project under the home. Exit 0
// even when there was nothing to do; 1 when some deletion failed.
import { sweepHome } from '../ops/sweep.js';
import { parseTtl } from '../ops/sweep-plan.js';
import type { CommandResult, RunContext } from '../ui/run.js';

export interface SweepOptions {
  maxFiles?: number;
  ttl?: string;
  dryRun?: boolean;
}

function human(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

export async function run(options: SweepOptions, ctx: RunContext): Promise<CommandResult> {
  const ttlMs = parseTtl(options.ttl ?? '7d');
  const maxFiles = options.maxFiles ?? 300;
  const report = await sweepHome(ctx.home, { maxFiles, ttlMs, nowMs: ctx.now().getTime() }, Boolean(options.dryRun));
  const verb = report.dryRun ? 'would delete' : 'deleted';
  const lines = [
    `${report.dryRun ? 'dry run: ' : ''}scanned ${report.filesScanned} files in ${report.projects} project${report.projects === 1 ? '' : 's'}; ${verb} ${report.filesDeleted} (${human(report.bytesReclaimed)})`,
    ...report.removed.map((r) => `  ${verb} ${r}`),
    ...report.errors.map((e) => `  error: ${e.path}: ${e.message}`),
  ];
  const data = {
    filesScanned: report.filesScanned,
    filesDeleted: report.filesDeleted,
    bytesReclaimed: report.bytesReclaimed,
    errors: report.errors,
    removed: report.removed,
    projects: report.projects,
    dryRun: report.dryRun,
  };
  return { data, text: lines.join('\n'), exitCode: report.errors.length ? 1 : 0 };
}
