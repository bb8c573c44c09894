// The lock folder itself: proper-lockfile's on-disk protocol, written out with node:fs alone so
// that the hooks (which lock on every prompt and every tool call) do not load proper-lockfile,
// graceful-fs (which patches fs), retry and signal-exit: 25–50 ms of a hook's ~35 ms budget on a
// slow machine. The protocol is unchanged, so a wmem of either kind excludes the other:
// - taking the lock is `mkdir <path>` (EEXIST: someone holds it);
// - the holder refreshes the folder's mtime every `updateMs` (a heartbeat);
// - a folder whose mtime is older than `staleMs` was left by a dead process: it is removed and
//   the mkdir tried once more (two takers: only one mkdir wins);
// - a holder that finds the mtime is not the one it set (or the folder gone) has lost the lock:
//   `onCompromised` is told, and the commit check in fsx.ts refuses to write;
// - releasing is `rmdir`; a process that exits (or is stopped by a signal nobody else handles)
//   with a lock held removes it on the way out. A brief hold (synchronous work alone) arms
//   neither the heartbeat nor the exit and signal listeners, which could not run before it is
//   over: a signal that ends the process inside one leaves its lock to be taken over once
//   stale, as a process killed outright does.
// The higher layer (fsx.ts: withLock, assertLocksHeld, the owner token) is the only user.
import { mkdirSync, rmdirSync, stat, statSync, utimes } from 'node:fs';

export interface DirLockOptions {
  staleMs: number;
  updateMs: number;
  /**
   * The holder's work is synchronous calls between resolved awaits (a read, a change, an atomic
   * replace) that never exit the process: no heartbeat nor exit or signal listeners, which could
   * not run before it is over.
   */
  brief?: boolean;
  /** The folder's mode (memory folders are private). */
  mode: number;
  onCompromised: (err: Error) => void;
}

/** Thrown (code ELOCKED) when a live process holds the lock. */
export class LockedError extends Error {
  code = 'ELOCKED';
}

interface Held {
  path: string;
  /** The folder this process made: a taker's folder at the same path is another (its own mtime). */
  ino: number;
  mtimeMs: number;
  lastUpdate: number;
  timer?: NodeJS.Timeout;
  released: boolean;
}

const held = new Set<Held>();

/** rmdir that takes a folder already gone for removed. */
function removeFolder(lockPath: string): void {
  try {
    rmdirSync(lockPath);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
}

/** A lock taken: its release, and the identity of the folder this process made (as it made it). */
export interface TakenLock {
  release: () => Promise<void>;
  ino: number;
  mtimeMs: number;
  /** Whether a stale folder was removed to take it: its holder may still be running. */
  tookOver: boolean;
}

/**
 * Takes the lock once (no waiting): resolves to its release, or rejects with LockedError. The
 * calls are synchronous (each takes microseconds): an asynchronous one would start libuv's thread
 * pool, which costs a hook several milliseconds, mostly at its exit.
 */
export async function tryLockDir(lockPath: string, options: DirLockOptions): Promise<TakenLock> {
  const tookOver = takeFolder(lockPath, options, true);
  const made = statSync(lockPath);
  const lock: Held = { path: lockPath, ino: made.ino, mtimeMs: made.mtimeMs, lastUpdate: Date.now(), released: false };
  held.add(lock);
  // A brief hold is over before the event loop turns, where the heartbeat's timer and a signal's
  // listener would first run, and calls nothing that exits: none is armed (a timer, three signal
  // handles and an exit listener cost each tool call's hook ~2 M instructions of Node's own
  // functions compiled: bench/README.md, floor16).
  if (!options.brief) {
    watchExit();
    heartbeat(lock, options);
  }
  const release = async () => {
    if (lock.released) return;
    stop(lock);
    try {
      // A lock lost while this process was paused may be another holder's folder now: not ours to remove.
      if (stillOurs(lock, options.staleMs)) removeFolder(lockPath);
    } catch {
      /* left to be taken over once stale */
    }
  };
  return { release, ino: made.ino, mtimeMs: made.mtimeMs, tookOver };
}

/**
 * Whether the folder at the lock's path is still the one this process made: the same inode, and
 * either the mtime it last set or a heartbeat recent enough that nobody could have taken it over
 * (a taker waits for staleMs without one). An inode reused by a taker's new folder has a new mtime.
 */
function stillOurs(lock: Held, staleMs: number): boolean {
  const st = statSync(lock.path);
  return st.ino === lock.ino && (st.mtimeMs === lock.mtimeMs || Date.now() - lock.lastUpdate < staleMs);
}

/** Makes the lock folder; true when a stale one was removed first (a takeover). */
function takeFolder(lockPath: string, options: DirLockOptions, mayTakeOver: boolean): boolean {
  try {
    mkdirSync(lockPath, { mode: options.mode });
    return false;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    // The second try (after a release or a stale removal) met another taker: it holds the lock now.
    if (!mayTakeOver) throw new LockedError(`${lockPath} is held by another process`);
  }
  let mtimeMs: number;
  try {
    mtimeMs = statSync(lockPath).mtimeMs;
  } catch (err) {
    // Released between the mkdir and the stat: try the mkdir again, without any takeover.
    if ((err as NodeJS.ErrnoException).code === 'ENOENT' && mayTakeOver) return takeFolder(lockPath, options, false);
    throw err;
  }
  if (mtimeMs >= Date.now() - options.staleMs) throw new LockedError(`${lockPath} is held by another process`);
  // Stale: left by a process that died. Remove it and race any other taker for the mkdir.
  removeFolder(lockPath);
  takeFolder(lockPath, options, false);
  return true;
}

function stop(lock: Held): void {
  lock.released = true;
  if (lock.timer) clearTimeout(lock.timer);
  held.delete(lock);
}

/** Refreshes the folder's mtime every updateMs while the lock is held; tells of a lost lock. */
function heartbeat(lock: Held, options: DirLockOptions): void {
  const lost = (why: string) => {
    stop(lock);
    options.onCompromised(Object.assign(new Error(why), { code: 'ECOMPROMISED' }));
  };
  const again = (delay: number) => {
    if (lock.released) return;
    lock.timer = setTimeout(beat, delay);
    lock.timer.unref();
  };
  const beat = () => {
    stat(lock.path, (err, st) => {
      if (lock.released) return;
      const late = lock.lastUpdate + options.staleMs < Date.now();
      if (err) return err.code === 'ENOENT' || late ? lost(`lock folder ${err.code === 'ENOENT' ? 'removed' : 'unreadable'}`) : again(1_000);
      if (st.mtimeMs !== lock.mtimeMs) return lost('Unable to update lock within the stale threshold');
      const now = new Date();
      utimes(lock.path, now, now, (err) => {
        if (lock.released) return;
        if (err) return err.code === 'ENOENT' || lock.lastUpdate + options.staleMs < Date.now() ? lost('lock folder removed') : again(1_000);
        // Read back what the file system kept (one with whole-second times rounds it).
        stat(lock.path, (err, after) => {
          if (lock.released) return;
          if (err) return again(1_000);
          lock.mtimeMs = after.mtimeMs;
          lock.lastUpdate = Date.now();
          again(options.updateMs);
        });
      });
    });
  };
  again(options.updateMs);
}

let watching = false;
const SIGNALS: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
/**
 * Marks this module's signal listeners. A process can hold two copies of it (the hook bundle and
 * a chunk of the full build it imports): each copy's listener counts only listeners that are not
 * a copy's, so neither takes the other for "someone else" and swallows the signal.
 */
const OWN = Symbol.for('wmem.lock.signalListener');

/**
 * A process that ends with locks held removes them (proper-lockfile's signal-exit did this): on
 * exit, and on a signal that nobody else in the process handles, after which the signal is
 * raised again so the process still ends the way it would have. A process killed outright leaves
 * its lock to be taken over once stale.
 */
function watchExit(): void {
  if (watching) return;
  watching = true;
  // on, not once: 'exit' is emitted once, and once's wrapper and its removal compile ~5 more of
  // Node's functions at the exit.
  process.on('exit', removeAllSync);
  const listeners = new Map<NodeJS.Signals, () => void>();
  for (const signal of SIGNALS) {
    const onSignal = () => {
      // Someone else (not a copy of this module) decides what the signal does.
      if (process.listeners(signal).some((l) => !(OWN in l))) return;
      removeAllSync();
      for (const [s, listener] of listeners) process.removeListener(s, listener);
      process.kill(process.pid, signal);
    };
    Object.defineProperty(onSignal, OWN, { value: true });
    listeners.set(signal, onSignal);
    process.on(signal, onSignal);
  }
}

function removeAllSync(): void {
  for (const lock of [...held]) {
    stop(lock);
    try {
      // Only a folder that is still ours: one a taker made since is not ours to remove.
      const st = statSync(lock.path);
      if (st.ino === lock.ino && st.mtimeMs === lock.mtimeMs) rmdirSync(lock.path);
    } catch {
      /* gone already */
    }
  }
}
