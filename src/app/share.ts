// `wmem share`: team memory through git. Workspace entries are copied into `.wmem/memory.md` at
// the repository's root, a file made to be committed; teammates' sessions read it after a pull.
// wmem never pushes, pulls or commits.
import { usageError } from '../ui/errors.js';
import type { TeamChange, TeamEntry, TeamFile, TeamProblem } from '../memory/team.js';
import type { AppEnv } from './env.js';

export interface ShareOptions {
  /** Entry ids to share. */
  ids?: string[];
  all?: boolean;
  type?: string;
  remove?: string;
  init?: boolean;
  check?: boolean;
  /** Report what the command would add, change and remove in the team file; write nothing. */
  diff?: boolean;
}

export interface SharedEntry {
  id: string;
  type: string;
  text: string;
  created: string;
  updated: string;
}

/** Own entries brought up to the team's newer copy (`wmem share` makes the local copy say what the file says). */
export interface Refreshed {
  id: string;
  text: string;
  updated: string;
}

export type ShareResult =
  | { action: 'init'; root: string; file: string; created: boolean; attributesAdded: boolean; refreshed: Refreshed[] }
  | { action: 'share'; root: string; file: string; shared: SharedEntry[]; attributesAdded: boolean; refreshed: Refreshed[]; kept: { id: string; reason: string }[] }
  | { action: 'remove'; root: string; file: string; removed: string; lines: number }
  | { action: 'check'; file: string; exists: boolean; entries: number; injected: number; problems: TeamProblem[] }
  | { action: 'diff'; root: string; file: string; changes: TeamChange[]; refreshed: Refreshed[] };

export async function share(options: ShareOptions, env: AppEnv): Promise<ShareResult> {
  const ids = options.ids ?? [];
  const { findRepoRootSync, gitRoot } = await import('../store/team.js');
  // The check only reads: the repository is found as sessions find it (no git process to start, a CI gate stays quick).
  if (options.check) return check(findRepoRootSync(env.cwd) ?? (await gitRoot(env.cwd)), env);
  const root = await gitRoot(env.cwd);
  const picked = ids.length > 0 || Boolean(options.all) || options.type !== undefined;
  if (options.diff) return diff(root, { ids, all: options.all, type: options.type, remove: options.remove, picked }, env);
  if (options.remove !== undefined) return remove(root, options.remove);
  if (options.init && !picked) return init(root, env);
  if (!picked) {
    throw usageError('name what to share: entry ids, --all or --type TYPE', "run 'wmem memories' to list the ids; 'wmem share --init' only sets the file up; --diff shows a change before it is made");
  }
  return shareEntries(root, { ids, all: options.all, type: options.type }, env);
}

async function init(root: string, env: AppEnv): Promise<ShareResult> {
  const { changeTeam, ensureAttributes, teamFilePath } = await import('../store/team.js');
  const { formatTeam, notAfter, parseTeam } = await import('../memory/team.js');
  const latest = notAfter(env.now().getTime());
  const created = await changeTeam(root, (file) => ({ file: file ?? parseTeam(''), result: !file, text: formatTeam(file ?? parseTeam(''), latest) }));
  const attributesAdded = await ensureAttributes(root);
  return { action: 'init', root, file: teamFilePath(root), created, attributesAdded, refreshed: await refresh(root, env) };
}

interface Pick {
  ids: string[];
  all?: boolean;
  type?: string;
}

/** The project's own entries that `pick` names (never a team entry); exit 2 for an unknown id or type. */
async function chosenEntries(pick: Pick, env: AppEnv) {
  const { locateProject } = await import('../store/project.js');
  const { readWorkspaceSync } = await import('../store/workspace.js');
  const { WORKSPACE_TYPES } = await import('../memory/workspace.js');
  if (pick.type !== undefined && !(WORKSPACE_TYPES as readonly string[]).includes(pick.type)) {
    throw usageError(`unknown --type ${JSON.stringify(pick.type)}`, `use one of ${WORKSPACE_TYPES.join(', ')}`);
  }
  const project = await locateProject(env.home, env.cwd, { create: false });
  const entries = project ? readWorkspaceSync(project.dir).entries : [];
  const missing = pick.ids.filter((id) => !entries.some((e) => e.id === id));
  if (missing.length) throw usageError(`no workspace memory entr${missing.length > 1 ? 'ies' : 'y'} ${missing.join(', ')}`, "run 'wmem memories' to list the ids");
  const chosen = entries.filter((e) => e.source !== 'team' && (pick.all || pick.ids.includes(e.id) || e.type === pick.type));
  const { findSecret } = await import('../memory/gate.js');
  const { instructsModel } = await import('../memory/injection.js');
  for (const entry of chosen) {
    const secret = findSecret(entry.text);
    // This file is committed: nothing is written if any chosen entry looks like a secret.
    if (secret) throw usageError(`refused: entry ${entry.id} holds what looks like ${secret.kind}, and .wmem/memory.md is committed to git; nothing was written`, `forget it (wmem forget ${entry.id}) or share the others by id`);
    // Sessions would never show it, and --check would fail on it.
    if (instructsModel(entry.text)) throw usageError(`refused (injection): entry ${entry.id} tries to instruct the model that reads the memory; nothing was written`, `forget it (wmem forget ${entry.id}) or share the others by id`);
  }
  return chosen.map(({ id, type, text, created, updated }) => ({ id, type, text, created, updated }));
}

/**
 * The team file after sharing `chosen`: each goes in unless the file holds a newer copy of it
 * (a teammate's edit; the local copy is refreshed instead, never written over it).
 */
async function planShare(file: TeamFile, chosen: Omit<TeamEntry, 'line'>[], latest: number) {
  const { upsertTeam } = await import('../memory/team.js');
  const { newerCopy } = await import('../memory/workspace-block.js');
  const team = await shownTeam(file, latest);
  const shared: Omit<TeamEntry, 'line'>[] = [];
  const kept: { id: string; reason: string }[] = [];
  for (const mine of chosen) {
    const theirs = team.get(mine.id);
    if (theirs && newerCopy(mine, theirs, latest) !== mine) kept.push({ id: mine.id, reason: `the team file holds a newer copy (updated ${theirs.updated}); yours is refreshed to it` });
    else shared.push(mine);
  }
  return { next: upsertTeam(file, shared), shared, kept };
}

async function shareEntries(root: string, pick: Pick, env: AppEnv): Promise<ShareResult> {
  const chosen = await chosenEntries(pick, env);
  const { changeTeam, ensureAttributes, teamFilePath } = await import('../store/team.js');
  const { formatTeam, notAfter, parseTeam } = await import('../memory/team.js');
  if (!chosen.length) return { action: 'share', root, file: teamFilePath(root), shared: [], attributesAdded: false, refreshed: [], kept: [] };
  const latest = notAfter(env.now().getTime());
  const { shared, kept } = await changeTeam(root, async (file) => {
    const plan = await planShare(file ?? parseTeam(''), chosen, latest);
    return { file: plan.next, result: plan, text: formatTeam(plan.next, latest) };
  });
  const attributesAdded = await ensureAttributes(root);
  return { action: 'share', root, file: teamFilePath(root), shared, attributesAdded, refreshed: await refresh(root, env), kept };
}

/**
 * The team file's entries as sessions show them, by id: the winner of each id, unless it is never
 * shown (a secret, an instruction to the model): such a line neither refreshes a private copy nor
 * stops one from being shared over it.
 */
async function shownTeam(file: TeamFile, latest: number): Promise<Map<string, TeamEntry>> {
  const { shownTeamEntries } = await import('../memory/team.js');
  return new Map(shownTeamEntries(file.entries, latest).map((e) => [e.id, e]));
}

/** Brings the project's own entries up to the team file's newer copies. */
async function refresh(root: string, env: AppEnv, dryRun = false): Promise<Refreshed[]> {
  const { locateProject } = await import('../store/project.js');
  const project = await locateProject(env.home, env.cwd, { create: false });
  if (!project) return [];
  const { readTeam } = await import('../store/team.js');
  const { notAfter } = await import('../memory/team.js');
  const { readWorkspaceSync, refreshFromTeam } = await import('../store/workspace.js');
  const { newerCopy } = await import('../memory/workspace-block.js');
  const file = await readTeam(root);
  if (!file) return [];
  const latest = notAfter(env.now().getTime());
  const team = await shownTeam(file, latest);
  const list = dryRun
    ? readWorkspaceSync(project.dir).entries.filter((e) => team.has(e.id) && newerCopy(e, { ...e, ...team.get(e.id)! }, latest) !== e).map((e) => ({ ...e, ...team.get(e.id)! }))
    : await refreshFromTeam(project.dir, team, latest);
  return list.map(({ id, text, updated }) => ({ id, text, updated }));
}

async function remove(root: string, id: string): Promise<ShareResult> {
  const { removeShared, teamFilePath } = await import('../store/team.js');
  const lines = await removeShared(root, id);
  if (!lines) throw usageError(`no entry ${JSON.stringify(id)} in ${teamFilePath(root)}`, "run 'wmem share --check' or read the file to see its ids");
  return { action: 'remove', root, file: teamFilePath(root), removed: id, lines };
}

/** What share (or --remove, or a bare rewrite) would change in the team file; nothing is written. */
async function diff(root: string, pick: Pick & { remove?: string; picked: boolean }, env: AppEnv): Promise<ShareResult> {
  const { readTeam, teamFilePath } = await import('../store/team.js');
  const { diffTeam, notAfter, parseTeam, removeFromTeam } = await import('../memory/team.js');
  const latest = notAfter(env.now().getTime());
  const before = (await readTeam(root)) ?? parseTeam('');
  let after = before;
  if (pick.remove !== undefined) after = removeFromTeam(after, pick.remove).file;
  if (pick.picked) after = (await planShare(after, await chosenEntries(pick, env), latest)).next;
  return { action: 'diff', root, file: teamFilePath(root), changes: diffTeam(before, after, latest), refreshed: await refresh(root, env, true) };
}

async function check(root: string, env: AppEnv): Promise<ShareResult> {
  const { readTeam, teamFilePath } = await import('../store/team.js');
  const { checkTeam } = await import('../memory/team.js');
  const file = await readTeam(root);
  const where = teamFilePath(root);
  if (!file) return { action: 'check', file: where, exists: false, entries: 0, injected: 0, problems: [] };
  const { problems, entries, injected } = checkTeam(file, env.now().getTime());
  return { action: 'check', file: where, exists: true, entries, injected, problems };
}
