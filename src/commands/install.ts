// `wmem install claude` / `wmem uninstall claude`: merges wmem's hooks into a Claude Code
// settings file (project, local or user scope), keeping every other setting and hook; a second
// install changes nothing; uninstall removes only wmem's entries. --dry-run prints the result.
import { mergeWmemHooks, removeWmemHooks, formatSettings } from '../agents/claude/settings.js';
import { claudeSettingsFile, loadSettings, shapeError, withSettingsLock, wmemCommandPrefix, writeSettings, type Scope } from '../agents/settings-file.js';
import { usageError } from '../ui/errors.js';
import type { CommandResult, RunContext } from '../ui/run.js';

export interface InstallOptions {
  scope?: Scope;
  dryRun?: boolean;
  home?: string;
  /** The window of the user's model, given to every hook (else each session's model decides). */
  tokensMax?: number;
}

function checkAgent(agent: unknown): void {
  if (agent === 'claude' || agent === 'claude-code') return;
  throw usageError(`wmem cannot install hooks for ${JSON.stringify(agent)} yet`, "supported: claude (Claude Code). Other agents can call 'wmem context' and 'wmem prune' from their own hooks");
}

export async function run(options: InstallOptions, ctx: RunContext, args: unknown[]): Promise<CommandResult> {
  checkAgent(args[0]);
  const scope = options.scope ?? 'project';
  const file = claudeSettingsFile(scope, ctx.cwd, ctx.env);
  const prefix = wmemCommandPrefix(ctx.env, options.home);
  const work = async () => {
    const loaded = await loadSettings(file);
    let merged;
    try {
      merged = mergeWmemHooks(loaded.settings, prefix, undefined, options.tokensMax);
    } catch (err) {
      throw shapeError(file, err);
    }
    const text = merged.changed ? formatSettings(merged.settings, loaded.indent) : loaded.text || formatSettings(loaded.settings, loaded.indent);
    if (merged.changed && !options.dryRun) await writeSettings(loaded, merged.settings);
    return { loaded, merged, text };
  };
  const { merged, text } = options.dryRun ? await work() : await withSettingsLock(ctx.home, file, work);
  const data = { agent: 'claude', scope, file, command: prefix, ...(options.tokensMax ? { tokensMax: options.tokensMax } : {}), changed: merged.changed, events: merged.events, dryRun: Boolean(options.dryRun) };
  if (options.dryRun) return { data: { ...data, settings: merged.settings }, text };
  if (merged.changed) ctx.warn(`installed wmem's hooks in ${file}: ${merged.events.join(', ')}`);
  else ctx.warn(`wmem's hooks are already installed in ${file}; nothing changed`);
  ctx.warn("check it with 'wmem doctor'");
  return { data, text: '' };
}

export async function runUninstall(options: InstallOptions, ctx: RunContext, args: unknown[]): Promise<CommandResult> {
  checkAgent(args[0]);
  const scope = options.scope ?? 'project';
  const file = claudeSettingsFile(scope, ctx.cwd, ctx.env);
  const work = async () => {
    const loaded = await loadSettings(file);
    let removed;
    try {
      removed = removeWmemHooks(loaded.settings);
    } catch (err) {
      throw shapeError(file, err);
    }
    if (removed.changed && !options.dryRun) await writeSettings(loaded, removed.settings);
    return { loaded, removed };
  };
  const { loaded, removed } = options.dryRun ? await work() : await withSettingsLock(ctx.home, file, work);
  const data = { agent: 'claude', scope, file, changed: removed.changed, removed: removed.removed, dryRun: Boolean(options.dryRun) };
  const text = formatSettings(removed.settings, loaded.indent);
  if (options.dryRun) return { data: { ...data, settings: removed.settings }, text };
  ctx.warn(removed.changed ? `removed ${removed.removed} wmem hook${removed.removed === 1 ? '' : 's'} from ${file}` : `no wmem hooks in ${file}; nothing changed`);
  return { data, text: '' };
}
