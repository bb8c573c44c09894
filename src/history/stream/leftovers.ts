// Sweeping what killed wmem processes left in a session: their temp files (by the pid in the
// name, once that process is gone) and write-file-atomic's leftovers (once stale).
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { isAtomicWriteLeftover, ownTempPid } from '../../store/temp-names.js';
import type { Session } from '../../store/session.js';
import { processAlive } from '../../store/fsx.js';
import { lstatFile, unlinkFile } from '../../store/fd-handle.js';


/**
 * Deletes temp files that a killed wmem process left in `dirs` (names `.<…>.<pid>[.replaced].tmp`
 * whose process is gone). Call with the session lock held.
 */
export async function removeStaleTemps(dirs: string[]): Promise<number> {
  let removed = 0;
  for (const dir of dirs) {
    let names: string[];
    try {
      // Listed in this thread: a few small folders, read before every compaction, where each
      // trip through the thread pool cost more than the listing (bench/README.md).
      names = readdirSync(dir);
    } catch {
      continue;
    }
    for (const name of names) {
      const pid = ownTempPid(name);
      if (pid === undefined || pid === process.pid || processAlive(pid)) continue;
      await unlinkFile(path.join(dir, name)).then(
        () => removed++,
        () => {},
      );
    }
  }
  return removed;
}

/**
 * Removes what write-file-atomic leaves when its process is killed mid-write (see
 * isAtomicWriteLeftover: only beside the files wmem writes that way), `minAgeMs` old (a minute by
 * default: a live write takes milliseconds). `stateDir`: the folder whose JSON files are all wmem's.
 */
export async function removeAtomicLeftovers(dirs: string[], stateDir: string, minAgeMs = 60_000): Promise<number> {
  const now = Date.now();
  let removed = 0;
  for (const dir of dirs) {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      continue;
    }
    for (const name of names) {
      if (!isAtomicWriteLeftover(name, dir === stateDir)) continue;
      const file = path.join(dir, name);
      const st = await lstatFile(file).catch(() => undefined);
      if (!st?.isFile() || now - st.mtimeMs < minAgeMs) continue;
      await unlinkFile(file).then(
        () => removed++,
        () => {},
      );
    }
  }
  return removed;
}

/** Both kinds of leftovers of killed wmem processes in a session. */
export async function removeSessionLeftovers(session: Session): Promise<void> {
  await removeStaleTemps(sessionTempDirs(session));
  await removeAtomicLeftovers([session.paths.dir, session.paths.stateDir, session.paths.workingMemory], session.paths.stateDir);
}

/** Where compaction, restore and transcript archiving put their temp files. */
export function sessionTempDirs(session: Session): string[] {
  return [session.paths.dir, session.paths.stateDir, session.paths.archiveDir, session.paths.detailDir];
}
