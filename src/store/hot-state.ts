// <session dir>/state/hot.json: the session's hot state (active files, open errors), changed
// under the session lock with an atomic replace; read synchronously by `wmem context`.
import path from 'node:path';
import { atomicWrite, withLock } from './fsx.js';
import type { Session } from './session.js';
import { hotStatePath } from './paths.js';
import { applyToolEvent, emptyHotState, migrateHotState, type HotState, type ToolEvent, type TrackOutcome } from '../memory/hot-state.js';
import { readStateSync } from './regular-file.js';


/** A missing or unreadable file is an empty state: hot state is a cache of recent events. */
export function readHotStateSync(stateDir: string): HotState {
  try {
    const text = readStateSync(hotStatePath(stateDir));
    return text === undefined ? emptyHotState() : migrateHotState(JSON.parse(text));
  } catch {
    return emptyHotState();
  }
}

/** Applies one tool event to the session's hot state (what `wmem track` and the tool hooks do). */
export async function trackToolEvent(session: Session, event: ToolEvent, now: Date): Promise<TrackOutcome> {
  // Paths inside the project are kept relative to it: shorter, and the same from any session.
  const root = session.project.cwd;
  const files = event.files?.map((f) => (path.isAbsolute(f) && (f === root || f.startsWith(root + path.sep)) ? path.relative(root, f) || '.' : f));
  // Brief: a synchronous read, a pure change and a synchronous replace (on every tool call).
  return withLock(
    session.paths.dir,
    async () => {
      const outcome = applyToolEvent(readHotStateSync(session.paths.stateDir), { ...event, ...(files ? { files } : {}) }, now);
      await saveHotState(session.paths.stateDir, outcome.state);
      return outcome;
    },
    { brief: true },
  );
}

/** Replaces the hot state wholesale (a migration's files and errors). */
export async function writeHotState(session: Session, state: HotState): Promise<void> {
  await withLock(session.paths.dir, () => saveHotState(session.paths.stateDir, state));
}

/**
 * Writes hot.json; the caller holds the session lock. Not fsynced (a tool hook writes it on every
 * call): a power cut may lose the last events of a cache of recent ones (docs/guarantees.md).
 */
export async function saveHotState(stateDir: string, state: HotState): Promise<void> {
  await atomicWrite(hotStatePath(stateDir), JSON.stringify(state, null, 2) + '\n', { durable: false });
}
