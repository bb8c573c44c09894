// The other blocks of the memory part: workspace memory (shared by the project's sessions) and
// hot session state. Runs on every prompt, so it reads two small JSON files synchronously and
// renders them without remark or a clock: the same files always give the same bytes. Ages in
// workspace memory are measured against the newest `updated` time in the workspace file itself
// (see referenceTime), not against the time of the prompt.
import type { Session } from '../store/session.js';
import { readWorkspaceSync } from '../store/workspace.js';
import { readHotStateSync } from '../store/hot-state.js';
import { renderWorkspace, withTeam } from './workspace.js';
import { teamEntriesSync } from '../store/team.js';
import { renderHotState } from './hot-state.js';
import { recentDecisions } from './scratch.js';
import { readTailSync } from '../store/fsx.js';

/** How much of scratch.md's end is read for the recent decisions (notes are appended). */
const SCRATCH_TAIL_BYTES = 16 * 1024;

export async function loadInjectables(session: Session): Promise<{ workspace?: string; sessionState?: string }> {
  let workspace: string | undefined;
  try {
    workspace = renderWorkspace(withTeam(readWorkspaceSync(session.project.dir), teamEntriesSync(session.project.cwd, session.project.dir))) || undefined;
  } catch {
    // A broken workspace file must not take the whole context down; `wmem memories` reports it.
    workspace = undefined;
  }
  const decisions = recentDecisions(readTailSync(session.paths.scratch, SCRATCH_TAIL_BYTES));
  const state = [renderHotState(readHotStateSync(session.paths.stateDir)), ...(decisions.length ? ['Recent decisions (not yet consolidated):', ...decisions.map((d) => `- ${d}`)] : [])];
  const sessionState = state.filter(Boolean).join('\n') || undefined;
  return { workspace, sessionState };
}
