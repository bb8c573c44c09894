// Where each hook moment's session is (the moments of hook-moments.ts, hook-compaction.ts and
// hook-tool.ts): the project (a project switched off goes no further), the session the agent's
// input names (created when it does not exist), and the render done ahead for the next prompt. A module of its own so that a
// tool call's first stage (dist/fast/first-tool*.cjs) holds this and hook-tool.ts without the
// moments that answer with context (src/entries/build-first-hook.mjs leaves hook-moments.ts out).
import path from 'node:path';
import { exists } from '../store/fsx.js';
import { assertSessionId, sessionPaths } from '../store/paths.js';
import { locateProject, type ProjectRef } from '../store/project.js';
import { isOffAt, offFile } from '../store/switch.js';
import { readCurrent, requestedSessionId, sessionWhole, type Session } from '../store/session.js';
import type { AgentHook, HookInput } from '../agents/adapter.js';
import type { AppEnv } from './env.js';
import { FIRST_STAGE_MISS } from './hook.js';

export interface HookOptions {
  /** The project folder, overriding the agent's (`wmem hook --cwd`). */
  cwd?: string;
  /** The user's window for this agent's model (`wmem install AGENT --tokens-max N`). */
  tokensMax?: number;
  /**
   * Writes the agent's answer (its JSON) to stdout; throws when it cannot be written. A moment that
   * records what it gave the agent (the memory part) calls it inside the state's lock, before the
   * record is saved: a record is never saved for an answer that was not written. A promise when
   * the write could not finish at once (fd 1 non-blocking and full): settled once the answer is
   * in the pipe, rejected when it never gets there.
   */
  deliver?: (output: unknown) => Promise<void> | undefined;
}

/** What a moment handler is given: the adapter, the parsed input, where things are, the options. */
export interface Moment {
  adapter: AgentHook;
  input: HookInput;
  env: AppEnv;
  options: HookOptions;
}

export class HookFailure extends Error {
  override name = 'HookFailure';
}

/** `wmem off` is in force for the project: the driver answers nothing and writes nothing. */
export class SwitchedOff extends Error {
  override name = 'SwitchedOff';
}

/**
 * Every moment finds its project here: a project switched off goes no further. (A project that is
 * off exists already, flag and all, so `create` writes nothing there.)
 */
export async function locateProjectOf(moment: Moment, create: boolean): Promise<ProjectRef | undefined> {
  const project = await locateProject(moment.env.home, projectCwd(moment), { create, now: moment.env.now() });
  if (project && isOffAt(project.dir)) throw new SwitchedOff(`wmem is off for this project (${offFile(project.dir)}; wmem on turns it back on): nothing done`);
  return project;
}

export interface HookResult {
  /** The JSON the agent reads on stdout; none: the hook prints nothing. */
  output?: unknown;
  session?: string;
  /** What happened, for the fired record. */
  note: string;
}

export interface Located {
  session: Session;
  created: boolean;
}

/** The project: --cwd, else the agent's project folder, else the hook input's cwd, else ours. */
export function projectCwd({ input, env, options }: Pick<Moment, 'input' | 'env' | 'options'>): string {
  const cwd = options.cwd ?? input.projectDir ?? input.cwd ?? env.cwd;
  if (!path.isAbsolute(cwd)) throw new HookFailure(`the hook's cwd ${JSON.stringify(cwd)} is not an absolute path`);
  return cwd;
}

/** The session named by the agent's session_id (the wmem id), created when it does not exist. */
export async function locateSession(moment: Moment): Promise<Located> {
  const { input, env, adapter } = moment;
  const now = env.now();
  // The id is checked before the project is located: an invalid id creates nothing, not even the
  // project's record.
  const named = input.sessionId ? assertSessionId(input.sessionId, 'the hook input session_id') : undefined;
  const project = await locateProjectOf(moment, true);
  if (!project) throw new HookFailure('no project folder');
  const id = named ?? requestedSessionId(env)?.id ?? (await readCurrent(project.dir));
  if (!id) throw new HookFailure('the hook input has no session_id and the project has no current session');
  const paths = sessionPaths(project.dir, id);
  let created = false;
  if (!sessionWhole(paths)) {
    const [{ ensureSessionTree }, { readTemplate, overviewTemplateName }] = await Promise.all([import('../store/session-tree.js'), import('../store/templates.js')]);
    const template = readTemplate(overviewTemplateName('en'));
    const start = await planStart(moment, project, id, { template, overview: paths.overview, now });
    const made = await ensureSessionTree(project, id, {
      overviewTemplate: start?.overview ?? template,
      now,
      extraMeta: { agent: adapter.metaName, ...start?.meta },
    });
    created = made.length > 0;
  }
  return { session: { id, project, paths, source: 'flag' }, created };
}

/**
 * What a session a hook is about to create starts from (a handoff, or the previous overview when
 * the user asked for `continue`): only at a fresh start, never at a resume or after a compaction,
 * and never when its overview exists already. A failure of the handoff's own costs the handoff, not the hook.
 */
async function planStart(moment: Moment, project: ProjectRef, id: string, { template, overview, now }: { template: string; overview: string; now: Date }) {
  const { input, env } = moment;
  const fresh = input.moment === 'prompt' || (input.moment === 'session-start' && input.source !== 'resume' && input.source !== 'compact');
  if (!fresh || (await exists(overview))) return undefined;
  try {
    const { planSessionStart } = await import('./handoff.js');
    return await planSessionStart(project, id, { home: env.home, env: env.env, now, template });
  } catch (err) {
    // A first stage that cannot load the handoff (left out, or its bundle beside it missing) hands
    // the hook on before the session exists: the handoff is planned only at creation, so a session
    // created without it would lose it for good.
    if ((err as Error)?.name === FIRST_STAGE_MISS) throw err;
    return undefined;
  }
}

/**
 * For moments that otherwise touch nothing (an event wmem ignores, a subagent's): a project that
 * is off still answers nothing and records nothing. Anything else wrong here is not theirs to report.
 */
export async function assertOn(moment: Moment): Promise<void> {
  try {
    await locateProjectOf(moment, false);
  } catch (err) {
    if (err instanceof SwitchedOff) throw err;
  }
}

/** Whether the session the hook names has a folder already (nothing is created to know). */
export async function sessionExists(moment: Moment): Promise<boolean> {
  if (!moment.input.sessionId) return true; // the current session: locateSession decides
  const project = await locateProjectOf(moment, false);
  if (!project) return false;
  return exists(sessionPaths(project.dir, assertSessionId(moment.input.sessionId, 'the hook input session_id')).dir);
}

/**
 * Renders the memory part again so the next prompt finds the render cache up to date: called
 * after the agent edited overview.md with its own file tools, mid-turn, so the Markdown parse is
 * paid there rather than when the user submits the next prompt. Best effort.
 */
export async function warmContext(session: Session, env: AppEnv): Promise<void> {
  try {
    const { assembleContext } = await import('./context.js');
    await assembleContext(session, env, { wantMeta: false });
  } catch {
    /* the next prompt renders it then */
  }
}
