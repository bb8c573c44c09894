// `wmem share`: team memory through git. Workspace entries are copied into `.wmem/memory.md` at
// the repository's root, a file made to be committed; teammates' sessions read it after a pull.
// wmem never pushes, pulls or commits.
import { usageError } from '../ui/errors.js';
import type { TeamProblem } from '../memory/team.js';
import type { AppEnv } from './env.js';

export interface ShareOptions {
  /** Entry ids to share. */
  ids?: string[];
  all?: boolean;
  type?: string;
  remove?: string;
  init?: boolean;
  check?: boolean;
}

export interface SharedEntry {
  id: string;
  type: string;
  text: string;
  created: string;
  updated: string;
}

export type ShareResult =
  | { action: 'init'; root: string; file: string; created: boolean; attributesAdded: boolean }
  | { action: 'share'; root: string; file: string; shared: SharedEntry[]; attributesAdded: boolean }
  | { action: 'remove'; root: string; file: string; removed: string; lines: number }
  | { action: 'check'; file: string; exists: boolean; entries: number; problems: TeamProblem[] };

export async function share(options: ShareOptions, env: AppEnv): Promise<ShareResult> {
  const ids = options.ids ?? [];
  const { gitRoot } = await import('../store/team.js');
  const root = await gitRoot(env.cwd);
  if (options.check) return check(root);
  if (options.remove !== undefined) return remove(root, options.remove);
  if (options.init && !ids.length && !options.all && !options.type) return init(root);
  if (!ids.length && !options.all && !options.type) {
    throw usageError('name what to share: entry ids, --all or --type TYPE', "run 'wmem memories' to list the ids; 'wmem share --init' only sets the file up");
  }
  return shareEntries(root, { ids, all: options.all, type: options.type }, env);
}

async function init(root: string): Promise<ShareResult> {
  const { changeTeam, ensureAttributes, teamFilePath } = await import('../store/team.js');
  const { formatTeam, parseTeam } = await import('../memory/team.js');
  const created = await changeTeam(root, (file) => ({ file: file ?? parseTeam(''), result: !file, text: formatTeam(file ?? parseTeam('')) }));
  const attributesAdded = await ensureAttributes(root);
  return { action: 'init', root, file: teamFilePath(root), created, attributesAdded };
}

async function shareEntries(root: string, pick: { ids: string[]; all?: boolean; type?: string }, env: AppEnv): Promise<ShareResult> {
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
  for (const entry of chosen) {
    const secret = findSecret(entry.text);
    // This file is committed: nothing is written if any chosen entry looks like a secret.
    if (secret) throw usageError(`refused: entry ${entry.id} holds what looks like ${secret.kind}, and .wmem/memory.md is committed to git; nothing was written`, `forget it (wmem forget ${entry.id}) or share the others by id`);
  }
  const { changeTeam, ensureAttributes, teamFilePath } = await import('../store/team.js');
  const { formatTeam, parseTeam, upsertTeam } = await import('../memory/team.js');
  if (!chosen.length) return { action: 'share', root, file: teamFilePath(root), shared: [], attributesAdded: false };
  const shared = chosen.map(({ id, type, text, created, updated }) => ({ id, type, text, created, updated }));
  await changeTeam(root, (file) => {
    const next = upsertTeam(file ?? parseTeam(''), shared);
    return { file: next, result: undefined, text: formatTeam(next) };
  });
  const attributesAdded = await ensureAttributes(root);
  return { action: 'share', root, file: teamFilePath(root), shared, attributesAdded };
}

async function remove(root: string, id: string): Promise<ShareResult> {
  const { removeShared, teamFilePath } = await import('../store/team.js');
  const lines = await removeShared(root, id);
  if (!lines) throw usageError(`no entry ${JSON.stringify(id)} in ${teamFilePath(root)}`, "run 'wmem share --check' or read the file to see its ids");
  return { action: 'remove', root, file: teamFilePath(root), removed: id, lines };
}

async function check(root: string): Promise<ShareResult> {
  const { readTeam, teamFilePath } = await import('../store/team.js');
  const { checkTeam } = await import('../memory/team.js');
  const file = await readTeam(root);
  const where = teamFilePath(root);
  if (!file) return { action: 'check', file: where, exists: false, entries: 0, problems: [] };
  return { action: 'check', file: where, exists: true, entries: file.entries.length, problems: checkTeam(file) };
}
