// Reads what the memory part shows besides the overview and scratch notes: workspace memory, the
// team's entries, the end of scratch.md and hot session state (rendered by memory/injected.ts).
// Runs on every prompt, so it reads small files synchronously.
import type { Session } from './session.js';
import { readWorkspaceSync } from './workspace.js';
import { readHotStateSync } from './hot-state.js';
import { teamEntriesSync } from './team.js';
import { readTailSync } from './fsx.js';
import type { InjectableInputs } from '../memory/injected.js';

/** How much of scratch.md's end is read for the recent decisions (notes are appended). */
const SCRATCH_TAIL_BYTES = 16 * 1024;

export function readInjectables(session: Session): InjectableInputs {
  let workspace: InjectableInputs['workspace'];
  let team: InjectableInputs['team'] = [];
  try {
    workspace = readWorkspaceSync(session.project.dir);
    team = teamEntriesSync(session.project.cwd, session.project.dir);
  } catch {
    // A broken workspace file must not take the whole context down; `wmem memories` reports it.
    workspace = undefined;
  }
  return { workspace, team, scratchTail: readTailSync(session.paths.scratch, SCRATCH_TAIL_BYTES), hotState: readHotStateSync(session.paths.stateDir) };
}
