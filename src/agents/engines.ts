// The hooks' calls into the other parts of wmem (hot state, compaction, consolidation), in one
// place, so a hook module stays about the protocol.
import type { Session } from '../store/session.js';
import type { ToolEvent } from './claude/protocol.js';
import type { ProjectRef } from '../store/project.js';
import type { WorkspaceEntryPlan } from '../ops/opencode.js';

/** PostToolUse / PostToolUseFailure: the event into hot session state (what `wmem track` does). */
export async function trackTool(session: Session, event: ToolEvent, now: Date): Promise<string> {
  const { trackToolEvent } = await import('../store/hot-state.js');
  const outcome = await trackToolEvent(session, event, now);
  const parts = [
    outcome.files.length ? `active: ${outcome.files.join(', ')}` : '',
    outcome.opened ? `opened ${outcome.opened.category} error #${outcome.opened.fingerprint}` : '',
    outcome.cleared.length ? `cleared ${outcome.cleared.map((e) => `${e.category} #${e.fingerprint}`).join(', ')}` : '',
    outcome.todosChanged ? `todo list: ${outcome.state.todos?.length ?? 0} items` : '',
    event.todoSkipped ? `todo call skipped: ${event.todoSkipped}` : '',
  ].filter(Boolean);
  return parts.join('; ') || 'nothing to track';
}

/** PreCompact: the transcript's lines not archived yet go byte for byte to archive/, with a readable copy in detail/. */
export async function archiveTranscriptBeforeCompact(session: Session, transcript: string, now: Date): Promise<{ note: string; archive?: string }> {
  const { archiveTranscript } = await import('../history/archive-transcript.js');
  const result = await archiveTranscript(session, transcript, { now: () => now });
  if (!result.lines) return { note: 'nothing new to archive' };
  return { note: `archived ${result.lines} lines to ${result.archive} (readable: ${result.detail})`, archive: result.archive };
}

/** SessionEnd: a deterministic consolidation (no LLM: the agent gives SessionEnd hooks ~1.5 s). */
export async function consolidateAtEnd(session: Session, now: Date, warn: (m: string) => void): Promise<string> {
  const { consolidateSession } = await import('../ops/consolidate.js');
  const result = await consolidateSession(session, { dryRun: false }, { now: () => now, warn });
  if (result.nothingToDo) return 'nothing to consolidate';
  return `consolidated ${result.consumed} note${result.consumed === 1 ? '' : 's'}${result.archive ? ` (notes archived to ${result.archive})` : ''}`;
}

/**
 * Active files and open errors into hot session state. An error hot state cannot file under a
 * category (typecheck, test, lint, build, runtime) comes back as a note, so nothing is lost.
 */
export async function addHotState(session: Session, input: { files: string[]; errors: string[] }, now: Date): Promise<{ note: string; asNotes: { text: string; importance: number; tags: string[] }[] }> {
  const { applyToolEvent } = await import('../memory/hot-state.js');
  const { readHotStateSync, saveHotState } = await import('../store/hot-state.js');
  const { withLock } = await import('../store/fsx.js');
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
  const { addWorkspaceEntries: add } = await import('../store/workspace.js');
  const sources = new Set(['explicit', 'compaction', 'manual']);
  const result = await add(
    project.dir,
    entries.map((e) => ({ type: e.type, text: e.text, source: sources.has(e.source) ? e.source : 'manual', confidence: e.confidence, created: e.createdAt })),
    now,
  );
  return { added: result.added + result.merged, refused: result.refused };
}

/** PostCompact: workspace-memory candidates the compaction summary proposes, through the gate. */
export async function promoteFromSummary(project: ProjectRef, summary: string, now: Date): Promise<number> {
  if (!summary.includes('<workspace_memory_candidates>')) return 0;
  const { promoteCandidates } = await import('../store/workspace.js');
  const result = await promoteCandidates(project.dir, summary, now);
  return result.added + result.merged;
}
