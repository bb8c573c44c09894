// `wmem migrate legacy | memory-md FILE | opencode DIR [--dry-run]`: brings older layouts and
// other memories in (docs/operations.md). `failed` says some item could not be migrated (the rest is done).
import { resolveSession } from '../store/session.js';
import { usageError } from '../ui/errors.js';
import type { AppEnv } from './env.js';

export interface MigrateOptions {
  kind?: string;
  /** memory-md: the file; opencode: the folder. */
  target?: string;
  dryRun?: boolean;
}

type Legacy = Awaited<ReturnType<typeof import('../ops/migrate/legacy.js').migrateLegacy>>;
type MemoryMd = Awaited<ReturnType<typeof import('../ops/migrate/memory-md.js').migrateMemoryMd>>;
type OpenCode = Awaited<ReturnType<typeof import('../ops/migrate/opencode.js').migrateOpenCode>>;

export type MigrateResult =
  | { kind: 'legacy'; dryRun: boolean; home: string; sessions: Legacy; failed: boolean }
  | { kind: 'memory-md'; result: MemoryMd; failed: false }
  | { kind: 'opencode'; dryRun: boolean; report: OpenCode; failed: boolean };

async function legacy(dryRun: boolean, env: AppEnv): Promise<MigrateResult> {
  const { migrateLegacy } = await import('../ops/migrate/legacy.js');
  const { readTemplate, overviewTemplateName } = await import('../store/templates.js');
  const sessions = await migrateLegacy(env.home, { dryRun, now: env.now(), overviewTemplate: () => readTemplate(overviewTemplateName('en')) });
  return { kind: 'legacy', dryRun, home: env.home, sessions, failed: sessions.some((o) => o.status === 'error' || o.status === 'conflict') };
}

async function memoryMd(dryRun: boolean, env: AppEnv, file: string | undefined): Promise<MigrateResult> {
  if (!file) throw usageError('wmem migrate memory-md needs the file to seed from', 'e.g. wmem migrate memory-md MEMORY.md');
  const session = await resolveSession(env);
  const { migrateMemoryMd } = await import('../ops/migrate/memory-md.js');
  return { kind: 'memory-md', result: await migrateMemoryMd(session, file, { cwd: env.cwd, dryRun, now: env.now() }), failed: false };
}

async function openCode(dryRun: boolean, env: AppEnv, dir: string | undefined): Promise<MigrateResult> {
  if (!dir) throw usageError('wmem migrate opencode needs the folder to read', 'e.g. wmem migrate opencode . (the project with .opencode/)');
  const { migrateOpenCode } = await import('../ops/migrate/opencode.js');
  const report = await migrateOpenCode(env.home, env.cwd, dir, { dryRun, now: env.now() });
  const failed = report.sessions.some((s) => s.skipped && s.skipped !== 'already imported') || Boolean(report.workspace?.skipped);
  return { kind: 'opencode', dryRun, report, failed };
}

export async function migrate(options: MigrateOptions, env: AppEnv): Promise<MigrateResult> {
  const kind = options.kind ?? 'legacy';
  const dryRun = Boolean(options.dryRun);
  switch (kind) {
    case 'legacy':
      if (options.target) throw usageError('wmem migrate legacy takes no path: it migrates every project under the home');
      return legacy(dryRun, env);
    case 'memory-md':
      return memoryMd(dryRun, env, options.target);
    case 'opencode':
      return openCode(dryRun, env, options.target);
    default:
      throw usageError(`unknown migration ${JSON.stringify(kind)}`, 'one of: legacy, memory-md FILE, opencode DIR');
  }
}
