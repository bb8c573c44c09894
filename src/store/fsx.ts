// Every write of a file that matters goes through here: atomic replace (temp, fsync, rename,
// fsync of the folder), single-write appends, private modes, a lock for read-modify-write, and
// path containment for names that come from users, agents or hook input.
// Named imports only: a default import of node:fs becomes esbuild's __toESM in the CommonJS hook
// stages, a copy of every fs property behind a getter made on each hook's start (~44 KB allocated).
import { promises as fs, constants as fsc, closeSync, fstatSync, fsync, fsyncSync, lstatSync, mkdirSync, openSync, readdirSync, readSync, realpathSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import type { Dirent, Stats } from 'node:fs';
import path from 'node:path';
import { AsyncLocalStorage } from 'node:async_hooks';
import { WmemError, fsError, ioError, usageError } from '../ui/errors.js';
import { shellQuote } from '../ui/shell.js';
import { LockedError, tryLockDir, type TakenLock } from './lock.js';
import { joinName } from './names.js';
import { isMiss, notRegular, READ_FLAGS, readRegularSync } from './regular-file.js';
import { openFd, type FdHandle } from './fd-handle.js';

export const FILE_MODE = 0o600;
export const DIR_MODE = 0o700;

// Synchronous like the reads below: a hook's small file operations gain nothing from the thread
// pool, and every prompt would pay for starting it. A folder that is there costs one lstat (a
// recursive mkdir costs a mkdir, EEXIST, and a stat). `own`: a folder of wmem's own (under its
// home), where a symbolic link is refused (linkRefusal) instead of followed; elsewhere (an agent's
// settings folder, a repository's .wmem/) a link to a folder is the user's and is followed.
export async function ensureDir(dir: string, own = false): Promise<void> {
  try {
    const st = lstatSync(dir, { throwIfNoEntry: false });
    if (st?.isDirectory()) return;
    if (own && st?.isSymbolicLink()) throw linkRefusal(dir);
    mkdirSync(dir, { recursive: true, mode: DIR_MODE });
  } catch (err) {
    if (err instanceof WmemError) throw err;
    throw fsError(err, 'create folder', dir);
  }
}

/**
 * The refusal of a symbolic link where wmem keeps a file or folder of its own: whatever it read or
 * wrote there would be wherever the link points. Names the link and where it leads, and what to
 * run to put a real one in its place.
 */
export function linkRefusal(link: string): WmemError {
  // Where the kernel resolves it (a folder above the link may be a link too: the home itself, often),
  // not path arithmetic on readlink's text; a dangling link is named without a target.
  let to: string | undefined;
  try {
    to = realpathSync(link);
  } catch {
    /* dangling, gone meanwhile, or unreadable */
  }
  const at = shellQuote(link);
  // The move is offered only after checking its target is a folder: `mv` onto a missing target
  // after the `rm` would lose the link and move nothing.
  const hint = to
    ? `if ${shellQuote(to)} holds this folder's own files, put them in its place (test -d ${shellQuote(to)} && rm ${at} && mv ${shellQuote(to)} ${at}); to start it afresh, remove the link (rm ${at}); then run the command again`
    : `remove the link (rm ${at}) and run the command again`;
  return usageError(`${link} is a symbolic link${to ? ` to ${to}` : ''}; wmem does not read or write through links in its folders`, hint);
}

// Reads are synchronous on purpose: a one-shot CLI gains nothing from the thread pool, and
// node's promise-based fs costs milliseconds to load on `wmem context`, which runs every prompt.
export async function readTextIfExists(file: string, max?: number, flags?: number): Promise<string | undefined> {
  try {
    return readRegularSync(file, 'utf8', max, flags);
  } catch (err) {
    // Larger than `max` (derived state's bound, MAX_STATE_BYTES): ignored, as one not there.
    if (isMiss(err)) return undefined;
    throw fsError(err, 'read', file);
  }
}

/** What a reader of another program's file uses of it (a FileHandle's read, stat and close). */
export interface ReadHandle {
  read(buffer: Buffer, offset: number, length: number, position: number): Promise<{ bytesRead: number }>;
  stat(): Promise<Stats>;
  close(): Promise<void>;
}

/**
 * Opens a file another program names (an agent's transcript) for reading, refusing anything but
 * a regular file: a FIFO would block the hook for ever (O_NONBLOCK makes the open return), a
 * device or socket has no lines to read. The error has code EISDIR for a folder, ENOTREG else.
 * The calls behind the handle are synchronous: the hooks read transcripts on every prompt, and a
 * promise-based FileHandle would start libuv's thread pool (milliseconds, mostly at exit).
 */
export async function openRegularFile(file: string): Promise<ReadHandle> {
  const fd = openSync(file, READ_FLAGS);
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw notRegular(file, st);
  } catch (err) {
    closeSync(fd);
    throw err;
  }
  let open = true;
  return {
    read: async (buffer, offset, length, position) => ({ bytesRead: readSync(fd, buffer, offset, length, position) }),
    stat: async () => fstatSync(fd),
    close: async () => {
      if (open) closeSync(fd);
      open = false;
    },
  };
}

/**
 * Fills `into` from `position` of an open file, as far as the file goes: readSync may return
 * fewer bytes than asked. Returns the part read (shorter only at the end of the file).
 */
export function readRange<T extends Uint8Array>(fd: number, into: T, position: number): T {
  let got = 0;
  while (got < into.length) {
    const n = readSync(fd, into, got, into.length - got, position + got);
    if (!n) break;
    got += n;
  }
  return into.subarray(0, got) as T;
}

/** Whether a process with this pid is running (one of another user's counts: EPERM). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Whether a live process holds the lock of `dir` (withLock's folder, its owner token naming the
 * holder's pid). A hint, not a check to write by: the answer may change the moment it is read.
 */
export function lockHeldByLiveProcess(dir: string): boolean {
  try {
    const lockfilePath = lockPathOf(dir);
    if (!lstatSync(lockfilePath).isDirectory()) return false;
    const pid = Number(readRegularSync(ownerFile(lockfilePath), 'utf8').split('-')[0]);
    return Number.isInteger(pid) && pid > 0 && processAlive(pid);
  } catch {
    return false;
  }
}

export async function exists(file: string): Promise<boolean> {
  try {
    lstatSync(file);
    return true;
  } catch {
    return false;
  }
}

export async function fsyncDir(dir: string): Promise<void> {
  // Makes the rename itself durable; some file systems refuse fsync on a folder, which is harmless.
  // Only the fsync waits on the disk, in the thread pool: the open and the close take microseconds,
  // and each trip through the pool is a wake-up of a thread and of the event loop (three of them
  // per folder sat on the compact return's path to its commit: bench/README.md, compact9).
  const fd = openDir(dir);
  if (fd === undefined) return;
  try {
    await new Promise<void>((resolve, reject) => fsync(fd, (err) => (err ? reject(err) : resolve())));
  } catch {
    /* best effort */
  } finally {
    closeQuietly(fd);
  }
}

/**
 * fsyncDir without the thread pool, for a write with nothing to overlap its wait with (a hook's
 * writes, one after the other): the pool's first trip starts its threads, and a request still in
 * flight as a hook answers keeps it from ending at once (bin/wmem.js endIfIdle; bench/README.md, cmp17).
 */
export function fsyncDirSync(dir: string): void {
  const fd = openDir(dir);
  if (fd === undefined) return;
  try {
    fsyncSync(fd);
  } catch {
    /* best effort */
  } finally {
    closeQuietly(fd);
  }
}

/** The folder opened for its fsync; undefined when it cannot be (best effort, as the fsync). */
function openDir(dir: string): number | undefined {
  try {
    return openSync(dir, fsc.O_RDONLY | (fsc.O_DIRECTORY ?? 0)); // a folder, or ENOTDIR at once (never a FIFO's blocking open)
  } catch {
    return undefined;
  }
}

function closeQuietly(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    /* closed */
  }
}

/**
 * Refuses (linkRefusal) when a folder between `root` and `file` is a symbolic link: a write
 * there would land wherever the link points. The walk ends at the first folder not made yet.
 */
export function assertNoLinkBetween(root: string, file: string): void {
  const rel = path.relative(root, path.dirname(file));
  if (!rel || rel.startsWith('..') || path.isAbsolute(rel)) return;
  let current = root;
  for (const part of rel.split(path.sep)) {
    current = path.join(current, part);
    const st = lstatSync(current, { throwIfNoEntry: false });
    if (!st) return;
    if (st.isSymbolicLink()) throw linkRefusal(current);
  }
}

/**
 * How durable a replace is. `durable: false` is for bookkeeping whose loss in a power cut costs
 * nothing a user cares about (a hook's last firing, its state, the render cache, hot state: see
 * docs/guarantees.md): still atomic (readers see the old bytes or the new), but not fsynced, so
 * that a hook on every prompt and tool call does not wait on the disk for it.
 */
export interface WriteOptions {
  durable?: boolean;
  /** The file's folder is the user's, not wmem's (an agent's settings, a repository's): a link there is followed (ensureDir). */
  userFolder?: boolean;
  /**
   * The folder's fsync waited on in the thread pool, for a caller that overlaps the write with
   * other work (the compact return's journal, beside the archive's build). Otherwise it is
   * synchronous, as the file's own fsync is: nothing else would run meanwhile (fsyncDirSync).
   */
  overlap?: boolean;
}

/** Replaces `file` atomically: readers see the old bytes or the new, never a torn file. Never writes through a link (the file's, or its folder's unless `userFolder`). */
export async function atomicWrite(file: string, data: string | Uint8Array, options: WriteOptions = {}): Promise<void> {
  // A view, not a copy: an index written here runs to megabytes.
  const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  await atomicWriteWith(file, (fd) => writeAllSync(fd, bytes), options);
}

/** Writes all of `bytes` to `fd` (writeSync may write fewer than asked). */
export function writeAllSync(fd: number, bytes: Uint8Array): void {
  for (let at = 0; at < bytes.byteLength; ) at += writeSync(fd, bytes, at, bytes.byteLength - at);
}

/** A private temp name beside `file` in the shape sweeps recognise (`.<name>.<random>.<pid>.tmp`, store/temp-names.ts). */
export function tempBeside(file: string): string {
  return joinName(path.dirname(file), `.${path.basename(file)}.${randomHex(12)}.${process.pid}.tmp`);
}

/**
 * atomicWrite for bytes written where they belong (`fill` writes to the open temp file with
 * positional writes): a large derived file is never whole in memory. Never writes through a link.
 * Synchronous inside: one process, nothing to overlap, and no promise-based fs to load.
 */
export async function atomicWriteWith(file: string, fill: (fd: number) => void, options: WriteOptions = {}): Promise<void> {
  const durable = options.durable ?? true;
  await ensureDir(path.dirname(file), !options.userFolder);
  try {
    if (lstatSync(file).isSymbolicLink()) throw linkRefusal(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const temp = tempBeside(file);
  let fd: number | undefined;
  try {
    fd = openSync(temp, 'wx', FILE_MODE);
    fill(fd);
    if (durable) fsyncSync(fd);
    closeSync(fd);
    fd = undefined;
    // Checked after the temp's fsync, right before the commit: a sync fsync on a busy disk can
    // outlast the lock's stale time (no heartbeat runs inside it, and a brief hold has none), and
    // a process that took the lock over meanwhile must not see its write replaced.
    assertLocksHeld();
    renameSync(temp, file);
  } catch (err) {
    if (fd !== undefined) closeSync(fd);
    try {
      unlinkSync(temp);
    } catch {
      /* never made, or gone */
    }
    throw fsError(err, 'write', file);
  }
  if (durable && options.overlap) await fsyncDir(path.dirname(file));
  else if (durable) fsyncDirSync(path.dirname(file));
}

/**
 * Creates `file` with `data` only if it does not exist yet, atomically (write a temp file, then
 * link it into place, which fails if the name is taken). Returns false when it already existed.
 */
export async function createExclusive(file: string, data: string, options: Pick<WriteOptions, 'userFolder'> = {}): Promise<boolean> {
  // Checked first so that an existing file is not even attempted (a read-only home still works).
  if (await exists(file)) return false;
  await ensureDir(path.dirname(file), !options.userFolder);
  // Hidden, and ending in the pid: the shape that temp-names.ts recognises, so sweeps remove it.
  const temp = path.join(path.dirname(file), `.${path.basename(file)}.${Date.now()}.${process.pid}.tmp`);
  try {
    const handle = await fs.open(temp, 'wx', FILE_MODE);
    try {
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
    try {
      await fs.link(temp, file);
      await fsyncDir(path.dirname(file));
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw err;
    }
  } catch (err) {
    throw fsError(err, 'create', file);
  } finally {
    await fs.unlink(temp).catch(() => {});
  }
}

/**
 * Appends `text` (or raw bytes, written as they are) in one write() on an O_APPEND descriptor,
 * then fsyncs: concurrent appends never interleave. Never follows a symbolic link. With
 * `onNewLine`, a file whose last line has no newline (a hand edit) gets one first, so the text
 * starts a line of its own. `sync: false` leaves the fsync to the caller, who makes it before
 * anything durable counts on these bytes (a compaction's mirror: its archive's fsync overlaps it).
 */
export async function appendDurably(file: string, text: string | Buffer, options: { onNewLine?: boolean; what?: string; sync?: boolean } = {}): Promise<void> {
  await ensureDir(path.dirname(file), true);
  let handle: FdHandle | undefined;
  let before: number | undefined;
  try {
    // Non-blocking: opening a planted FIFO to write would wait for a reader for ever (ENXIO instead).
    handle = await openFd(file, fsc.O_WRONLY | fsc.O_APPEND | fsc.O_CREAT | fsc.O_NOFOLLOW | fsc.O_NONBLOCK, FILE_MODE);
    const st = await handle.stat();
    if (!st.isFile()) throw notRegular(file, st);
    before = st.size;
    let prefix = '';
    if (options.onNewLine && before > 0) {
      const last = Buffer.alloc(1);
      const reader = await openFd(file, fsc.O_RDONLY | fsc.O_NOFOLLOW);
      try {
        await reader.read(last, 0, 1, before - 1);
      } finally {
        await reader.close();
      }
      if (last[0] !== 0x0a) prefix = '\n';
    }
    const bytes = typeof text === 'string' ? Buffer.from(prefix + text, 'utf8') : prefix ? Buffer.concat([Buffer.from(prefix), text]) : text;
    const { bytesWritten } = await handle.write(bytes, 0, bytes.length);
    if (bytesWritten !== bytes.length) throw Object.assign(new Error(`short write (${bytesWritten} of ${bytes.length} bytes)`), { code: 'ENOSPC' });
    if (options.sync !== false) await handle.sync();
  } catch (err) {
    // A write cut short (a full disk fails part-way, or only at the fsync) leaves no partial line:
    // the file goes back to its old length, so a later reader never takes half a line for a note.
    if (handle && before !== undefined) await handle.truncate(before).catch(() => {});
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') throw linkRefusal(file);
    if (code === 'ENXIO') throw fsError(Object.assign(err as Error, { code: 'ENOTREG' }), 'append to', file); // a FIFO no one reads
    if (code === 'ENOSPC' || code === 'EDQUOT') throw ioError(`disk full: ${options.what ?? 'the text'} not saved (${file} is as it was)`, err, 'free some space and run the command again');
    throw fsError(err, 'append to', file);
  } finally {
    await handle?.close().catch(() => {});
  }
}

export interface LockOptions {
  /** How long a lock may go without a heartbeat before it counts as left by a dead process. */
  staleMs?: number;
  /** How long to keep retrying before giving up. */
  waitMs?: number;
  /** Runs `fn` again (this many times at most) when it lost the lock before a commit. */
  retryOnLostLock?: number;
  /** Told of each such retry. */
  warn?: (message: string) => void;
  /**
   * `fn` is synchronous calls between resolved awaits (a read, a change, atomicWrite): it is over
   * before the event loop turns, so the lock arms no heartbeat nor exit or signal listeners (lock.ts).
   */
  brief?: boolean;
}

/** A lock this process holds: how to tell, right before a commit, that it still does. */
interface Hold {
  dir: string;
  lockfilePath: string;
  /** Written beside the lock folder; a process that took the lock over writes its own. */
  token: string | undefined;
  /** The lock folder's identity: a takeover removes it and makes another. */
  ino: number;
  /**
   * A brief hold's folder mtime as it was made (no heartbeat changes it): a taker's folder, made
   * once this one was stale, has a later one even where the file system gave it the same inode.
   */
  mtimeMs?: number;
  compromised?: Error;
}

// The locks this process holds, checked by every commit made under them (atomicWrite, the
// compaction's swap) without each caller passing them down. A one-shot command keeps one list for
// the process: a commit is refused when any lock the process holds was lost, which for nested
// locks is exactly the task's own, and for locks held side by side only refuses more. The MCP
// server, which serves calls side by side for long, keeps a list per task (trackLocksPerTask):
// AsyncLocalStorage, which turns on Node 20's async hooks for every promise after the first lock
// (5-8 % of a hook's profile), so the one-shot commands do without it.
let perTask: AsyncLocalStorage<Hold[]> | undefined;
const processHolds = new Set<Hold>();

/** For a long-lived process serving calls side by side: each call checks only its own locks. */
export function trackLocksPerTask(): void {
  perTask ??= new AsyncLocalStorage<Hold[]>();
}

function heldLocks(): Iterable<Hold> {
  return perTask ? (perTask.getStore() ?? []) : processHolds;
}

async function runHolding<T>(hold: Hold, fn: () => Promise<T>): Promise<T> {
  if (perTask) return perTask.run([...(perTask.getStore() ?? []), hold], fn);
  processHolds.add(hold);
  try {
    return await fn();
  } finally {
    processHolds.delete(hold);
  }
}

/** Random hex digits for names and tokens that must not collide (not secrets: no crypto needed, and loading node:crypto costs a hook ~10 ms). */
function randomHex(digits: number): string {
  let out = '';
  while (out.length < digits) out += Math.floor(Math.random() * 0x100000000).toString(16).padStart(8, '0');
  return out.slice(0, digits);
}

function lockPathOf(dir: string): string {
  return joinName(dir, '.lock');
}

function ownerFile(lockfilePath: string): string {
  return `${lockfilePath}.owner`;
}

const LOST_LOCK = Symbol.for('wmem.lostLock');

function lostLock(hold: Hold, why: string): Error {
  const err = ioError(
    `lost the lock on ${hold.dir} (${why}): another wmem process took it over while this one was held up; nothing was written`,
    hold.compromised,
    'run the command again',
  );
  return Object.assign(err, { [LOST_LOCK]: true });
}

/** Whether `err` is assertLocksHeld's refusal to commit after the lock was taken over. */
export function isLostLock(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as Record<symbol, unknown>)[LOST_LOCK] === true;
}

/**
 * Throws unless every lock the running task holds is still its own. Called right before each
 * commit: a process that was held up past the lock's stale time (a long computation, a stopped
 * process) may have had its lock taken over, and must not then overwrite what the new holder did.
 */
export function assertLocksHeld(): void {
  for (const hold of heldLocks()) {
    if (hold.compromised) throw lostLock(hold, hold.compromised.message);
    let token: string | undefined;
    let folder: { ino: number; mtimeMs: number } | undefined;
    try {
      token = hold.token === undefined ? undefined : readRegularSync(ownerFile(hold.lockfilePath), 'utf8');
      folder = lstatSync(hold.lockfilePath);
    } catch {
      /* gone: lost */
    }
    const same = folder !== undefined && folder.ino === hold.ino && (hold.mtimeMs === undefined || folder.mtimeMs === hold.mtimeMs);
    if (token !== hold.token || !same) throw lostLock(hold, 'its lock folder is no longer the one it made');
  }
}

/**
 * Runs `fn` while holding the lock on `dir` (a folder that exists). The lock is a directory
 * `<dir>/.lock` refreshed every second; one left by a killed process is taken over once stale.
 * Every commit `fn` makes through atomicWrite (and the compaction's swaps) first checks that the
 * lock is still this process's (assertLocksHeld).
 */
export async function withLock<T>(dir: string, fn: () => Promise<T>, options: LockOptions = {}): Promise<T> {
  for (let retries = options.retryOnLostLock ?? 0; ; retries--) {
    try {
      return await withLockOnce(dir, fn, options);
    } catch (err) {
      // A holder that lost its lock committed nothing since (assertLocksHeld): run again afresh.
      if (retries <= 0 || !isLostLock(err)) throw err;
      options.warn?.(`${(err as Error).message.replace(/; nothing was written$/, '')}; trying again`);
    }
  }
}

async function withLockOnce<T>(dir: string, fn: () => Promise<T>, options: LockOptions): Promise<T> {
  const staleMs = options.staleMs ?? 5_000;
  const waitMs = options.waitMs ?? 60_000;
  const lockfilePath = lockPathOf(dir);
  const deadline = Date.now() + waitMs;
  const token = `${process.pid}-${randomHex(16)}`;
  const hold: Hold = { dir, lockfilePath, token, ino: -1 };
  const lockOptions = { staleMs, updateMs: Math.min(1_000, staleMs / 2), brief: options.brief, mode: DIR_MODE, onCompromised: (err: Error) => void (hold.compromised = err) };
  let taken: TakenLock;
  for (let attempt = 0; ; attempt++) {
    try {
      taken = await tryLockDir(lockfilePath, lockOptions);
      break;
    } catch (err) {
      if (!(err instanceof LockedError)) throw fsError(err, 'lock', dir);
      if (Date.now() >= deadline) throw ioError(`${dir} is locked by another wmem process (${lockfilePath})`, err, 'wait for it to finish and run the command again');
      // Short waits first (a hook holds the lock for milliseconds), then every 100 ms.
      await new Promise((resolve) => setTimeout(resolve, Math.min(100, 5 * 1.2 ** attempt)));
    }
  }
  try {
    hold.ino = taken.ino;
    if (options.brief) {
      // No owner token: the folder's inode and its mtime as made tell a takeover (no heartbeat
      // moves it), and a hook spares the token's create, two reads and its unlink (file system
      // changes wait on the journal: bench/README.md, tool18, cmp19). Nothing decides by a brief
      // hold's token: lockHeldByLiveProcess, which does not see one, is only the search's hint.
      hold.token = undefined;
      hold.mtimeMs = taken.mtimeMs;
      // A holder whose stale folder this took over may still be running, and it tells a takeover by
      // its token (its inode check alone is fooled where the file system gives the new folder the
      // same inode, as ext4 does): its token goes, as a taker's own token would have replaced it.
      if (taken.tookOver) removeStaleToken(ownerFile(lockfilePath));
    } else {
      // The token is a plain write: it is only ever compared, and a torn one reads as "lost". On a
      // full disk it may not fit: the lock folder's identity alone then tells a takeover.
      hold.token = writeToken(ownerFile(lockfilePath), token);
    }
    // Every commit inside checked the lock first: one lost after the last of them changes nothing
    // that was committed, so the result stands (the exit code says the work was done).
    return await runHolding(hold, fn);
  } finally {
    await removeOwnToken(hold);
    await taken.release().catch(() => {});
  }
}

function writeToken(file: string, token: string): string | undefined {
  try {
    // Non-blocking: a FIFO planted at the owner's name would wait for a reader for ever (ENXIO now).
    const fd = openSync(file, fsc.O_WRONLY | fsc.O_CREAT | fsc.O_TRUNC | fsc.O_NONBLOCK, FILE_MODE);
    try {
      writeSync(fd, token);
    } finally {
      closeSync(fd);
    }
    return token;
  } catch {
    return undefined;
  }
}

function removeStaleToken(file: string): void {
  try {
    unlinkSync(file);
  } catch {
    /* none: its holder wrote none, or it is gone */
  }
}

async function removeOwnToken(hold: Hold): Promise<void> {
  if (hold.token === undefined) return;
  try {
    // unlinkSync, not rmSync: the first rmSync of a process loads Node's rimraf (~1 ms of CPU, on every locked hook too).
    if (readRegularSync(ownerFile(hold.lockfilePath), 'utf8') === hold.token) unlinkSync(ownerFile(hold.lockfilePath));
  } catch {
    /* another holder's now, or gone */
  }
}

/** The real path of `target`, through the longest part of it that exists (the rest appended). */
function realpathOfPrefix(target: string): string {
  const missing: string[] = [];
  let current = path.resolve(target);
  for (;;) {
    try {
      return path.join(realpathSync(current), ...missing.reverse());
    } catch {
      const parent = path.dirname(current);
      if (parent === current) return path.join(current, ...missing.reverse());
      missing.push(path.basename(current));
      current = parent;
    }
  }
}

/**
 * Whether `target`, links followed, stays inside `root`: the one rule for every path wmem reads,
 * lists, writes or deletes on behalf of someone else (a folder under the home that is a link to
 * elsewhere, a link planted in detail/).
 */
export function staysInside(root: string, target: string): boolean {
  const base = realpathOfPrefix(root);
  const real = realpathOfPrefix(target);
  return real === base || real.startsWith(base.endsWith(path.sep) ? base : base + path.sep);
}

/**
 * The names in `dir`, sorted, each with whether it is a plain file in a folder that stays inside
 * `root`: such a file needs no further check (no link to follow); anything else (a link, a folder
 * that leads out) is checked on its own with staysInside. One directory read and one path
 * resolution instead of two resolutions per file (a JavaScript walk, one lstat per part of each
 * path: SessionEnd's consolidation check paid ~10 per detail file).
 */
export function listInside(root: string, dir: string): { name: string; plain: boolean }[] {
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  const inside = staysInside(root, dir);
  return entries.map((e) => ({ name: e.name, plain: inside && e.isFile() })).sort((x, y) => (x.name < y.name ? -1 : x.name > y.name ? 1 : 0));
}

/** Throws a clear refusal naming `target` when it leads out of `root`. */
export function assertStaysInside(root: string, target: string, what: string): void {
  if (!staysInside(root, target)) throw usageError(`${what} ${target} leads outside ${root} (through a symbolic link); wmem does not follow links out of its folders`, 'replace the link with a real folder or file');
}

/**
 * Resolves `relative` inside `root` for names that come from outside (users, agents, hooks):
 * no absolute paths, no `..`, and no symbolic link on the way (so nothing can point out).
 */
export async function resolveInside(root: string, relative: string, what = 'path'): Promise<string> {
  // Control characters (a newline, NUL) have no place in a name wmem makes or reads.
  if (!relative || /[\u0000-\u001f\u007f]/.test(relative)) throw usageError(`invalid ${what}: ${JSON.stringify(relative)}`, 'a name without control characters such as newlines');
  if (path.isAbsolute(relative) || /^[A-Za-z]:[\\/]/.test(relative)) {
    throw usageError(`${what} ${relative} is absolute: give a path inside ${root}`);
  }
  const parts = relative.split(/[\\/]+/).filter((p) => p !== '' && p !== '.');
  if (parts.some((p) => p === '..')) throw usageError(`${what} ${relative} climbs out with '..': give a path inside ${root}`);
  let current = root;
  for (const part of parts) {
    current = path.join(current, part);
    try {
      const stat = await fs.lstat(current);
      if (stat.isSymbolicLink()) throw usageError(`${what} ${relative} goes through a symbolic link (${current}); wmem does not follow links out of its folders`);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') continue;
      if (code === 'ENAMETOOLONG') throw usageError(`${what} is too long for the file system (${relative.length} characters)`, 'give a shorter name');
      throw err;
    }
  }
  return current;
}

/**
 * A regular file's text, never through a symbolic link, or undefined (missing, a link, not a
 * regular file, larger than `max` unless `tail`: then its last `max` bytes from a line start).
 */
export function readCapped(file: string, max: number, tail = false): string | undefined {
  let fd: number;
  try {
    fd = openSync(file, fsc.O_RDONLY | fsc.O_NOFOLLOW | fsc.O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile() || (st.size > max && !tail)) return undefined;
    const length = Math.min(st.size, max);
    const buffer = Buffer.alloc(length);
    const read = readSync(fd, buffer, 0, length, st.size - length);
    const text = buffer.subarray(0, read).toString('utf8');
    return st.size > length ? text.slice(text.indexOf('\n') + 1) : text;
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}
