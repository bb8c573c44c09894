// `wmem init`: creates the project folder and a session tree from templates/. Idempotent: an
// existing file is never overwritten; the session becomes the project's current one.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { newSessionId, sessionPaths } from '../store/paths.js';
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
}

export interface InitResult {
  id: string;
  path: string;
  project: string;
  cwd: string;
  created: string[];
  current: true;
  /** Things worth saying (a folder name taken by another project, an option that did not apply). */
  notices: string[];
}

async function loadOverviewTemplate(options: InitOptions, cwd: string): Promise<string> {
  if (!options.template) return readTemplate(overviewTemplateName(options.lang ?? 'en'));
  const file = path.resolve(cwd, options.template);
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
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
  let id = requested?.id;
  if (!id && !options.new) id = await readCurrent(project.dir);
  id ??= newSessionId(now);
  const created = await ensureSessionTree(project, id, { overviewTemplate, tokensMax: options.tokensMax, lang: options.lang, now });
  const overviewCreated = created.some((f) => f.endsWith('overview.md'));
  if (!overviewCreated && (options.template || (options.lang && options.lang !== 'en'))) {
    notices.push(`note: session ${id} already has an overview.md; --${options.template ? 'template' : 'lang'} applies to new sessions only (wmem init --new)`);
  }
  await writeCurrent(project.dir, id);
  notices.push(`${created.length ? 'created' : 'already set up'}; current session for ${project.cwd}`);
  return { id, path: sessionPaths(project.dir, id).dir, project: project.dir, cwd: project.cwd, created, current: true, notices };
}
