// Use cases `remember` and `memories`: the project's workspace memory, shared by its sessions.
// Additions go through the workspace gate; a refusal changes nothing at all.
import { locateProject } from '../store/project.js';
import type { Where } from '../store/session.js';
import { usageError } from '../ui/errors.js';

export interface RememberOptions {
  where: Where;
  now: Date;
  text: string;
  type: string;
  source?: string;
}

export async function projectDirOf(where: Where, create: boolean, now?: Date): Promise<string | undefined> {
  const project = await locateProject(where.home, where.cwd, { create, now });
  return project?.dir;
}

export async function remember(options: RememberOptions) {
  const { WORKSPACE_TYPES, validateInput } = await import('../memory/workspace.js');
  if (!(WORKSPACE_TYPES as readonly string[]).includes(options.type)) {
    throw usageError(`unknown --type ${JSON.stringify(options.type ?? '')}`, `use one of ${WORKSPACE_TYPES.join(', ')}`);
  }
  const { addWorkspaceEntry, workspaceFilePath } = await import('../store/workspace.js');
  // Check before creating the project folder: a refusal changes nothing at all.
  const checked = validateInput({ type: options.type, text: options.text, source: options.source });
  if ('refusal' in checked) throw usageError(`refused (${checked.refusal.rule}): ${checked.refusal.reason}`);
  const dir = (await projectDirOf(options.where, true, options.now))!;
  const result = await addWorkspaceEntry(dir, { type: options.type, text: options.text, source: options.source ?? 'explicit' }, options.now);
  return { file: workspaceFilePath(dir), ...result };
}

export type RememberResult = Awaited<ReturnType<typeof remember>>;

/** Workspace memory as the sessions see it: the project's own entries and the team file's. */
export async function listMemories(options: { where: Where }) {
  const dir = await projectDirOf(options.where, false);
  const { readWorkspaceSync, workspaceFilePath } = await import('../store/workspace.js');
  const { renderWorkspace, renderedSize, withTeam, MAX_ENTRIES, MAX_RENDERED_CHARS } = await import('../memory/workspace.js');
  const { teamEntriesSync } = await import('../store/team.js');
  const own = dir ? readWorkspaceSync(dir) : { version: 1 as const, entries: [] };
  const file = dir ? withTeam(own, teamEntriesSync(options.where.cwd, dir)) : own;
  return {
    file: dir ? workspaceFilePath(dir) : null,
    entries: file.entries,
    chars: renderedSize(file.entries),
    limits: { entries: MAX_ENTRIES, chars: MAX_RENDERED_CHARS },
    /** The entries as injected into prompts (empty when there are none). */
    rendered: file.entries.length ? renderWorkspace(file) : '',
  };
}
