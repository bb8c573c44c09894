// `wmem remember TEXT --type T [--source S]`, `wmem forget ID`, `wmem memories`: the project's
// workspace memory, shared by its sessions. Additions go through the gate (refusals exit 2).
import { locateProject } from '../store/project.js';
import { usageError } from '../ui/errors.js';
import type { CommandResult, RunContext } from '../ui/run.js';
import { textFromArgs } from './note.js';

export interface RememberOptions {
  type?: string;
  source?: string;
}

async function projectDir(ctx: RunContext, create: boolean): Promise<string | undefined> {
  const project = await locateProject(ctx.home, ctx.cwd, { create, now: ctx.now() });
  return project?.dir;
}

export async function run(options: RememberOptions, ctx: RunContext, args: unknown[]): Promise<CommandResult> {
  const { WORKSPACE_TYPES } = await import('../memory/workspace.js');
  if (!options.type || !(WORKSPACE_TYPES as readonly string[]).includes(options.type)) {
    throw usageError(`unknown --type ${JSON.stringify(options.type ?? '')}`, `use one of ${WORKSPACE_TYPES.join(', ')}`);
  }
  const text = await textFromArgs(args[0] as string[], ctx, 'the text to remember');
  const { addWorkspaceEntry, workspaceFilePath } = await import('../store/workspace.js');
  const { validateInput } = await import('../memory/workspace.js');
  // Check before creating the project folder: a refusal changes nothing at all.
  const checked = validateInput({ type: options.type, text, source: options.source });
  if ('refusal' in checked) throw usageError(`refused (${checked.refusal.rule}): ${checked.refusal.reason}`);
  const dir = (await projectDir(ctx, true))!;
  const result = await addWorkspaceEntry(dir, { type: options.type, text, source: options.source ?? 'explicit' }, ctx.now());
  const verb = result.status === 'added' ? 'remembered' : result.status === 'merged' ? 'updated (a duplicate, now with higher confidence)' : 'already remembered';
  const lines = [`${verb} ${result.entry.id}: [${result.entry.type}] ${result.entry.text}`, ...result.evicted.map((e) => `evicted ${e.id} to stay within the limits: ${e.text}`)];
  return { data: { file: workspaceFilePath(dir), ...result }, text: ctx.quiet ? '' : lines.join('\n') };
}

export async function runForget(_options: unknown, ctx: RunContext, args: unknown[]): Promise<CommandResult> {
  const id = String(args[0] ?? '').trim();
  if (!id) throw usageError('forget needs an id', "run 'wmem memories' to list them");
  const dir = await projectDir(ctx, false);
  const { readWorkspaceSync, removeWorkspaceEntry, workspaceFilePath } = await import('../store/workspace.js');
  // A shared entry's line goes from the team file too (the teammates see that after they pull).
  const { findRepoRootSync, removeShared, teamFilePath } = await import('../store/team.js');
  const root = findRepoRootSync(ctx.cwd);
  const isPrivate = dir ? readWorkspaceSync(dir).entries.some((e) => e.id === id) : false;
  const unshared = root ? await removeShared(root, id) : 0;
  if (!isPrivate && unshared) return { data: { file: teamFilePath(root!), removed: { id }, unshared }, text: ctx.quiet ? '' : `removed ${id} from ${teamFilePath(root!)} (a team entry): commit the file` };
  if (!dir) throw usageError(`no workspace memory entry ${JSON.stringify(id)}: the project ${ctx.cwd} has no memory yet`);
  const removed = await removeWorkspaceEntry(dir, id);
  const also = unshared ? `\nremoved it from ${teamFilePath(root!)} too: commit the file` : '';
  return { data: { file: workspaceFilePath(dir), removed, unshared }, text: ctx.quiet ? '' : `forgot ${removed.id}: ${removed.text}${also}` };
}

export async function runList(_options: unknown, ctx: RunContext): Promise<CommandResult> {
  const dir = await projectDir(ctx, false);
  const { readWorkspaceSync, workspaceFilePath } = await import('../store/workspace.js');
  const { renderWorkspace, renderedSize, MAX_ENTRIES, MAX_RENDERED_CHARS } = await import('../memory/workspace.js');
  const { teamEntriesSync } = await import('../store/team.js');
  const { withTeam } = await import('../memory/workspace.js');
  const own = dir ? readWorkspaceSync(dir) : { version: 1 as const, entries: [] };
  const file = dir ? withTeam(own, teamEntriesSync(ctx.cwd, dir)) : own;
  const path = dir ? workspaceFilePath(dir) : null;
  const data = { file: path, entries: file.entries, chars: renderedSize(file.entries), limits: { entries: MAX_ENTRIES, chars: MAX_RENDERED_CHARS } };
  if (!file.entries.length) return { data, text: 'no workspace memory yet (add with: wmem remember TEXT --type project)' };
  const footer = `${file.entries.length}/${MAX_ENTRIES} entries, ${data.chars}/${MAX_RENDERED_CHARS} characters`;
  return { data, text: `${renderWorkspace(file)}\n${ctx.style.dim(footer)}` };
}
