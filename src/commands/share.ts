// `wmem share [ID…] [--all] [--type T] [--remove ID] [--init] [--check]`: team memory through git.
// Workspace entries are copied into `.wmem/memory.md` at the repository's root, a file made to be
// committed; teammates' sessions read it after a pull. wmem never pushes, pulls or commits.
import path from 'node:path';
import { usageError } from '../ui/errors.js';
import type { CommandResult, RunContext } from '../ui/run.js';

export interface ShareOptions {
  all?: boolean;
  type?: string;
  remove?: string;
  init?: boolean;
  check?: boolean;
}

export async function run(options: ShareOptions, ctx: RunContext, args: unknown[]): Promise<CommandResult> {
  const ids = ((args[0] as string[] | undefined) ?? []).map(String);
  const { gitRoot } = await import('../store/team.js');
  const root = await gitRoot(ctx.cwd);
  if (options.check) return check(root);
  if (options.remove !== undefined) return remove(root, options.remove, ctx);
  if (options.init && !ids.length && !options.all && !options.type) return init(root, ctx);
  if (!ids.length && !options.all && !options.type) {
    throw usageError('name what to share: entry ids, --all or --type TYPE', "run 'wmem memories' to list the ids; 'wmem share --init' only sets the file up");
  }
  return share(root, { ids, all: options.all, type: options.type }, ctx);
}

async function init(root: string, ctx: RunContext): Promise<CommandResult> {
  const { changeTeam, ensureAttributes, teamFilePath } = await import('../store/team.js');
  const { formatTeam, parseTeam } = await import('../memory/team.js');
  const created = await changeTeam(root, (file) => ({ file: file ?? parseTeam(''), result: !file, text: formatTeam(file ?? parseTeam('')) }));
  const attributes = await ensureAttributes(root);
  const done = [
    `${created ? 'created' : 'kept'} ${teamFilePath(root)}`,
    attributes ? `added "${'.wmem/memory.md merge=union'}" to ${path.join(root, '.gitattributes')}` : `.gitattributes already merges it line by line`,
    'commit both: teammates see the shared entries after they pull',
  ];
  return { data: { root, file: teamFilePath(root), created, attributesAdded: attributes }, text: ctx.quiet ? '' : done.join('\n') };
}

async function share(root: string, pick: { ids: string[]; all?: boolean; type?: string }, ctx: RunContext): Promise<CommandResult> {
  const { locateProject } = await import('../store/project.js');
  const { readWorkspaceSync } = await import('../store/workspace.js');
  const { WORKSPACE_TYPES } = await import('../memory/workspace.js');
  if (pick.type !== undefined && !(WORKSPACE_TYPES as readonly string[]).includes(pick.type)) {
    throw usageError(`unknown --type ${JSON.stringify(pick.type)}`, `use one of ${WORKSPACE_TYPES.join(', ')}`);
  }
  const project = await locateProject(ctx.home, ctx.cwd, { create: false });
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
  if (!chosen.length) return { data: { root, file: teamFilePath(root), shared: [], attributesAdded: false }, text: ctx.quiet ? '' : 'nothing to share: no workspace entry matches (wmem memories lists them)' };
  const shared = chosen.map(({ id, type, text, created, updated }) => ({ id, type, text, created, updated }));
  await changeTeam(root, (file) => {
    const next = upsertTeam(file ?? parseTeam(''), shared);
    return { file: next, result: undefined, text: formatTeam(next) };
  });
  const attributes = await ensureAttributes(root);
  const lines = [
    ...shared.map((e) => `shared ${e.id}: [${e.type}] ${e.text}`),
    ...(attributes ? [`added ".wmem/memory.md merge=union" to ${path.join(root, '.gitattributes')}`] : []),
    `commit ${path.relative(ctx.cwd, teamFilePath(root)) || teamFilePath(root)} to share ${shared.length === 1 ? 'it' : 'them'} with the team`,
  ];
  return { data: { root, file: teamFilePath(root), shared, attributesAdded: attributes }, text: ctx.quiet ? '' : lines.join('\n') };
}

async function remove(root: string, id: string, ctx: RunContext): Promise<CommandResult> {
  const { removeShared, teamFilePath } = await import('../store/team.js');
  const removed = await removeShared(root, id);
  if (!removed) throw usageError(`no entry ${JSON.stringify(id)} in ${teamFilePath(root)}`, "run 'wmem share --check' or read the file to see its ids");
  return { data: { root, file: teamFilePath(root), removed: id, lines: removed }, text: ctx.quiet ? '' : `removed ${id} from ${teamFilePath(root)}` };
}

async function check(root: string): Promise<CommandResult> {
  const { readTeam, teamFilePath } = await import('../store/team.js');
  const { checkTeam } = await import('../memory/team.js');
  const file = await readTeam(root);
  const where = teamFilePath(root);
  if (!file) return { data: { file: where, entries: 0, problems: [] }, text: `no ${where}: nothing to check` };
  const problems = checkTeam(file);
  const lines = problems.map((p) => `${where}${p.line ? `:${p.line}` : ''}: ${p.kind}: ${p.message}`);
  const summary = `${file.entries.length} entr${file.entries.length === 1 ? 'y' : 'ies'}, ${problems.length} problem${problems.length === 1 ? '' : 's'}`;
  return { data: { file: where, entries: file.entries.length, problems }, text: [...lines, summary].join('\n'), exitCode: problems.length ? 1 : 0 };
}
