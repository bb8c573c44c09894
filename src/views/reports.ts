// Pure: the CLI's text for the smaller verbs (sessions, track, sweep, migrate, share). The
// use cases return data; these turn it into lines; --json prints the data instead.
import path from 'node:path';
import type { SessionsResult } from '../app/sessions.js';
import type { TrackOutcome } from '../app/track.js';
import type { SweepReport } from '../app/sweep.js';
import type { MigrateResult } from '../app/migrate.js';
import type { ShareResult } from '../app/share.js';

export function renderSessions(result: SessionsResult): string {
  if (!result.project) return `no sessions for ${result.cwd}: run 'wmem init'`;
  if (!result.sessions.length) return `no sessions in ${result.project}`;
  return result.sessions.map((s) => `${s.current ? '*' : ' '} ${s.id}  ${s.createdAt ?? '-'}  messages ${s.messagesBytes} B  scratch ${s.scratchBytes} B`).join('\n');
}

export function renderTrack(outcome: TrackOutcome): string {
  const lines = [
    ...(outcome.files.length ? [`active: ${outcome.files.join(', ')}`] : []),
    ...(outcome.opened ? [`open ${outcome.opened.category} error #${outcome.opened.fingerprint}: ${outcome.opened.summary}`] : []),
    ...outcome.cleared.map((e) => `cleared ${e.category} error #${e.fingerprint}`),
    ...(outcome.todosChanged ? [`todo list: ${outcome.state.todos?.length ?? 0} items`] : []),
  ];
  return lines.join('\n') || 'nothing to track';
}

function human(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

export function renderSweep(report: SweepReport): string {
  const verb = report.dryRun ? 'would delete' : 'deleted';
  return [
    `${report.dryRun ? 'dry run: ' : ''}scanned ${report.filesScanned} files in ${report.projects} project${report.projects === 1 ? '' : 's'}; ${verb} ${report.filesDeleted} (${human(report.bytesReclaimed)})`,
    ...report.removed.map((r) => `  ${verb} ${r}`),
    ...report.errors.map((e) => `  error: ${e.path}: ${e.message}`),
  ].join('\n');
}

export function renderMigrate(migrated: MigrateResult): string {
  const lines: string[] = [];
  if (migrated.kind === 'legacy') {
    if (!migrated.sessions.length) lines.push('no legacy sessions (<id>.jsonl, <id>.meta.json) under ' + migrated.home);
    for (const o of migrated.sessions) {
      lines.push(`${o.status}: ${o.id} (${o.project})${o.error ? ` — ${o.error}` : ''}`);
      for (const a of o.actions) lines.push(`  ${a}`);
    }
  } else if (migrated.kind === 'memory-md') {
    const result = migrated.result;
    const verb = result.dryRun ? 'would write' : result.alreadySeeded ? 'already seeded:' : 'wrote';
    lines.push(
      `${result.file}: ${result.tokens} tokens → ${result.chunks.length} chunks of 400 tokens (80 overlap)`,
      `${result.dryRun ? 'would back up' : 'backup'}: ${result.backup}`,
      ...result.chunks.map((c) => `  ${verb} ${c.file} (tokens ${c.start}–${c.end})${!result.dryRun && c.existed && !result.alreadySeeded ? ' (kept from an earlier run)' : ''}`),
    );
    if (!result.dryRun && !result.alreadySeeded) lines.push(`the next 'wmem consolidate' appends below the existing text of ${result.file}`);
  } else {
    const report = migrated.report;
    for (const s of report.sessions) lines.push(`${s.kind} ${s.file} → session ${s.id || '?'}: ${s.skipped ?? s.done.join('; ')}`);
    if (report.workspace) {
      const w = report.workspace;
      lines.push(`workspace ${w.file}: ${w.skipped ?? `${migrated.dryRun ? 'would add' : 'added'} ${w.added}, refused ${w.refused.length}`}`);
      for (const r of w.refused) lines.push(`  refused: ${r.text.slice(0, 80)} — ${r.reason}`);
    }
    for (const w of report.warnings) lines.push(`warning: ${w}`);
  }
  return lines.join('\n');
}

function refreshedLines(result: { refreshed: { id: string; text: string }[] }): string[] {
  return result.refreshed.map((e) => `refreshed ${e.id} from the team's newer copy: ${e.text}`);
}

/** `cwd`: paths are shown relative to where the command ran. */
export function renderShare(result: ShareResult, cwd: string): string {
  switch (result.action) {
    case 'init':
      return [
        `${result.created ? 'created' : 'kept'} ${result.file}`,
        result.attributesAdded ? `added ".wmem/memory.md merge=union" to ${path.join(result.root, '.gitattributes')}` : `.gitattributes already merges it line by line`,
        ...refreshedLines(result),
        'commit both: teammates see the shared entries after they pull',
      ].join('\n');
    case 'share':
      if (!result.shared.length && !result.kept.length) return 'nothing to share: no workspace entry matches (wmem memories lists them)';
      return [
        ...result.shared.map((e) => `shared ${e.id}: [${e.type}] ${e.text}`),
        ...result.kept.map((k) => `not shared ${k.id}: ${k.reason}`),
        ...refreshedLines(result),
        ...(result.attributesAdded ? [`added ".wmem/memory.md merge=union" to ${path.join(result.root, '.gitattributes')}`] : []),
        ...(result.shared.length ? [`commit ${path.relative(cwd, result.file) || result.file} to share ${result.shared.length === 1 ? 'it' : 'them'} with the team`] : []),
      ].join('\n');
    case 'remove':
      return `removed ${result.removed} from ${result.file}`;
    case 'diff': {
      const where = path.relative(cwd, result.file) || result.file;
      if (!result.changes.length && !result.refreshed.length) return `no change to ${where}`;
      const lines = result.changes.flatMap((c) => (c.kind === 'change' ? [`~ ${c.id}`, `-   ${c.from}`, `+   ${c.to}`] : [`${c.kind === 'add' ? '+' : '-'} ${c.line}`]));
      const count = (k: string) => result.changes.filter((c) => c.kind === k).length;
      return [
        `--- ${where}`,
        `+++ ${where} (after wmem share)`,
        ...lines,
        ...result.refreshed.map((e) => `would refresh your ${e.id} from the team's newer copy: ${e.text}`),
        `${count('add')} to add, ${count('change')} to change, ${count('remove')} to remove; nothing written`,
      ].join('\n');
    }
    case 'check': {
      if (!result.exists) return `no ${result.file}: nothing to check`;
      const lines = result.problems.map((p) => `${result.file}${p.line ? `:${p.line}` : ''}: ${p.severity === 'warning' ? 'warning: ' : ''}${p.kind}: ${p.message}`);
      const errors = result.problems.filter((p) => p.severity === 'error').length;
      const warnings = result.problems.length - errors;
      const summary = `${result.entries} entr${result.entries === 1 ? 'y' : 'ies'} (${result.injected} injected), ${errors} problem${errors === 1 ? '' : 's'}${warnings ? `, ${warnings} warning${warnings === 1 ? '' : 's'}` : ''}`;
      return [...lines, summary].join('\n');
    }
  }
}
