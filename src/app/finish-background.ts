// `wmem compact --finish` started detached: what a quick compaction left (its transcript, the
// search indexes), and the indexes a search left for later. Apart from compact.ts so that a
// search, which only starts it, does not load the compaction.
import type { Where } from '../store/session.js';

/** Starts `wmem compact --finish` for a session, detached; false when it could not be started. */
export function finishInBackground(bin: string | undefined, where: Where, sessionId: string): boolean {
  if (!bin) return false;
  try {
    // Loaded here: most searches never start one, and node:child_process costs a search's startup.
    const { spawn } = process.getBuiltinModule('node:child_process');
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
