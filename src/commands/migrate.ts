// `wmem migrate legacy | memory-md FILE | opencode DIR [--dry-run]`: brings older layouts and
// other memories in (SPEC §8). Exits 1 when some item could not be migrated (the rest is done).
import { resolveSession } from '../store/session.js';
import { usageError } from '../ui/errors.js';
import type { CommandResult, RunContext } from '../ui/run.js';

export interface MigrateOptions {
  dryRun?: boolean;
}

async function legacy(options: MigrateOptions, ctx: RunContext): Promise<CommandResult> {
  const { migrateLegacy } = await import('../ops/migrate-legacy.js');
  const { readTemplate, overviewTemplateName } = await import('../store/templates.js');
  const outcomes = await migrateLegacy(ctx.home, { dryRun: Boolean(options.dryRun), now: ctx.now(), overviewTemplate: () => readTemplate(overviewTemplateName('en')) });
  const failed = outcomes.filter((o) => o.status === 'error' || o.status === 'conflict');
  const lines = outcomes.length ? [] : ['no legacy sessions (<id>.jsonl, <id>.meta.json) under ' + ctx.home];
  for (const o of outcomes) {
    lines.push(`${o.status}: ${o.id} (${o.project})${o.error ? ` — ${o.error}` : ''}`);
    for (const a of o.actions) lines.push(`  ${a}`);
  }
  return { data: { kind: 'legacy', dryRun: Boolean(options.dryRun), sessions: outcomes }, text: lines.join('\n'), exitCode: failed.length ? 1 : 0 };
}

async function memoryMd(options: MigrateOptions, ctx: RunContext, file: string | undefined): Promise<CommandResult> {
  if (!file) throw usageError('wmem migrate memory-md needs the file to seed from', 'e.g. wmem migrate memory-md MEMORY.md');
  const session = await resolveSession(ctx);
  const { migrateMemoryMd } = await import('../ops/migrate-memory-md.js');
  const result = await migrateMemoryMd(session, file, { cwd: ctx.cwd, dryRun: Boolean(options.dryRun), now: ctx.now() });
  const verb = result.dryRun ? 'would write' : result.alreadySeeded ? 'already seeded:' : 'wrote';
  const lines = [
    `${result.file}: ${result.tokens} tokens → ${result.chunks.length} chunks of 400 tokens (80 overlap)`,
    `${result.dryRun ? 'would back up' : 'backup'}: ${result.backup}`,
    ...result.chunks.map((c) => `  ${verb} ${c.file} (tokens ${c.start}–${c.end})${!result.dryRun && c.existed && !result.alreadySeeded ? ' (kept from an earlier run)' : ''}`),
  ];
  if (!result.dryRun && !result.alreadySeeded) lines.push(`the next 'wmem consolidate' appends below the existing text of ${result.file}`);
  return { data: { kind: 'memory-md', ...result }, text: lines.join('\n') };
}

async function openCode(options: MigrateOptions, ctx: RunContext, dir: string | undefined): Promise<CommandResult> {
  if (!dir) throw usageError('wmem migrate opencode needs the folder to read', 'e.g. wmem migrate opencode . (the project with .opencode/)');
  const { migrateOpenCode } = await import('../ops/migrate-opencode.js');
  const report = await migrateOpenCode(ctx.home, ctx.cwd, dir, { dryRun: Boolean(options.dryRun), now: ctx.now() });
  const lines: string[] = [];
  for (const s of report.sessions) lines.push(`${s.kind} ${s.file} → session ${s.id || '?'}: ${s.skipped ?? s.done.join('; ')}`);
  if (report.workspace) {
    const w = report.workspace;
    lines.push(`workspace ${w.file}: ${w.skipped ?? `${options.dryRun ? 'would add' : 'added'} ${w.added}, refused ${w.refused.length}`}`);
    for (const r of w.refused) lines.push(`  refused: ${r.text.slice(0, 80)} — ${r.reason}`);
  }
  for (const w of report.warnings) lines.push(`warning: ${w}`);
  const failed = report.sessions.some((s) => s.skipped && s.skipped !== 'already imported') || Boolean(report.workspace?.skipped);
  return { data: { kind: 'opencode', ...report }, text: lines.join('\n'), exitCode: failed ? 1 : 0 };
}

export async function run(options: MigrateOptions, ctx: RunContext, args: unknown[]): Promise<CommandResult> {
  const kind = String(args[0] ?? 'legacy');
  const target = args[1] === undefined ? undefined : String(args[1]);
  switch (kind) {
    case 'legacy':
      if (target) throw usageError('wmem migrate legacy takes no path: it migrates every project under the home');
      return legacy(options, ctx);
    case 'memory-md':
      return memoryMd(options, ctx, target);
    case 'opencode':
      return openCode(options, ctx, target);
    default:
      throw usageError(`unknown migration ${JSON.stringify(kind)}`, 'one of: legacy, memory-md FILE, opencode DIR');
  }
}
