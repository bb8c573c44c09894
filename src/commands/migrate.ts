// `wmem migrate …`: thin glue over src/app/migrate.ts. Exits 1 when some item could not be
// migrated (the rest is done).
import { migrate } from '../app/migrate.js';
import { renderMigrate } from '../views/reports.js';
import type { CommandResult, RunContext } from './run.js';

export interface MigrateOptions {
  dryRun?: boolean;
}

export async function run(options: MigrateOptions, ctx: RunContext, args: unknown[]): Promise<CommandResult> {
  const result = await migrate({ kind: String(args[0] ?? 'legacy'), target: args[1] === undefined ? undefined : String(args[1]), dryRun: options.dryRun }, ctx);
  const data =
    result.kind === 'legacy'
      ? { kind: 'legacy', dryRun: result.dryRun, sessions: result.sessions }
      : result.kind === 'memory-md'
        ? { kind: 'memory-md', ...result.result }
        : { kind: 'opencode', ...result.report };
  return { data, text: renderMigrate(result), exitCode: result.failed ? 1 : 0 };
}
