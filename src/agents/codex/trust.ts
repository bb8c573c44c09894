// Pure: whether Codex will run wmem's hooks. Codex runs user and project hooks only once the user
// has trusted them; it keeps that in the user's config.toml as `[hooks.state."<key>"]
// trusted_hash = "sha256:…"`, the key being `<hooks file>:<snake_event>:<group>:<handler>` (both
// read from what Codex 0.169's app-server reports in hooks/list). The hash is Codex's own digest
// of the entry, which wmem does not recompute: a recorded trust for every wmem key means trusted
// (Codex asks again if the entry changed since); no record means "installed, not trusted".
import { createRequire } from 'node:module';
import type { parse as parseToml } from 'smol-toml';
import path from 'node:path';
import { PROJECT_TRUST_NOTE, TRUST_NOTE, type InstalledCodexHook } from './hooks-config.js';
import { isObject } from '../../ui/json.js';

export type TrustState = 'trusted' | 'untrusted' | 'partly' | 'unknown';

export interface TrustReport {
  state: TrustState;
  /** Events whose wmem entry has no trust record. */
  untrusted: string[];
  /** Why it cannot tell (config.toml does not parse). */
  reason?: string;
}

/**
 * smol-toml, loaded on first use: only doctor reads config.toml, and every hook loads the
 * registry (so this module) on its lean path. A runtime require keeps it out of that bundle.
 */
function parse(text: string): unknown {
  return (createRequire(import.meta.url)('smol-toml') as { parse: typeof parseToml }).parse(text);
}

/** The keys config.toml records a trusted hash for. Throws when the text is not TOML. */
export function trustedKeys(configToml: string | undefined): Set<string> {
  if (!configToml?.trim()) return new Set();
  const config = parse(configToml) as Record<string, unknown>;
  const state = isObject(config.hooks) && isObject(config.hooks.state) ? config.hooks.state : {};
  return new Set(Object.entries(state).filter(([, v]) => isObject(v) && typeof v.trusted_hash === 'string' && v.trusted_hash !== '').map(([k]) => k));
}

export function trustOf(installed: InstalledCodexHook[], configToml: string | undefined, configFile: string): TrustReport {
  const ours = installed.filter((h) => h.installed && h.key);
  let keys: Set<string>;
  try {
    keys = trustedKeys(configToml);
  } catch (err) {
    return { state: 'unknown', untrusted: [], reason: `${configFile} does not parse as TOML (${(err as Error).message.split('\n')[0]})` };
  }
  const untrusted = ours.filter((h) => !keys.has(h.key!)).map((h) => h.event);
  const state: TrustState = !ours.length ? 'unknown' : !untrusted.length ? 'trusted' : untrusted.length === ours.length ? 'untrusted' : 'partly';
  return { state, untrusted };
}

/** The line doctor shows for a trust report, or undefined when all is well. */
export function trustProblem(report: TrustReport, file: string): string | undefined {
  if (report.state === 'trusted') return undefined;
  if (report.state === 'unknown') return report.reason ? `cannot tell whether Codex trusts wmem's hooks in ${file}: ${report.reason}` : undefined;
  const which = report.state === 'partly' ? ` (${report.untrusted.join(', ')})` : '';
  return `installed, not trusted${which}: ${file}. ${TRUST_NOTE}`;
}

/**
 * Whether Codex trusts the project folder `dir` (`[projects."<dir>"] trust_level = "trusted"`,
 * written when the user says yes to codex's folder question or by `codex exec --trust`); a
 * trusted ancestor counts. Undefined when config.toml does not parse.
 */
export function projectTrusted(configToml: string | undefined, dir: string): boolean | undefined {
  let config: unknown;
  try {
    config = configToml?.trim() ? parse(configToml) : {};
  } catch {
    return undefined;
  }
  const projects = isObject(config) && isObject(config.projects) ? config.projects : {};
  for (let at = path.resolve(dir); ; at = path.dirname(at)) {
    const entry = projects[at];
    if (isObject(entry) && entry.trust_level === 'trusted') return true;
    if (path.dirname(at) === at) return false;
  }
}

/** doctor's line for project hooks in a project Codex does not trust, or undefined. */
export function projectTrustProblem(configToml: string | undefined, hooksFile: string): string | undefined {
  const dir = path.dirname(path.dirname(hooksFile));
  return projectTrusted(configToml, dir) === false ? `${dir} is not a trusted project in Codex, so it does not read ${hooksFile}. ${PROJECT_TRUST_NOTE}` : undefined;
}

/** What doctor says about trust for wmem's entries in `file`, given the user's config.toml. */
export function trustProblems(scope: string, file: string, installed: InstalledCodexHook[], configFile: string, configToml: string | undefined): string[] {
  const problems: string[] = [];
  const project = scope === 'project' ? projectTrustProblem(configToml, file) : undefined;
  if (project) problems.push(project);
  const hooks = trustProblem(trustOf(installed, configToml, configFile), file);
  if (hooks) problems.push(hooks);
  return problems;
}
