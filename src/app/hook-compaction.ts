// The moments that only record around a compaction and at a session's end (SPEC §10):
// before-compact archives the transcript, after-compact keeps the agent's summary, session-end
// consolidates. Apart from hook-moments.ts (session-start, prompt) so that the stages serving a
// prompt or a start (dist/fast/first-prompt.cjs, first-start.cjs) do not hold code they never run:
// the hook driver loads this module for these moments alone.
import { existsSync } from 'node:fs';
import { fileStamp } from '../store/paths.js';
import { isoTime } from '../ui/time.js';
import type { Session } from '../store/session.js';
import { HookFailure, locateSession, sessionExists, warmContext, type HookResult, type Moment } from './hook-session.js';
import { checkTranscriptPath } from '../agents/transcript-path.js';
import { changeState, conversationFile, passedUsage, readUsage, withState } from './hook-moments.js';

/**
 * Whether this before-compact may fire with no compaction to follow (Gemini CLI's PreCompress)
 * and the agent's transcript reader can see compactions, so that wmem waits for one.
 */
function waitsForCompaction({ adapter, input }: Moment): boolean {
  return !!adapter.eventFor(input.event)?.speculative && input.trigger !== 'manual' && !!adapter.transcript;
}

/**
 * A speculative before-compact (it fires before every model call) archives only once the
 * transcript records a compaction not archived yet: the agent's transcript is append-only, so the
 * lines before that compaction are all still there, byte for byte. Most calls then cost one
 * incremental read. It never re-injects memory: the next prompt sees the compaction in the
 * transcript and answers it.
 */
async function archiveNewCompaction(moment: Moment, session: Session): Promise<HookResult> {
  const { input, env } = moment;
  const boundary = await withState(session, moment, async (state) => {
    const read = await readUsage(moment, state, false);
    if (read?.cursor) state.transcript = read.cursor;
    const found = read?.view.boundary;
    return found !== undefined && found !== state.archivedBoundary ? found : undefined;
  });
  if (boundary === undefined) return { session: session.id, note: 'no compaction in the transcript since the last archive: nothing archived' };
  const { archiveTranscriptBeforeCompact } = await import('./hook-work.js');
  const { note } = await archiveTranscriptBeforeCompact(session, input.transcriptPath!, env.now());
  await changeState(session, moment, (state) => void (state.archivedBoundary = boundary));
  return { session: session.id, note: `a compaction in the transcript: ${note}` };
}

/**
 * before-compact: the transcript's lines not archived yet, byte for byte, to archive/. Only what
 * is new is archived. An event that fires without compacting waits for a compaction where the
 * transcript shows them, and otherwise archives what is new without taking it for a compaction.
 */
export async function beforeCompact(moment: Moment): Promise<HookResult> {
  const { input, env } = moment;
  const { session } = await locateSession(moment);
  const mirrored = !input.transcriptPath && input.conversation;
  const transcript = mirrored ? conversationFile(session, moment.adapter) : input.transcriptPath;
  if (!transcript) throw new HookFailure(`${input.event} input has no transcript_path: nothing to archive`);
  checkTranscriptPath(transcript);
  // existsSync, not fs.promises.access: loading node:fs's promise API cost this hook ~5 M
  // instructions and ~80 page faults (store/fd-handle.ts). A mirrored conversation's file is
  // made below.
  if ((!mirrored || !mirrored.length) && !existsSync(transcript)) throw new HookFailure(`transcript ${transcript} does not exist: nothing archived`);
  if (waitsForCompaction(moment)) return archiveNewCompaction(moment, session);
  const { archiveTranscriptBeforeCompact } = await import('./hook-work.js');
  // The messages are mirrored under the archive's own lock hold, and their fsync overlaps the
  // archive's (a lock and an fsync wait less: bench/README.md, cmp19).
  // Always fsynced then, new messages or none: a hook killed after its append left them unsynced.
  const prepare = mirrored ? async () => void (await (await import('../store/conversation-file.js')).mirrorConversation(transcript, mirrored)) : undefined;
  const { note, archive } = await archiveTranscriptBeforeCompact(session, transcript, env.now(), { prepare });
  // after-compact names it in Recent Actions, beside the summary. An event that also fires with
  // no compaction to follow (speculative) archives, but proves nothing and names nothing.
  const speculative = moment.adapter.eventFor(input.event)?.speculative === true;
  if (archive && !speculative) await changeState(session, moment, (state) => void (state.lastArchive = archive));
  return { session: session.id, note: speculative ? `${note} (speculative: no compaction assumed)` : note };
}

/** after-compact: the agent's summary kept in detail/, named in Recent Actions with the archive. */
export async function afterCompact(moment: Moment): Promise<HookResult> {
  const { input, env, adapter } = moment;
  const { session } = await locateSession(moment);
  // The session has its own memory now: a handoff it started with is not given again (docs/context.md).
  await (await import('../store/handoff.js')).dropHandoff(session.paths);
  const summary = input.summary;
  if (!summary?.trim()) return { session: session.id, note: 'no compact_summary: nothing kept' };
  const { writeDetail, appendToSections, detailIndexLine } = await import('../store/detail.js');
  const now = env.now();
  const title = `${adapter.displayName}'s compaction summary (${input.trigger ?? 'compaction'}, ${isoTime(now).slice(0, 16)}Z)`;
  const relative = await writeDetail(session, {
    stem: `${fileStamp(now)}-compact-summary`,
    kind: 'compact-summary',
    source: `${adapter.metaName} ${input.event}${input.trigger ? ` (${input.trigger})` : ''}`,
    title,
    body: summary,
    created: now,
    extra: input.trigger ? { trigger: input.trigger } : undefined,
  });
  const archive = await changeState(session, moment, (state) => {
    const last = state.lastArchive;
    delete state.lastArchive;
    return last;
  });
  const recent = `${adapter.displayName} compacted the conversation (${input.trigger ?? 'compaction'}): its summary → ${relative}${archive ? `; the transcript before it → ${archive}` : ''}`;
  await appendToSections(session, [
    { sectionId: 'details', lines: [detailIndexLine(relative, title)] },
    { sectionId: 'recent', lines: [recent] },
  ]);
  const { promoteFromSummary } = await import('./hook-work.js');
  const promoted = await promoteFromSummary(session.project, summary, now);
  // overview.md just changed: render it now (the Markdown parser is loaded here already), so the
  // next prompt's hook, which the user waits on, finds the render cache up to date.
  await warmContext(session, env);
  return { session: session.id, note: `kept ${relative}${promoted ? `; ${promoted} workspace memory entries from the summary` : ''}` };
}

/** session-end: a deterministic consolidation (no LLM: agents give end hooks little time). */
export async function sessionEnd(moment: Moment): Promise<HookResult> {
  const { input, env } = moment;
  // A deleted session wmem never saw (OpenCode reports every deletion) has no memory to keep:
  // making its folder would only leave an empty session behind.
  if (input.reason === 'deleted' && !(await sessionExists(moment))) return { note: `session ${JSON.stringify(input.sessionId ?? '')} deleted, never seen by wmem: nothing to do` };
  const { session } = await locateSession(moment);
  // A compaction after the last speculative before-compact (in the session's last model call) is
  // archived now: nothing else would.
  const archived = moment.adapter.events.some((e) => e.speculative) && moment.adapter.transcript && input.transcriptPath ? `; ${(await archiveNewCompaction(moment, session).catch((err: Error) => ({ note: `archive: ${err.message}` }))).note}` : '';
  // The agent's last token use, when it passes it (OpenCode's idle): `wmem status` reads it later.
  if (input.usage) await changeState(session, moment, (state) => void (state.transcript = passedUsage(input.usage!, moment.adapter, session).cursor));
  const { consolidateAtEnd, NOTHING_TO_CONSOLIDATE } = await import('./hook-work.js');
  const note = await consolidateAtEnd(session, env.now(), () => {}, env.loadConsolidation);
  // A consolidation changed overview.md: render it now, while nobody waits (OpenCode's idle ends
  // every turn), rather than in the next prompt's hook.
  if (note !== NOTHING_TO_CONSOLIDATE) await warmContext(session, env);
  return { session: session.id, note: `${note}${input.reason ? ` (reason ${input.reason})` : ''}${archived}` };
}
