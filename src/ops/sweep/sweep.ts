// Storage governance over every project under the home (docs/operations.md): caches kept bounded, and the
// state deleted sessions left behind removed (a `current` naming a session that is gone, stale
// locks, old temp files, state/ folders without their session, an interrupted `wmem rm`).
// overview.md, scratch.md, detail/, archive/ and messages.jsonl are never touched: the walk does
// not enter working-memory/ beyond its top level, and removes only the names listed here.
// Synchronous file calls on purpose: a sweep of 100,000 files is bound by system calls, and the
// thread pool's round trips would only add to them.
import { lstatSync, readdirSync, rmSync, unlinkSync, type Dirent } from 'node:fs';
import { staysInside } from '../../store/fsx.js';
import path from 'node:path';
import { listProjectDirs, listProjectLinks } from '../../store/project.js';
import { isTempName } from '../../store/temp-names.js';
import { isTrashName, planCache, STALE_LOCK_MS, STALE_TEMP_MS, type CacheEntry, type SweepLimits } from './plan.js';
import { POINTER_FLAGS, readRegularSync } from '../../store/regular-file.js';

/** What the report says of a link sweep will not go through (a project folder, a session pointer). */
const LINK_SKIPPED = 'is a symbolic link; skipped (nothing deleted there): remove the link';

export interface SweepReport {
  filesScanned: number;
  filesDeleted: number;
  bytesReclaimed: number;
  errors: { path: string; message: string }[];
  /** What was (or, in a dry run, would be) removed, beside the cache files. */
  removed: string[];
  projects: number;
  dryRun: boolean;
}

function list(dir: string): Dirent[] {
  try {
    return readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
}

function sizeOf(target: string): { files: number; bytes: number } {
  const stat = lstatSync(target, { throwIfNoEntry: false });
  if (!stat) return { files: 0, bytes: 0 };
  if (!stat.isDirectory()) return { files: 1, bytes: stat.size };
  let files = 0;
  let bytes = 0;
  for (const entry of list(target)) {
    const inner = sizeOf(path.join(target, entry.name));
    files += inner.files;
    bytes += inner.bytes;
  }
  return { files, bytes };
}

class Sweeper {
  readonly report: SweepReport;

  constructor(
    private readonly limits: SweepLimits,
    dryRun: boolean,
  ) {
    this.report = { filesScanned: 0, filesDeleted: 0, bytesReclaimed: 0, errors: [], removed: [], projects: 0, dryRun };
  }

  private deleteFile(file: string, size: number): void {
    if (this.report.dryRun) {
      this.report.filesDeleted++;
      this.report.bytesReclaimed += size;
      return;
    }
    try {
      unlinkSync(file);
      this.report.filesDeleted++;
      this.report.bytesReclaimed += size;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
      this.report.errors.push({ path: file, message: (err as Error).message });
    }
  }

  /** Removes a piece of left-over state (a file or a folder). */
  private removeState(target: string, why: string): void {
    const { files, bytes } = sizeOf(target);
    this.report.removed.push(`${target} (${why})`);
    if (this.report.dryRun) {
      this.report.filesDeleted += files;
      this.report.bytesReclaimed += bytes;
      return;
    }
    try {
      rmSync(target, { recursive: true, force: true });
      this.report.filesDeleted += files;
      this.report.bytesReclaimed += bytes;
    } catch (err) {
      this.report.errors.push({ path: target, message: (err as Error).message });
    }
  }

  sweepCache(dir: string, root: string): void {
    // A cache/ or tool-outputs/ that is a link to elsewhere is not the home's to clean.
    if (!staysInside(root, dir)) {
      this.report.errors.push({ path: dir, message: `leads outside ${root} through a symbolic link; skipped (nothing deleted there)` });
      return;
    }
    const entries: CacheEntry[] = [];
    for (const entry of list(dir)) {
      if (!entry.isFile()) continue;
      const stat = lstatSync(path.join(dir, entry.name), { throwIfNoEntry: false });
      if (!stat) continue;
      entries.push({ name: entry.name, size: stat.size, mtimeMs: stat.mtimeMs });
    }
    this.report.filesScanned += entries.length;
    for (const doomed of planCache(entries, this.limits)) this.deleteFile(path.join(dir, doomed.name), doomed.size);
  }

  /** Stale `.lock` folders and old temp files directly in `dir` (`inState`: a session's state/). */
  private sweepLeftovers(dir: string, inState = false): void {
    for (const entry of list(dir)) {
      const full = path.join(dir, entry.name);
      if (entry.name === '.lock' || isTempName(entry.name, inState)) {
        this.report.filesScanned++;
        const stat = lstatSync(full, { throwIfNoEntry: false });
        if (!stat) continue;
        const age = this.limits.nowMs - stat.mtimeMs;
        if (entry.name === '.lock' && age > STALE_LOCK_MS) this.removeState(full, 'stale lock');
        else if (entry.name !== '.lock' && entry.isFile() && age > STALE_TEMP_MS) this.removeState(full, 'left-over temp file');
      }
    }
  }

  sweepProject(projectDir: string): void {
    this.report.projects++;
    this.sweepCache(path.join(projectDir, 'cache', 'tool-outputs'), projectDir);
    this.sweepLeftovers(projectDir);
    const sessions = new Set<string>();
    for (const entry of list(projectDir)) {
      if (!entry.isDirectory() || entry.name === 'cache' || entry.name === '.lock') continue;
      const dir = path.join(projectDir, entry.name);
      if (isTrashName(entry.name)) {
        this.report.filesScanned++;
        this.removeState(dir, "a deleted session's folder ('wmem rm' was interrupted)");
        continue;
      }
      const has = new Set(list(dir).map((e) => e.name));
      if (has.has('working-memory')) {
        sessions.add(entry.name);
        this.sweepLeftovers(dir);
        this.sweepLeftovers(path.join(dir, 'state'), true);
        this.sweepLeftovers(path.join(dir, 'working-memory'));
        // A compaction or archive that failed (a full disk) and could not clean up leaves its temps here.
        for (const sub of ['detail', 'archive']) {
          const inner = path.join(dir, 'working-memory', sub);
          if (staysInside(dir, inner)) this.sweepLeftovers(inner); // never through a link that leads out
        }
        continue;
      }
      // No working memory: a session deleted by hand. Only what wmem keeps about it goes; a
      // folder with messages or meta (a half-done migration, a user's files) stays.
      if (has.has('state') && !has.has('messages.jsonl') && !has.has('meta.json')) {
        this.report.filesScanned++;
        const rest = [...has].filter((n) => n !== 'state');
        if (rest.every((n) => n === '.lock' || isTempName(n))) this.removeState(dir, 'folder of a deleted session, holding only its state');
        else this.removeState(path.join(dir, 'state'), 'state of a deleted session');
      }
    }
    const currentFile = path.join(projectDir, 'current');
    let current: string | undefined;
    try {
      // Never through a link: its target's first line would be echoed in the report (left15).
      current = readRegularSync(currentFile, 'utf8', Infinity, POINTER_FLAGS).split('\n')[0]?.trim();
    } catch (err) {
      // Every command refuses a linked pointer (store/session.ts): said here too, the link left as it is.
      if ((err as NodeJS.ErrnoException).code === 'ELOOP') this.report.errors.push({ path: currentFile, message: LINK_SKIPPED });
    }
    if (current !== undefined) {
      this.report.filesScanned++;
      if (!sessions.has(current)) this.removeState(currentFile, current ? `names session ${current}, which no longer exists` : 'empty');
    }
  }
}

export async function sweepHome(home: string, limits: SweepLimits, dryRun: boolean): Promise<SweepReport> {
  const sweeper = new Sweeper(limits, dryRun);
  for (const projectDir of await listProjectDirs(home)) sweeper.sweepProject(projectDir);
  // A project folder that is a link is refused by every command and hook (store/project.ts): said here too.
  for (const link of listProjectLinks(home)) sweeper.report.errors.push({ path: link, message: LINK_SKIPPED });
  return sweeper.report;
}
