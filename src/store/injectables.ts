// Reads what the memory part shows besides the overview and scratch notes: workspace memory, the
// team's entries, the end of scratch.md (from the lines already read) and hot session state (rendered by memory/injected.ts).
// Runs on every prompt, so it reads small files synchronously.
import type { Session } from './session.js';
import { readWorkspaceSync } from './workspace.js';
import { readHotStateSync } from './hot-state.js';
import { composedWorkspaceSync } from './team.js';
import type { InjectableInputs } from '../memory/injected.js';

/** How much of scratch.md's end the recent decisions are looked for in (notes are appended). */
const SCRATCH_TAIL_CHARS = 16 * 1024;

/** The last lines of scratch.md up to SCRATCH_TAIL_CHARS, from the lines the caller already read. */
function tailOf(scratchLines: string[]): string {
  let start = scratchLines.length;
  for (let size = 0; start > 0 && size + scratchLines[start - 1].length < SCRATCH_TAIL_CHARS; start--) size += scratchLines[start - 1].length + 1;
  return scratchLines.slice(start).join('\n');
}

/** `scratchLines`: scratch.md's lines as the memory part renders them (read once per prompt). */
export function readInjectables(session: Session, scratchLines: string[]): InjectableInputs {
  let workspace: InjectableInputs['workspace'];
  try {
    const own = readWorkspaceSync(session.project.dir).entries;
    workspace = composedWorkspaceSync(session.project.cwd, session.project.dir, own, Date.now());
  } catch {
    // A broken workspace file must not take the whole context down; `wmem memories` reports it.
    workspace = undefined;
  }
  return { workspace, scratchTail: tailOf(scratchLines), hotState: readHotStateSync(session.paths.stateDir) };
}
