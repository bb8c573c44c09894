// What each Claude Code hook does (SPEC §10). SessionStart and UserPromptSubmit answer with
// additional context; the others record (tool events, compaction, session end) and answer
// nothing. Every handler may throw: `wmem hook` turns any failure into a log line and silence.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { exists } from '../store/fsx.js';
import { fileStamp, assertSessionId, sessionPaths } from '../store/paths.js';
import { locateProject } from '../store/project.js';
import { readCurrent, requestedSessionId, writeCurrent, type Session } from '../store/session.js';
import { CLAUDE_CONTEXT_CAP, hookOutput, toolEventFrom, type HookInput, type HookOutput } from './claude/protocol.js';
import { readTranscriptUsage, type TranscriptRead } from './transcript-file.js';
import { updateHookState, type HookState } from './hook-state.js';
import type { MemoryWhere } from '../render/context.js';
import type { RunContext } from '../ui/run.js';
import type { HookOptions } from '../commands/hook.js';
import type { Observed } from '../store/meter-sources.js';
import { cleanModelId } from '../store/meter-sources.js';
import { sha256Hex } from '../memory/hash.js';

export class HookFailure extends Error {
  override name = 'HookFailure';
}

export interface HookResult {
  output?: HookOutput;
  session?: string;
  /** What happened, for the fired record. */
  note: string;
}

interface Located {
  session: Session;
  created: boolean;
}

/** The project: --cwd, else the agent's project folder, else the hook input's cwd, else ours. */
function projectCwd(input: HookInput, ctx: RunContext, cwdFlag: string | undefined): string {
  const cwd = cwdFlag ?? ctx.env.CLAUDE_PROJECT_DIR ?? input.cwd ?? ctx.cwd;
  if (!path.isAbsolute(cwd)) throw new HookFailure(`the hook's cwd ${JSON.stringify(cwd)} is not an absolute path`);
  return cwd;
}

/** The session named by the agent's session_id (the wmem id), created when it does not exist. */
async function locateSession(input: HookInput, ctx: RunContext, cwdFlag: string | undefined): Promise<Located> {
  const now = ctx.now();
  const project = await locateProject(ctx.home, projectCwd(input, ctx, cwdFlag), { create: true, now });
  if (!project) throw new HookFailure('no project folder');
  let id: string | undefined;
  if (input.sessionId) id = assertSessionId(input.sessionId, 'the hook input session_id');
  else id = requestedSessionId(ctx)?.id ?? (await readCurrent(project.dir));
  if (!id) throw new HookFailure('the hook input has no session_id and the project has no current session');
  const paths = sessionPaths(project.dir, id);
  let created = false;
  const complete = (await Promise.all([paths.overview, paths.scratch, paths.meta].map(exists))).every(Boolean);
  if (!complete) {
    const [{ ensureSessionTree }, { readTemplate, overviewTemplateName }] = await Promise.all([import('../commands/init.js'), import('../store/templates.js')]);
    const made = await ensureSessionTree(project, id, {
      overviewTemplate: readTemplate(overviewTemplateName('en')),
      now,
      extraMeta: { agent: 'claude-code' },
    });
    created = made.length > 0;
  }
  return { session: { id, project, paths, source: 'flag' }, created };
}

/**
 * The transcript's token use. `required`: a transcript that is missing although one was read
 * before is a failure. One never read yet may simply not be written: Claude Code creates it
 * lazily, after the first prompt's hooks in a new project (anthropics/claude-code#41310).
 */
async function readUsage(input: HookInput, state: HookState, required: boolean): Promise<TranscriptRead | undefined> {
  if (!input.transcriptPath) return undefined;
  if (!path.isAbsolute(input.transcriptPath)) throw new HookFailure(`transcript_path ${JSON.stringify(input.transcriptPath)} is not an absolute path`);
  try {
    return await readTranscriptUsage(input.transcriptPath, state.transcript);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' && (!required || !state.transcript)) return undefined;
    if (!required && code === 'EISDIR') return undefined;
    if (code === 'ENOENT') throw new HookFailure(`transcript ${input.transcriptPath} does not exist (it was read before)`);
    throw err;
  }
}

/** What the agent told this hook that the meter needs: its model, and the user's window. */
function rememberSettings(state: HookState, input: HookInput, options: HookOptions): Observed {
  const model = cleanModelId(input.model);
  if (model) state.model = model;
  if (options.tokensMax) state.tokensMax = options.tokensMax;
  else delete state.tokensMax;
  return { model: state.model, tokensMax: state.tokensMax };
}

async function memoryPart(session: Session, ctx: RunContext, observed?: Observed): Promise<{ memory: string; where: MemoryWhere }> {
  const { assembleContext } = await import('../commands/context.js');
  const { memory, where } = await assembleContext(session, ctx, { wantMeta: false, observed });
  return { memory, where };
}

/** Identifies a memory part given in full, so a resume can tell that the transcript already holds it. */
function deliveryOf(memory: string, boundary: string | undefined, transcript: string | undefined): NonNullable<HookState['delivered']> {
  return { digest: sha256Hex(memory).slice(0, 16), ...(boundary ? { boundary } : {}), ...(transcript ? { transcript } : {}) };
}

/**
 * Renders the memory part again so the next prompt finds the render cache up to date: called
 * after the agent edited overview.md with its own file tools, mid-turn, so the Markdown parse is
 * paid there rather than when the user submits the next prompt. Best effort.
 */
async function warmContext(session: Session, ctx: RunContext): Promise<void> {
  try {
    await memoryPart(session, ctx);
  } catch {
    /* the next prompt renders it then */
  }
}

export async function sessionStart(input: HookInput, ctx: RunContext, options: HookOptions = {}): Promise<HookResult> {
  const { session } = await locateSession(input, ctx, options.cwd);
  if ((await readCurrent(session.project.dir)) !== session.id) await writeCurrent(session.project.dir, session.id);
  const { memory, where, unchanged } = await updateHookState(session.paths.stateDir, async (state) => {
    const read = await readUsage(input, state, false);
    if (read) state.transcript = read.cursor;
    const boundary = read?.view.boundary;
    // After a compaction the boundary may reach the transcript after this hook: answer it ahead.
    state.answerNextBoundary = input.source === 'compact' && (boundary === undefined || boundary === state.answeredBoundary);
    if (boundary !== undefined) state.answeredBoundary = boundary;
    state.started = true;
    const part = await memoryPart(session, ctx, { ...rememberSettings(state, input, options), usage: read?.view });
    const delivery = deliveryOf(part.memory, boundary, input.transcriptPath);
    // A resumed conversation still holds the copy it was given, unless a compaction removed it since.
    const same = input.source === 'resume' && JSON.stringify(state.delivered) === JSON.stringify(delivery);
    state.delivered = delivery;
    return { ...part, unchanged: same };
  });
  if (unchanged) {
    const { renderUnchangedPointer } = await import('../render/context.js');
    return { output: hookOutput('SessionStart', renderUnchangedPointer(where)), session: session.id, note: 'memory unchanged since the copy this conversation holds: pointer delivered (resume)' };
  }
  return { output: hookOutput('SessionStart', memory), session: session.id, note: `memory part delivered (${input.source ?? 'no source'})` };
}

export async function userPromptSubmit(input: HookInput, ctx: RunContext, options: HookOptions = {}): Promise<HookResult> {
  const { session, created } = await locateSession(input, ctx, options.cwd);
  return updateHookState(session.paths.stateDir, async (state) => {
    const read = await readUsage(input, state, true);
    if (read) state.transcript = read.cursor;
    const usage = read?.view;
    let wantMemory = created || !state.started;
    let why = 'first hook of the session';
    if (usage?.boundary !== undefined && usage.boundary !== state.answeredBoundary) {
      if (state.answerNextBoundary) state.answerNextBoundary = false;
      else if (!wantMemory) {
        wantMemory = true;
        why = 'a compaction no hook had answered';
      }
      state.answeredBoundary = usage.boundary;
    }
    const { assembleContext } = await import('../commands/context.js');
    if (usage?.lastUsage) state.floor = Math.min(state.floor ?? Infinity, usage.lastUsage);
    const observed: Observed = { ...rememberSettings(state, input, options), usage };
    const assemble = async (budget?: number) => assembleContext(session, ctx, { wantMeta: true, observed, ...(budget ? { budget } : {}) });
    let { memory, metaText, meta } = await assemble();
    let text = wantMemory ? `${memory}\n${metaText}` : metaText;
    if (text.length > CLAUDE_CONTEXT_CAP && wantMemory) {
      // The memory part gives way so both fit under the cap (SPEC §4 budget rules).
      ({ memory, metaText, meta } = await assemble(Math.max(200, CLAUDE_CONTEXT_CAP - metaText.length - 1)));
      text = `${memory}\n${metaText}`;
    }
    if (text.length > CLAUDE_CONTEXT_CAP) text = metaText;
    else if (wantMemory) state.delivered = deliveryOf(memory, usage?.boundary, input.transcriptPath);
    state.started = true;
    return {
      output: hookOutput('UserPromptSubmit', text),
      session: session.id,
      note: `meta part delivered (tokens_used ${meta.tokens_used}, ${meta.tokens_source}; tokens_max ${meta.tokens_max}, ${meta.tokens_max_source})${wantMemory ? `, memory part too (${why})` : ''}`,
    };
  });
}

export async function toolUse(input: HookInput, ctx: RunContext, options: HookOptions = {}): Promise<HookResult> {
  const { session } = await locateSession(input, ctx, options.cwd);
  const event = toolEventFrom(input, session.project.cwd);
  const { trackTool } = await import('./engines.js');
  const note = await trackTool(session, event, ctx.now());
  // The agent edited its overview with its own file tools: re-render now rather than on the next prompt.
  const edited = input.toolInput?.file_path ?? input.toolInput?.path;
  if (input.event === 'PostToolUse' && typeof edited === 'string' && path.resolve(session.project.cwd, edited) === session.paths.overview) await warmContext(session, ctx);
  return { session: session.id, note };
}

export async function preCompact(input: HookInput, ctx: RunContext, options: HookOptions = {}): Promise<HookResult> {
  const { session } = await locateSession(input, ctx, options.cwd);
  if (!input.transcriptPath) throw new HookFailure('PreCompact input has no transcript_path: nothing to archive');
  if (!path.isAbsolute(input.transcriptPath)) throw new HookFailure(`transcript_path ${JSON.stringify(input.transcriptPath)} is not an absolute path`);
  try {
    await fs.access(input.transcriptPath);
  } catch {
    throw new HookFailure(`transcript ${input.transcriptPath} does not exist: nothing archived`);
  }
  const { archiveTranscriptBeforeCompact } = await import('./engines.js');
  const { note, archive } = await archiveTranscriptBeforeCompact(session, input.transcriptPath, ctx.now());
  // PostCompact names it in Recent Actions, beside the summary.
  if (archive) await updateHookState(session.paths.stateDir, async (state) => void (state.lastArchive = archive));
  return { session: session.id, note };
}

export async function postCompact(input: HookInput, ctx: RunContext, options: HookOptions = {}): Promise<HookResult> {
  const { session } = await locateSession(input, ctx, options.cwd);
  const summary = input.compactSummary;
  if (!summary?.trim()) return { session: session.id, note: 'no compact_summary: nothing kept' };
  const { writeDetail, appendToSections, detailIndexLine } = await import('../store/detail.js');
  const now = ctx.now();
  const title = `Claude Code's compaction summary (${input.trigger ?? 'compaction'}, ${now.toISOString().slice(0, 16)}Z)`;
  const relative = await writeDetail(session, {
    stem: `${fileStamp(now)}-compact-summary`,
    kind: 'compact-summary',
    source: `claude-code PostCompact${input.trigger ? ` (${input.trigger})` : ''}`,
    title,
    body: summary,
    created: now,
    extra: input.trigger ? { trigger: input.trigger } : undefined,
  });
  const archive = await updateHookState(session.paths.stateDir, async (state) => {
    const last = state.lastArchive;
    delete state.lastArchive;
    return last;
  });
  const recent = `Claude Code compacted the conversation (${input.trigger ?? 'compaction'}): its summary → ${relative}${archive ? `; the transcript before it → ${archive}` : ''}`;
  await appendToSections(session, [
    { sectionId: 'details', lines: [detailIndexLine(relative, title)] },
    { sectionId: 'recent', lines: [recent] },
  ]);
  const { promoteFromSummary } = await import('./engines.js');
  const promoted = await promoteFromSummary(session.project, summary, now);
  return { session: session.id, note: `kept ${relative}${promoted ? `; ${promoted} workspace memory entries from the summary` : ''}` };
}

export async function sessionEnd(input: HookInput, ctx: RunContext, options: HookOptions = {}): Promise<HookResult> {
  const { session } = await locateSession(input, ctx, options.cwd);
  const { consolidateAtEnd } = await import('./engines.js');
  const note = await consolidateAtEnd(session, ctx.now(), () => {});
  return { session: session.id, note: `${note}${input.reason ? ` (reason ${input.reason})` : ''}` };
}
