// `wmem sessions`: the project's sessions, oldest first, with the current one marked.
import { promises as fs } from 'node:fs';
import { locateProject } from '../store/project.js';
import { listSessionIds, readCurrent, readMeta } from '../store/session.js';
import { sessionPaths } from '../store/paths.js';
import type { CommandResult, RunContext } from '../ui/run.js';

export async function run(_options: unknown, ctx: RunContext): Promise<CommandResult> {
  const project = await locateProject(ctx.home, ctx.cwd, { create: false });
  if (!project) {
    return { data: { project: null, cwd: ctx.cwd, current: null, sessions: [] }, text: `no sessions for ${ctx.cwd}: run 'wmem init'` };
  }
  const current = await readCurrent(project.dir);
  const sessions = [];
  for (const id of await listSessionIds(project.dir)) {
    const paths = sessionPaths(project.dir, id);
    const meta = await readMeta(paths).catch(() => undefined);
    const scratchBytes = await fs.stat(paths.scratch).then((s) => s.size, () => 0);
    const messagesBytes = await fs.stat(paths.messages).then((s) => s.size, () => 0);
    sessions.push({ id, current: id === current, createdAt: meta?.createdAt ?? null, updatedAt: meta?.updatedAt ?? null, scratchBytes, messagesBytes, path: paths.dir });
  }
  // Oldest first by creation time; ids an agent chose (UUIDs) do not sort by time themselves.
  sessions.sort((a, b) => String(a.createdAt ?? '').localeCompare(String(b.createdAt ?? '')) || a.id.localeCompare(b.id));
  const text = sessions.length
    ? sessions.map((s) => `${s.current ? '*' : ' '} ${s.id}  ${s.createdAt ?? '-'}  messages ${s.messagesBytes} B  scratch ${s.scratchBytes} B`).join('\n')
    : `no sessions in ${project.dir}`;
  return { data: { project: project.dir, cwd: project.cwd, current: current ?? null, sessions }, text };
}
