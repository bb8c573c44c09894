// Use case `show`: one memory file (overview, scratch, meta, messages, detail/NAME, archive/NAME)
// or the listing of detail/ or archive/. Names from outside are resolved inside the session's
// folders only (no absolute path, no '..', no symbolic link on the way).
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { resolveInside } from '../store/fsx.js';
import { notRegular } from '../store/regular-file.js';
import { resolveSession } from '../store/session.js';
import type { AppEnv } from './env.js';
import type { SessionPaths } from '../store/paths.js';
import { fsError, usageError } from '../ui/errors.js';
import { entryOf } from '../ui/json.js';

const NAMED: Record<string, (p: SessionPaths) => string> = {
  overview: (p) => p.overview,
  scratch: (p) => p.scratch,
  meta: (p) => p.meta,
  messages: (p) => p.messages,
};

export interface ShowOptions {
  /** overview (default), scratch, meta, messages, detail, detail/NAME, archive, archive/NAME. */
  file?: string;
}

export type ShowResult =
  | { session: string; file: string; content: string }
  | { session: string; folder: string; /** relative to working-memory/, e.g. detail */ relative: string; files: string[] };

/** The absolute path a `show` name stands for, contained in the session's folders. */
export async function showPath(paths: SessionPaths, asked: string): Promise<{ which: string; file: string }> {
  // `overview.md`, `Scratch` and the like mean the same files.
  const alias = asked.toLowerCase().replace(/\.(md|json|jsonl)$/, '');
  const which = entryOf(NAMED, alias) ? alias : asked;
  const named = entryOf(NAMED, which);
  if (named) return { which, file: named(paths) };
  if (/^(detail|archive)([\\/]|$)/.test(which)) return { which, file: await resolveInside(paths.workingMemory, which, 'file') };
  throw usageError(`unknown file ${JSON.stringify(which)}`, 'use overview, scratch, meta, messages, detail/NAME or archive/NAME');
}

export async function showFile(options: ShowOptions, env: AppEnv): Promise<ShowResult> {
  const session = await resolveSession(env);
  const { which, file } = await showPath(session.paths, String(options.file ?? 'overview'));
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
    const files = (await fs.readdir(file)).filter((n) => !n.startsWith('.')).sort();
    return { session: session.id, folder: file, relative: path.relative(session.paths.workingMemory, file), files };
  }
  // A FIFO planted there would block the read for ever.
  if (!stat.isFile()) throw fsError(notRegular(file, stat), 'read', file);
  const content = await fs.readFile(file, 'utf8').catch((err) => {
    throw fsError(err, 'read', file);
  });
  return { session: session.id, file, content };
}
