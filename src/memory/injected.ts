// Pure: the other blocks of the memory part: workspace memory (shared by the project's sessions,
// with the team's entries) and hot session state with the recent decisions. No clock: the same
// inputs always give the same bytes. Ages in workspace memory are measured against the newest
// `updated` time in the workspace file itself (see referenceTime), not against the prompt's time.
// The inputs are read by store/injectables.ts.
import { referenceTime, renderEntry, renderWorkspace, withTeam, type WorkspaceEntry, type WorkspaceFile } from './workspace.js';
import { renderHotState, type HotState } from './hot-state.js';
import { recentDecisions } from './scratch.js';

export interface InjectableInputs {
  /** undefined: the workspace file could not be read (`wmem memories` reports why). */
  workspace?: WorkspaceFile;
  team: WorkspaceEntry[];
  /** The end of scratch.md (notes are appended). */
  scratchTail: string;
  hotState: HotState;
}

export function renderInjectables(inputs: InjectableInputs): { workspace?: string; workspacePinned?: string[]; sessionState?: string } {
  const merged = inputs.workspace ? withTeam(inputs.workspace, inputs.team) : undefined;
  const workspace = merged ? renderWorkspace(merged) || undefined : undefined;
  const decisions = recentDecisions(inputs.scratchTail);
  const state = [renderHotState(inputs.hotState), ...(decisions.length ? ['Recent decisions (not yet consolidated):', ...decisions.map((d) => `- ${d}`)] : [])];
  const sessionState = state.filter(Boolean).join('\n') || undefined;
  return { workspace, ...(workspace && merged ? { workspacePinned: pinnedLines(merged) } : {}), sessionState };
}

/**
 * The rendered lines of what the user asked to remember (explicit and feedback entries): the cut
 * of the memory part keeps them first, whatever order the block lists its entries in.
 */
function pinnedLines(file: WorkspaceFile): string[] {
  const pinned = file.entries.filter((e) => e.source === 'explicit' || e.type === 'feedback');
  if (!pinned.length) return [];
  const reference = referenceTime(file);
  return pinned.map((e) => renderEntry(e, reference));
}
