// `wmem show [overview|scratch|meta|messages|detail/NAME|archive/NAME]`: prints a memory file.
// Names from the command line are resolved inside the session's folders only.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { resolveInside } from '../store/fsx.js';
import { resolveSession } from '../store/session.js';
import { fsError, usageError } from '../ui/errors.js';
import type { CommandResult, RunContext } from '../ui/run.js';

const NAMED: Record<string, (p: import('../store/paths.js').SessionPaths) => string> = {
  overview: (p) => p.overview,
  scratch: (p) => p.scratch,
  meta: (p) => p.meta,
  messages: (p) => p.messages,
};

export async function run(_options: unknown, ctx: RunContext, args: unknown[]): Promise<CommandResult> {
  const asked = String(args[0] ?? 'overview');
  // `overview.md`, `Scratch` and the like mean the same files.
  const alias = asked.toLowerCase().replace(/\.(md|json|jsonl)$/, '');
  const which = NAMED[alias] ? alias : asked;
  const session = await resolveSession(ctx);
  let file: string;
  if (NAMED[which]) {
    file = NAMED[which](session.paths);
  } else if (/^(detail|archive)([\\/]|$)/.test(which)) {
    file = await resolveInside(session.paths.workingMemory, which, 'file');
  } else {
    throw usageError(`unknown file ${JSON.stringify(which)}`, 'use overview, scratch, meta, messages, detail/NAME or archive/NAME');
  }
  let stat: import('node:fs').Stats;
  try {
    stat = await fs.stat(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
      const hint = which.startsWith('detail') || which.startsWith('archive') ? `run 'wmem show ${which.split(/[\\/]/)[0]}' to list what is there` : undefined;
      throw usageError(`${file} does not exist`, hint);
    }
    throw fsError(err, 'read', file);
  }
  if (stat.isDirectory()) {
    const names = (await fs.readdir(file)).filter((n) => !n.startsWith('.')).sort();
    const rel = path.relative(session.paths.workingMemory, file);
    return { data: { session: session.id, folder: file, files: names }, text: names.map((n) => `${rel}/${n}`).join('\n') };
  }
  const content = await fs.readFile(file, 'utf8').catch((err) => {
    throw fsError(err, 'read', file);
  });
  return { data: { session: session.id, file, content }, text: content.replace(/\n$/, '') };
}
