// `wmem report`: one self-contained HTML page showing what happened to the agent's context: the
// tokens in use over the session against its window, each compaction and what it archived, notes,
// decisions and errors in time order, the overview, folder sizes. By default it is written into
// the session folder (0600); `out: '-'` returns the page instead.
import { statSync } from 'node:fs';
import path from 'node:path';
import { resolveSession, listSessionIds, readMeta, type Session } from '../store/session.js';
import { sessionPaths } from '../store/paths.js';
import { atomicWrite } from '../store/fsx.js';
import { usageError } from '../ui/errors.js';
import type { AppEnv } from './env.js';

export interface ReportOptions {
  all?: boolean;
  /** A file (relative to cwd), or '-' for the page itself; default <session>/report.html. */
  out?: string;
}

export type ReportResult = { html: string; file?: undefined } | { file: string; bytes: number };

export async function report(options: ReportOptions, env: AppEnv): Promise<ReportResult> {
  const session = await resolveSession(env);
  const out = options.out === '-' ? undefined : path.resolve(env.cwd, options.out ?? path.join(session.paths.dir, 'report.html'));
  if (out && options.out !== undefined && !isFolder(path.dirname(out))) throw usageError(`cannot write ${out}: the folder ${path.dirname(out)} does not exist`, 'give --out a file in an existing folder, or - for standard output');
  const base = out ? path.dirname(out) : session.paths.dir;
  const html = await buildReport(session, base, Boolean(options.all), env);
  if (!out) return { html };
  // --out names a file of the user's, anywhere; the default is in the session folder, wmem's own.
  await atomicWrite(out, html, { userFolder: options.out !== undefined });
  return { file: out, bytes: Buffer.byteLength(html) };
}

function isFolder(dir: string): boolean {
  try {
    return statSync(dir).isDirectory();
  } catch {
    return false;
  }
}

async function windowOf(session: Session, env: AppEnv): Promise<{ tokensMax: number; source: string }> {
  const { assembleContext } = await import('./context.js');
  const { meta } = await assembleContext(session, env, { wantMeta: true });
  return { tokensMax: meta.tokens_max, source: meta.tokens_max_source };
}

async function buildReport(session: Session, base: string, all: boolean, env: AppEnv): Promise<string> {
  const { loadSeries, loadEvents, loadSizes } = await import('../report/load.js');
  const { renderReport } = await import('../report/html.js');
  const { markdownToHtml } = await import('../report/markdown.js');
  const { readTextIfExists } = await import('../store/fsx.js');
  const window = await windowOf(session, env);
  // The current session's series is loaded again for its row (--all): each warning said once.
  const said = new Set<string>();
  const warn = (message: string) => void (said.has(message) || (said.add(message), env.warn?.(message)));
  const { series } = await loadSeries(session, base, warn);
  const events = await loadEvents(session, series, base);
  const overview = (await readTextIfExists(session.paths.overview)) ?? '';
  return renderReport({
    title: `wmem report: session ${session.id}`,
    session: session.id,
    project: session.project.cwd,
    window: window.tokensMax,
    windowSource: window.source,
    series,
    events,
    overviewHtml: markdownToHtml(overview),
    sizes: await loadSizes(session),
    ...(all ? { sessions: await sessionRows(session, base, window.tokensMax, warn) } : {}),
  });
}

/** One row per session of the project: its peak, its compactions, its last activity (from its own data). */
async function sessionRows(current: Session, base: string, window: number, warn: AppEnv['warn']) {
  const { loadSeries } = await import('../report/load.js');
  const { peakOf } = await import('../report/series.js');
  const rows = [];
  for (const id of await listSessionIds(current.project.dir)) {
    const session: Session = { ...current, id, paths: sessionPaths(current.project.dir, id) };
    const { series } = await loadSeries(session, base, warn);
    const meta = await readMeta(session.paths).catch(() => undefined);
    const last = series.points[series.points.length - 1]?.time ?? (meta?.updatedAt ? String(meta.updatedAt) : undefined);
    const report = path.join(session.paths.dir, 'report.html');
    rows.push({ id, peak: peakOf(series.points)?.tokens, window: meta?.tokensMax && meta.tokensMax !== 200_000 ? meta.tokensMax : window, compactions: series.compactions.length, last, href: path.relative(base, report).split(path.sep).join('/') });
  }
  return rows;
}
