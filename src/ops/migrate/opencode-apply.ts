// What an OpenCode import writes besides sessions: active files and open errors into hot session
// state, and workspace memory entries through the gate.
import type { Session } from '../../store/session.js';
import type { ProjectRef } from '../../store/project.js';
import type { WorkspaceEntryPlan } from './opencode-files.js';

/**
 * Active files and open errors into hot session state. An error hot state cannot file under a
 * category (typecheck, test, lint, build, runtime) comes back as a note, so nothing is lost.
 */
export async function addHotState(session: Session, input: { files: string[]; errors: string[] }, now: Date): Promise<{ note: string; asNotes: { text: string; importance: number; tags: string[] }[] }> {
  const { applyToolEvent } = await import('../../memory/hot-state.js');
  const { readHotStateSync, saveHotState } = await import('../../store/hot-state.js');
  const { withLock } = await import('../../store/fsx.js');
  const asNotes: { text: string; importance: number; tags: string[] }[] = [];
  let opened = 0;
  await withLock(session.paths.dir, async () => {
    let state = readHotStateSync(session.paths.stateDir);
    for (const file of input.files) state = applyToolEvent(state, { tool: 'read', files: [file] }, now).state;
    for (const error of input.errors) {
      const outcome = applyToolEvent(state, { tool: 'bash', exit_code: 1, output: error }, now);
      state = outcome.state;
      if (outcome.opened) opened++;
      else asNotes.push({ text: `Open error (from OpenCode): ${error}`, importance: 0.7, tags: ['open'] });
    }
    if (input.files.length || opened) await saveHotState(session.paths.stateDir, state);
  });
  return { note: `hot state: ${input.files.length} active files, ${opened} open errors${asNotes.length ? `, ${asNotes.length} errors kept as notes` : ''}`, asNotes };
}

/** Workspace memory entries through the gate (refusals reported, not thrown). */
export async function addWorkspaceEntries(project: ProjectRef, entries: WorkspaceEntryPlan[], now: Date): Promise<{ added: number; refused: { text: string; reason: string }[] }> {
  const { addWorkspaceEntries: add } = await import('../../store/workspace.js');
  const sources = new Set(['explicit', 'compaction', 'manual']);
  const result = await add(
    project.dir,
    entries.map((e) => ({ type: e.type, text: e.text, source: sources.has(e.source) ? e.source : 'manual', confidence: e.confidence, created: e.createdAt })),
    now,
  );
  return { added: result.added + result.merged, refused: result.refused };
}
