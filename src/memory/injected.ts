// Pure: the other blocks of the memory part: workspace memory (shared by the project's sessions,
// with the team's entries), and what the session state block is rendered from (its text: memory/session-state.ts). No clock: the same
// inputs always give the same bytes. Ages in workspace memory are measured against the newest
// `updated` time of its entries, not against the prompt's time. The inputs are read (and the
// workspace block composed within its budget, see workspace-block.ts) by store/injectables.ts.
import { moreLine, priorityTier, renderComposed, type ComposedWorkspace } from './workspace-block.js';
import { renderEntry } from './workspace.js';
import type { HotState } from './hot-state.js';

export interface InjectableInputs {
  /** The workspace block's entries, own and team; undefined: the workspace file could not be read (`wmem memories` reports why). */
  workspace?: ComposedWorkspace;
  /** The end of scratch.md (notes are appended). */
  scratchTail: string;
  hotState: HotState;
}

/** The workspace block's text, and its lines cut last. */
export function renderWorkspace(composed: ComposedWorkspace | undefined): { workspace?: string; workspacePinned?: string[] } {
  const workspace = composed ? renderComposed(composed) || undefined : undefined;
  return { workspace, ...(workspace && composed ? { workspacePinned: pinnedLines(composed) } : {}) };
}

/**
 * The rendered lines the cut of the memory part keeps first, whatever order the block lists its
 * entries in: what the user asked to remember (explicit and feedback entries), and the line that
 * counts the entries the block could not hold (so the count survives a cut).
 */
function pinnedLines(composed: ComposedWorkspace): string[] {
  const at = composed.reference ? new Date(composed.reference) : undefined;
  const pinned = composed.shown.filter((e) => priorityTier(e) === 0).map((e) => renderEntry(e, at));
  const rest = composed.total - composed.shown.length;
  return rest > 0 ? [...pinned, moreLine(rest)] : pinned;
}
