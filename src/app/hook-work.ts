// The hook moments' calls into the other parts of wmem (hot state, transcript archive,
// consolidation, workspace memory), each loaded only when its moment comes.
import type { Session } from '../store/session.js';
import type { ToolEvent } from '../memory/hot-state.js';
import type { ProjectRef } from '../store/project.js';
import type { ConsolidationModule } from './env.js';
import type { ArchiveOptions } from '../history/compaction/archive-transcript.js';

/** tool-done / tool-failed: the event into hot session state (what `wmem track` does). */
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

/** before-compact: the transcript's lines not archived yet go byte for byte to archive/, with a readable copy in detail/. */
export async function archiveTranscriptBeforeCompact(session: Session, transcript: string, now: Date, options?: ArchiveOptions): Promise<{ note: string; archive?: string }> {
  const { archiveTranscript } = await import('../history/compaction/archive-transcript.js');
  const result = await archiveTranscript(session, transcript, { now: () => now }, options);
  if (!result.lines) return { note: 'nothing new to archive' };
  return { note: `archived ${result.lines} lines to ${result.archive} (readable: ${result.detail})`, archive: result.archive };
}

export const NOTHING_TO_CONSOLIDATE = 'nothing to consolidate';

/** session-end: a deterministic consolidation (no LLM: Claude Code gives SessionEnd hooks ~1.5 s). */
export async function consolidateAtEnd(session: Session, now: Date, warn: (m: string) => void, load?: () => Promise<ConsolidationModule>): Promise<string> {
  // Nothing new since the last one (OpenCode's idle ends every turn): the consolidation is not even loaded.
  const { nothingPending } = await import('../ops/consolidate/pending.js');
  const result = (await nothingPending(session)) ? { nothingToDo: true, consumed: 0, archive: undefined } : await consolidate(session, now, warn, load);
  // The session's decisions outlive it: offered to workspace memory (a failure there costs only
  // the offer); with nothing consolidated, only when its files changed since the last offer.
  const { offerAfterConsolidation, offerUnlessOffered, describeOffer } = await import('./session-decisions.js');
  const offer = result.nothingToDo ? offerUnlessOffered(session, now) : offerAfterConsolidation(session, result.archive, now);
  const offered = await offer.then(describeOffer, (err: Error) => `decisions not offered to workspace memory: ${err.message}`);
  const also = offered ? `; ${offered}` : '';
  if (result.nothingToDo) return NOTHING_TO_CONSOLIDATE + also;
  return `consolidated ${result.consumed} note${result.consumed === 1 ? '' : 's'}${result.archive ? ` (notes archived to ${result.archive})` : ''}${also}`;
}

/** The deterministic consolidation, loaded the host's way (`load`), else as the full build's module. */
async function consolidate(session: Session, now: Date, warn: (m: string) => void, load?: () => Promise<ConsolidationModule>) {
  const { consolidateSession } = await (load ? load() : import('../ops/consolidate/consolidate.js'));
  return consolidateSession(session, { dryRun: false }, { now: () => now, warn });
}

/** after-compact: workspace-memory candidates the compaction summary proposes, through the gate. */
export async function promoteFromSummary(project: ProjectRef, summary: string, now: Date): Promise<number> {
  if (!summary.includes('<workspace_memory_candidates>')) return 0;
  const { promoteCandidates } = await import('../store/workspace.js');
  const result = await promoteCandidates(project.dir, summary, now);
  return result.added + result.merged;
}
