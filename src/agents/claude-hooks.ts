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
import type { RunContext } from '../ui/run.js';

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

async function memoryPart(session: Session, budget?: number): Promise<string> {
  const { assembleContext } = await import('../commands/context.js');
  return (await assembleContext(session, { wantMeta: false, ...(budget ? { budget } : {}) })).memory;
}

/**
 * Renders the memory part again so the next prompt finds the render cache up to date: called
 * after the agent edited overview.md with its own file tools, mid-turn, so the Markdown parse is
 * paid there rather than when the user submits the next prompt. Best effort.
 */
async function warmContext(session: Session): Promise<void> {
  try {
    await memoryPart(session);
  } catch {
    /* the next prompt renders it then */
  }
}

export async function sessionStart(input: HookInput, ctx: RunContext, cwdFlag?: string): Promise<HookResult> {
  const { session } = await locateSession(input, ctx, cwdFlag);
  if ((await readCurrent(session.project.dir)) !== session.id) await writeCurrent(session.project.dir, session.id);
  await updateHookState(session.paths.stateDir, async (state) => {
    const read = await readUsage(input, state, false);
    if (read) state.transcript = read.cursor;
    const boundary = read?.view.boundary;
    // After a compaction the boundary may reach the transcript after this hook: answer it ahead.
    state.answerNextBoundary = input.source === 'compact' && (boundary === undefined || boundary === state.answeredBoundary);
    if (boundary !== undefined) state.answeredBoundary = boundary;
    state.started = true;
  });
  const memory = await memoryPart(session);
  return { output: hookOutput('SessionStart', memory), session: session.id, note: `memory part delivered (${input.source ?? 'no source'})` };
}

export async function userPromptSubmit(input: HookInput, ctx: RunContext, cwdFlag?: string): Promise<HookResult> {
  const { session, created } = await locateSession(input, ctx, cwdFlag);
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
    const { renderMeta } = await import('../render/context.js');
    const tokensUsed = usage?.lastUsage ?? undefined;
    const assemble = async (budget?: number) => {
      const assembled = await assembleContext(session, { wantMeta: true, tokensUsed, ...(budget ? { budget } : {}) });
      let metaText = assembled.metaText;
      if (tokensUsed !== undefined) {
        assembled.meta.tokens_source = 'transcript_usage';
        metaText = renderMeta(assembled.meta);
      }
      return { memory: assembled.memory, metaText };
    };
    let { memory, metaText } = await assemble();
    let text = wantMemory ? `${memory}\n${metaText}` : metaText;
    if (text.length > CLAUDE_CONTEXT_CAP && wantMemory) {
      // The memory part gives way so both fit under the cap (SPEC §4 budget rules).
      ({ memory, metaText } = await assemble(Math.max(200, CLAUDE_CONTEXT_CAP - metaText.length - 1)));
      text = `${memory}\n${metaText}`;
    }
    if (text.length > CLAUDE_CONTEXT_CAP) text = metaText;
    state.started = true;
    return {
      output: hookOutput('UserPromptSubmit', text),
      session: session.id,
      note: `meta part delivered (tokens_used ${tokensUsed ?? 'counted'})${wantMemory ? `, memory part too (${why})` : ''}`,
    };
  });
}

export async function toolUse(input: HookInput, ctx: RunContext, cwdFlag?: string): Promise<HookResult> {
  const { session } = await locateSession(input, ctx, cwdFlag);
  const event = toolEventFrom(input, session.project.cwd);
  const { trackTool } = await import('./engines.js');
  const note = await trackTool(session, event, ctx.now());
  // The agent edited its overview with its own file tools: re-render now rather than on the next prompt.
  const edited = input.toolInput?.file_path ?? input.toolInput?.path;
  if (input.event === 'PostToolUse' && typeof edited === 'string' && path.resolve(session.project.cwd, edited) === session.paths.overview) await warmContext(session);
  return { session: session.id, note };
}

export async function preCompact(input: HookInput, ctx: RunContext, cwdFlag?: string): Promise<HookResult> {
  const { session } = await locateSession(input, ctx, cwdFlag);
  if (!input.transcriptPath) throw new HookFailure('PreCompact input has no transcript_path: nothing to archive');
  if (!path.isAbsolute(input.transcriptPath)) throw new HookFailure(`transcript_path ${JSON.stringify(input.transcriptPath)} is not an absolute path`);
  try {
    await fs.access(input.transcriptPath);
  } catch {
    throw new HookFailure(`transcript ${input.transcriptPath} does not exist: nothing archived`);
  }
  const { archiveTranscriptBeforeCompact } = await import('./engines.js');
  const note = await archiveTranscriptBeforeCompact(session, input.transcriptPath, ctx.now());
  return { session: session.id, note };
}

export async function postCompact(input: HookInput, ctx: RunContext, cwdFlag?: string): Promise<HookResult> {
  const { session } = await locateSession(input, ctx, cwdFlag);
  const summary = input.compactSummary;
  if (!summary?.trim()) return { session: session.id, note: 'no compact_summary: nothing kept' };
  const { writeDetail, appendToSection, detailIndexLine } = await import('../store/detail.js');
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
  await appendToSection(session, 'details', [detailIndexLine(relative, title)]);
  const { promoteFromSummary } = await import('./engines.js');
  const promoted = await promoteFromSummary(session.project, summary, now);
  return { session: session.id, note: `kept ${relative}${promoted ? `; ${promoted} workspace memory entries from the summary` : ''}` };
}

export async function sessionEnd(input: HookInput, ctx: RunContext, cwdFlag?: string): Promise<HookResult> {
  const { session } = await locateSession(input, ctx, cwdFlag);
  const { consolidateAtEnd } = await import('./engines.js');
  const note = await consolidateAtEnd(session, ctx.now(), () => {});
  return { session: session.id, note: `${note}${input.reason ? ` (reason ${input.reason})` : ''}` };
}
