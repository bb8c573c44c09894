// `wmem sessions`: the project's sessions, oldest first, with the current one marked.
import { promises as fs } from 'node:fs';
import { locateProject } from '../store/project.js';
import { listSessionIds, readCurrent, readMeta } from '../store/session.js';
import { sessionPaths } from '../store/paths.js';
import type { AppEnv } from './env.js';

export interface SessionRow {
  id: string;
  current: boolean;
  createdAt: string | null;
  updatedAt: string | null;
  scratchBytes: number;
  messagesBytes: number;
  path: string;
}

export interface SessionsResult {
  /** The project folder, or null when the directory has none yet. */
  project: string | null;
  cwd: string;
  current: string | null;
  sessions: SessionRow[];
}

export async function sessions(env: AppEnv): Promise<SessionsResult> {
  const project = await locateProject(env.home, env.cwd, { create: false });
  if (!project) return { project: null, cwd: env.cwd, current: null, sessions: [] };
  const current = await readCurrent(project.dir);
  const rows: SessionRow[] = [];
  for (const id of await listSessionIds(project.dir)) {
    const paths = sessionPaths(project.dir, id);
    const meta = await readMeta(paths).catch(() => undefined);
    const scratchBytes = await fs.stat(paths.scratch).then((s) => s.size, () => 0);
    const messagesBytes = await fs.stat(paths.messages).then((s) => s.size, () => 0);
    rows.push({ id, current: id === current, createdAt: meta?.createdAt ?? null, updatedAt: meta?.updatedAt ?? null, scratchBytes, messagesBytes, path: paths.dir });
  }
  // Oldest first by creation time; ids an agent chose (UUIDs) do not sort by time themselves.
  rows.sort((a, b) => String(a.createdAt ?? '').localeCompare(String(b.createdAt ?? '')) || a.id.localeCompare(b.id));
  return { project: project.dir, cwd: project.cwd, current: current ?? null, sessions: rows };
}
