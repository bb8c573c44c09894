// `wmem sessions`: the project's sessions, oldest first, with the current one marked.
import { promises as fs } from 'node:fs';
import { locateProject } from '../store/project.js';
import { listSessionIds, readCurrent, readMeta } from '../store/session.js';
import { sessionPaths } from '../store/paths.js';
import { usageError } from '../ui/errors.js';
import type { CommandResult, RunContext } from '../ui/run.js';

export async function run(_options: unknown, ctx: RunContext): Promise<CommandResult> {
  const project = await locateProject(ctx.home, ctx.cwd, { create: false });
  if (!project) throw usageError(`no session for ${ctx.cwd}: run 'wmem init'`);
  const current = await readCurrent(project.dir);
  const sessions = [];
  for (const id of await listSessionIds(project.dir)) {
    const paths = sessionPaths(project.dir, id);
    const meta = await readMeta(paths).catch(() => undefined);
    const scratchBytes = await fs.stat(paths.scratch).then((s) => s.size, () => 0);
    const messagesBytes = await fs.stat(paths.messages).then((s) => s.size, () => 0);
    sessions.push({ id, current: id === current, createdAt: meta?.createdAt ?? null, updatedAt: meta?.updatedAt ?? null, scratchBytes, messagesBytes, path: paths.dir });
  }
  const text = sessions.length
    ? sessions.map((s) => `${s.current ? '*' : ' '} ${s.id}  ${s.createdAt ?? '-'}  messages ${s.messagesBytes} B  scratch ${s.scratchBytes} B`).join('\n')
    : `no sessions in ${project.dir}`;
  return { data: { project: project.dir, cwd: project.cwd, current: current ?? null, sessions }, text };
}
