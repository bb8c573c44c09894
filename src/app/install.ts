// `wmem install AGENT` / `wmem uninstall AGENT`: the adapter plans the change to its config file
// from the file's text (pure), and this writes it: atomically, under a lock, only when something
// changes; a dry run computes the same plan and writes nothing. A file the adapter cannot parse
// is refused (exit 2) and left untouched.
import { ConfigShapeError, type AgentAdapter, type ConfigPlan, type Scope } from '../agents/adapter.js';
import { readConfigText, removeConfigFile, withConfigLock, wmemCommandPrefix, writeConfigText } from '../agents/config-file.js';
import { findAgent, knownAgents } from '../agents/registry.js';
import { usageError } from '../ui/errors.js';
import type { AppEnv } from './env.js';

export interface InstallOptions {
  agent: string;
  scope?: string;
  dryRun?: boolean;
  /** The --home given on the command line: the hooks are told it too. */
  home?: string;
  /** The window of the user's model, given to every hook (else each session's model decides). */
  tokensMax?: number;
}

export interface InstallResult {
  agent: string;
  displayName: string;
  scope: Scope;
  file: string;
  /** The command the hooks run (install only). */
  command?: string;
  tokensMax?: number;
  changed: boolean;
  dryRun: boolean;
  plan: ConfigPlan;
}

/** The adapter the user named, or a usage error listing the known ones. */
export function adapterToInstall(name: unknown, verb: 'install' | 'uninstall'): AgentAdapter {
  const adapter = typeof name === 'string' ? findAgent(name) : undefined;
  if (adapter) return adapter;
  const action = verb === 'install' ? 'install hooks for' : 'uninstall hooks of';
  throw usageError(`cannot ${action} ${JSON.stringify(name)}: no such agent`, `known agents: ${knownAgents()}`);
}

function scopeOf(adapter: AgentAdapter, scope: string | undefined): Scope {
  const wanted = (scope ?? adapter.config.defaultScope) as Scope;
  if (adapter.config.scopes.includes(wanted)) return wanted;
  throw usageError(`${adapter.displayName} has no ${JSON.stringify(scope)} scope`, `use --scope ${adapter.config.scopes.join(', --scope ')}`);
}

/**
 * Reads the file, plans, and writes when the plan changes it (under the lock unless a dry run):
 * the one write path for every config plan, hooks and MCP alike.
 */
export async function applyConfigPlan(env: AppEnv, file: string, dryRun: boolean, plan: (text: string | undefined) => ConfigPlan): Promise<ConfigPlan> {
  const work = async () => {
    const text = await readConfigText(file);
    let planned: ConfigPlan;
    try {
      planned = plan(text);
    } catch (err) {
      if (err instanceof ConfigShapeError) throw usageError(err.message, err.hint);
      throw err;
    }
    if (planned.changed && !dryRun) await (planned.remove ? removeConfigFile(file) : writeConfigText(file, planned.after));
    return planned;
  };
  return dryRun ? work() : withConfigLock(env.home, file, work);
}

export async function install(options: InstallOptions, env: AppEnv): Promise<InstallResult> {
  const adapter = adapterToInstall(options.agent, 'install');
  const scope = scopeOf(adapter, options.scope);
  const file = adapter.config.file(scope, env);
  const command = wmemCommandPrefix(env.env, options.home);
  const dryRun = Boolean(options.dryRun);
  const plan = await applyConfigPlan(env, file, dryRun, (text) => adapter.config.planInstall(file, text, { command, tokensMax: options.tokensMax, home: env.home }));
  return { agent: adapter.id, displayName: adapter.displayName, scope, file, command, ...(options.tokensMax ? { tokensMax: options.tokensMax } : {}), changed: plan.changed, dryRun, plan };
}

export async function uninstall(options: InstallOptions, env: AppEnv): Promise<InstallResult> {
  const adapter = adapterToInstall(options.agent, 'uninstall');
  const scope = scopeOf(adapter, options.scope);
  const file = adapter.config.file(scope, env);
  const dryRun = Boolean(options.dryRun);
  const plan = await applyConfigPlan(env, file, dryRun, (text) => adapter.config.planUninstall(file, text));
  return { agent: adapter.id, displayName: adapter.displayName, scope, file, changed: plan.changed, dryRun, plan };
}
