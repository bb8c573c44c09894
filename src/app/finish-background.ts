// `wmem compact --finish` started detached: what a quick compaction left (its transcript, the
// search indexes), and the indexes a search left for later. Apart from compact.ts so that a
// search, which only starts it, does not load the compaction.
import { spawn } from 'node:child_process';
import type { Where } from '../store/session.js';

/** Starts `wmem compact --finish` for a session, detached; false when it could not be started. */
export function finishInBackground(bin: string | undefined, where: Where, sessionId: string): boolean {
  if (!bin) return false;
  try {
    const child = spawn(process.execPath, [bin, 'compact', '--finish', '--quiet', '--home', where.home, '--cwd', where.cwd, '--session', sessionId], {
      detached: true,
      stdio: 'ignore',
      env: where.env,
    });
    child.on('error', () => {});
    child.unref();
    return child.pid !== undefined;
  } catch {
    return false;
  }
}
