// `wmem init`: creates the project folder and a session tree from templates/. Idempotent: an
// existing file is never overwritten; the session becomes the project's current one.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { assertSessionId, newSessionId, sessionPaths } from '../store/paths.js';
import { exists } from '../store/fsx.js';
import { readRegularSync } from '../store/regular-file.js';
import { planSessionStart } from './handoff.js';
import { locateProject } from '../store/project.js';
import { readCurrent, requestedSessionId, writeCurrent } from '../store/session.js';
import { ensureSessionTree } from '../store/session-tree.js';
import { overviewTemplateName, readTemplate } from '../store/templates.js';
import { fsError, usageError } from '../ui/errors.js';
import type { AppEnv } from './env.js';

export interface InitOptions {
  lang?: string;
  template?: string;
  tokensMax?: number;
  /** Start a new session even when the project has a current one. */
  new?: boolean;
  /** Start a new session from an earlier one's overview: true for the most recent with content, or its id. */
  continue?: string | boolean;
}

export interface InitResult {
  id: string;
  path: string;
  project: string;
  cwd: string;
  created: string[];
  current: true;
  /** The session this one continues (`--continue`) or got a handoff from. */
  continuedFrom?: string;
  handoffFrom?: string;
  /** Things worth saying (a folder name taken by another project, an option that did not apply). */
  notices: string[];
}

async function loadOverviewTemplate(options: InitOptions, cwd: string): Promise<string> {
  if (!options.template) return readTemplate(overviewTemplateName(options.lang ?? 'en'));
  const file = path.resolve(cwd, options.template);
  let text: string;
  try {
    text = readRegularSync(file, 'utf8');
  } catch (err) {
    throw fsError(err, 'read the template', file);
  }
  // Refuse a template wmem could not work with, before anything is written.
  const { parseOverview } = await import('../memory/overview.js');
  parseOverview(text, file);
  return text;
}

export async function init(options: InitOptions, env: AppEnv): Promise<InitResult> {
  const requested = requestedSessionId(env);
  if (options.new && env.sessionFlag !== undefined) throw usageError('--new and --session ask for different things', 'use --session ID for a named session, or --new for a generated one');
  const overviewTemplate = await loadOverviewTemplate(options, env.cwd);
  const now = env.now();
  const notices: string[] = [];
  const project = await locateProject(env.home, env.cwd, { create: true, now });
  if (!project) throw usageError(`cannot create a project folder for ${env.cwd}`);
  if (project.collidedWith) {
    notices.push(`note: ${path.basename(project.dir.replace(/\d+$/, ''))} already belongs to ${project.collidedWith}; using ${project.dir} for ${project.cwd}`);
  }
  const continueFrom = options.continue === true || options.continue === '' ? true : typeof options.continue === 'string' ? assertSessionId(options.continue, '--continue') : undefined;
  let id = requested?.id;
  if (!id && !options.new && continueFrom === undefined) id = await readCurrent(project.dir);
  id ??= newSessionId(now);
  const paths = sessionPaths(project.dir, id);
  const fresh = !(await exists(paths.overview));
  if (continueFrom !== undefined && !fresh) throw usageError(`session ${id} exists already; --continue starts a new session`, 'leave out --session, or name a session that does not exist yet');
  if (continueFrom === id) throw usageError(`--continue ${id} names the session being created`, "run 'wmem sessions' to list the earlier ones");
  const plan = fresh ? await planSessionStart(project, id, { home: env.home, env: env.env, now, template: overviewTemplate, continueFrom }) : undefined;
  for (const warning of plan?.warnings ?? []) notices.push(`note: ${warning}`);
  const created = await ensureSessionTree(project, id, { overviewTemplate: plan?.overview ?? overviewTemplate, tokensMax: options.tokensMax, lang: options.lang, now, extraMeta: plan?.meta });
  const overviewCreated = created.some((f) => f.endsWith('overview.md'));
  if (!overviewCreated && (options.template || (options.lang && options.lang !== 'en'))) {
    notices.push(`note: session ${id} already has an overview.md; --${options.template ? 'template' : 'lang'} applies to new sessions only (wmem init --new)`);
  }
  await writeCurrent(project.dir, id);
  notices.push(`${created.length ? 'created' : 'already set up'}; current session for ${project.cwd}`);
  const from = plan?.from ? (plan.overview ? { continuedFrom: plan.from } : { handoffFrom: plan.from }) : {};
  if (plan?.overview) notices.push(`continues session ${plan.from}: its task, progress, decisions, known context and open questions are in the new overview (${plan.from} is unchanged)`);
  return { id, path: paths.dir, project: project.dir, cwd: project.cwd, created, current: true, ...from, notices };
}
