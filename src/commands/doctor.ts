// `wmem doctor`: are wmem's hooks installed (in which settings file), does the command they name
// run, and when did each event last fire? Exits 1 when something needs fixing.
import { spawnSync } from 'node:child_process';
import { installedHooks, wmemPrefix, WMEM_HOOKS } from '../agents/claude/settings.js';
import { claudeSettingsFile, loadSettings, type Scope } from '../agents/settings-file.js';
import { hookLogFile, lastLogLines, readFired, type FiredRecord } from '../agents/hook-log.js';
import type { CommandResult, RunContext } from '../ui/run.js';

interface ScopeReport {
  scope: Scope;
  file: string;
  exists: boolean;
  error?: string;
  installed: string[];
  missing: string[];
  command?: string;
}

function age(from: Date, to: Date): string {
  const s = Math.max(0, Math.round((to.getTime() - from.getTime()) / 1000));
  if (s < 120) return `${s}s ago`;
  if (s < 7200) return `${Math.round(s / 60)}m ago`;
  if (s < 172800) return `${Math.round(s / 3600)}h ago`;
  return `${Math.round(s / 86400)}d ago`;
}

function tryCommand(prefix: string): { runs: boolean; output: string } {
  const result = spawnSync('/bin/sh', ['-c', `${prefix} --version`], { encoding: 'utf8', timeout: 10_000 });
  const output = `${result.stdout ?? ''}${result.stderr ?? ''}`.trim().split('\n')[0] ?? '';
  return { runs: result.status === 0, output: result.error ? result.error.message : output };
}

export async function run(_options: unknown, ctx: RunContext): Promise<CommandResult> {
  const now = ctx.now();
  const scopes: ScopeReport[] = [];
  for (const scope of ['project', 'local', 'user'] as Scope[]) {
    const file = claudeSettingsFile(scope, ctx.cwd, ctx.env);
    try {
      const loaded = await loadSettings(file);
      const found = installedHooks(loaded.settings);
      scopes.push({
        scope,
        file,
        exists: loaded.exists,
        installed: found.filter((f) => f.installed).map((f) => f.event),
        missing: found.filter((f) => !f.installed).map((f) => f.event),
        command: found.find((f) => f.command)?.command,
      });
    } catch (err) {
      scopes.push({ scope, file, exists: true, error: (err as Error).message, installed: [], missing: WMEM_HOOKS.map((h) => h.event) });
    }
  }
  const withHooks = scopes.filter((s) => s.installed.length);
  const prefix = withHooks[0]?.command ? wmemPrefix(withHooks[0].command) : undefined;
  const command = prefix ? { prefix, ...tryCommand(prefix) } : undefined;
  const fired: Record<string, FiredRecord | null> = {};
  for (const { event } of WMEM_HOOKS) fired[event] = (await readFired(ctx.home, event)) ?? null;
  const recentErrors = (await lastLogLines(ctx.home, 5)).filter((l) => / error: /.test(l));

  const problems: string[] = [];
  if (!withHooks.length) problems.push("wmem's hooks are not installed: run 'wmem install claude'");
  for (const s of withHooks) if (s.missing.length) problems.push(`${s.file} lacks ${s.missing.join(', ')}: run 'wmem install claude --scope ${s.scope}'`);
  for (const s of scopes) if (s.error) problems.push(s.error);
  if (withHooks.length > 1) {
    problems.push(`wmem's hooks are in ${withHooks.length} settings files (${withHooks.map((s) => s.scope).join(', ')}): Claude Code runs each of them, so every hook runs twice; keep one ('wmem uninstall claude --scope SCOPE')`);
  }
  if (command && !command.runs) problems.push(`the hook command does not run (${command.prefix} --version: ${command.output || 'failed'}): reinstall with 'wmem install claude'`);
  const ok = problems.length === 0;

  const lines: string[] = ['Claude Code hooks'];
  for (const s of scopes) {
    const state = s.error ? 'unreadable' : !s.exists ? 'no file' : s.installed.length === WMEM_HOOKS.length ? `installed (${s.installed.length}/${WMEM_HOOKS.length})` : s.installed.length ? `partly installed (${s.installed.length}/${WMEM_HOOKS.length})` : 'no wmem hooks';
    lines.push(`  ${s.scope.padEnd(8)} ${state.padEnd(26)} ${s.file}`);
  }
  lines.push(command ? `command    ${command.runs ? 'runs' : 'FAILS'}: ${command.prefix}${command.output ? `  (${command.output})` : ''}` : 'command    (none installed)');
  lines.push('last fired');
  for (const [event, record] of Object.entries(fired)) {
    lines.push(`  ${event.padEnd(20)} ${record ? `${age(new Date(record.at), now)} ${record.ok ? 'ok' : 'FAILED'}${record.note ? ` — ${record.note}` : ''}` : 'never'}`);
  }
  if (recentErrors.length) {
    lines.push(`recent hook errors (${hookLogFile(ctx.home)})`);
    for (const l of recentErrors) lines.push(`  ${l}`);
  }
  lines.push(ok ? 'ok' : `problems:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  return {
    data: { ok, scopes, command: command ?? null, fired, recentErrors, log: hookLogFile(ctx.home), problems },
    text: lines.join('\n'),
    exitCode: ok ? 0 : 1,
  };
}
