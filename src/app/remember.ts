// Use cases `remember` and `memories`: the project's workspace memory, shared by its sessions.
// Additions go through the workspace gate; a refusal changes nothing at all.
import { locateProject } from '../store/project.js';
import type { Where } from '../store/session.js';
import { usageError } from '../ui/errors.js';
import type { AppEnv } from './env.js';

export interface RememberOptions {
  text: string;
  type: string;
  source?: string;
}

export async function projectDirOf(where: Where, create: boolean, now?: Date): Promise<string | undefined> {
  const project = await locateProject(where.home, where.cwd, { create, now });
  return project?.dir;
}

export async function remember(options: RememberOptions, env: AppEnv) {
  const now = env.now();
  const { WORKSPACE_TYPES, validateInput } = await import('../memory/workspace.js');
  if (!(WORKSPACE_TYPES as readonly string[]).includes(options.type)) {
    throw usageError(`unknown --type ${JSON.stringify(options.type ?? '')}`, `use one of ${WORKSPACE_TYPES.join(', ')}`);
  }
  const { addWorkspaceEntry, workspaceFilePath } = await import('../store/workspace.js');
  // Check before creating the project folder: a refusal changes nothing at all.
  const checked = validateInput({ type: options.type, text: options.text, source: options.source });
  if ('refusal' in checked) throw usageError(`refused (${checked.refusal.rule}): ${checked.refusal.reason}`);
  const dir = (await projectDirOf(env, true, now))!;
  const result = await addWorkspaceEntry(dir, { type: options.type, text: options.text, source: options.source ?? 'explicit' }, now);
  return { file: workspaceFilePath(dir), ...result };
}

export type RememberResult = Awaited<ReturnType<typeof remember>>;

/**
 * Workspace memory as the sessions see it: the project's own entries and the team file's, one
 * per id (the newest copy). `rendered` is the block as injected; with `team`, `listed` holds every
 * entry instead, the ones the block leaves out included.
 */
export async function listMemories(options: { team?: boolean }, env: AppEnv) {
  const dir = await projectDirOf(env, false);
  const { readWorkspaceSync, workspaceFilePath } = await import('../store/workspace.js');
  const { WORKSPACE_LIMITS, composeWorkspace, mergeTeam, renderComposed } = await import('../memory/workspace-block.js');
  const { readTeamEntriesSync } = await import('../store/team.js');
  const own = dir ? readWorkspaceSync(dir).entries : [];
  const entries = mergeTeam(own, readTeamEntriesSync(env.cwd, env.now().getTime()));
  const composed = composeWorkspace(entries);
  const rendered = renderComposed(composed);
  const listed = options.team ? renderComposed({ ...composed, shown: entries }) : rendered;
  // An own entry the team has a newer copy of: shown as the team's, and said so.
  const superseded = own.filter((e) => !entries.includes(e)).map((e) => ({ id: e.id, text: e.text, updated: e.updated }));
  return {
    file: dir ? workspaceFilePath(dir) : null,
    entries,
    shown: composed.shown.map((e) => e.id),
    notShown: composed.total - composed.shown.length,
    superseded,
    chars: rendered ? rendered.length + 1 : 0,
    limits: { ...WORKSPACE_LIMITS },
    /** The block as injected into prompts ('' when there is nothing), or with `team` every entry. */
    rendered: listed,
  };
}
