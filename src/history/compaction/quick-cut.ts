// The quick way to compact a long history: a plain cut (target conversation, strategy archive)
// whose archived part is large. Nothing before the cut is copied or parsed before the commit.
// The archive is the old messages.jsonl itself: the same file, given its archive name by a hard
// link and cut to length by the finishing. The new messages.jsonl is the marker plus the kept
// turns only. Whether a line before the cut is linked to the kept part is answered from the raw
// bytes (id-scan.ts); when the bytes cannot say "no" for sure, the caller compacts the full way.
// What needs every archived message parsed (the readable transcript, the turn and message counts,
// the overview's index and recent lines) is finished afterwards from the archive, from the
// journal, by `wmem compact --finish` in the background or by the next run that takes the lock
// (journal.ts). A kill at any instant loses nothing.
//
// Protocol (under the session lock; A = the cut):
//   1. one read of [0, A) (grep's, up to its first match: normally the kept part's own ids just
//      past A): the id check, by grep -F in a child process on the other core (two greps side
//      by side, the ids' tails and the escapes, each through its own open file description:
//      grep-check.ts; the escapes' child then leaves the finishing run to start in the background
//      once this process has exited, and it takes the lock after this run), else in this thread.
//      Meanwhile (steps 1-4 run side by side, the writes and fsyncs in the thread pool) the old
//      file is fsynced (it becomes the archive; normally long on disk already). The archive's sha256 is taken by the finishing,
//      which reads it anyway, into state/archives.json (restore checks it).
//   2. the new messages.jsonl in a temp: marker (+ the repeated opening message of the turn the
//      cut falls inside, if it does) + the old file's [A, end); fsynced.
//   3. the journal (state/compaction.json) names the archive, the temp and what is left to do.
//   4. once the journal is on disk: link(messages.jsonl, archive name): one file, two names; the
//      archive folder fsynced. If the check of step 1 finds a possible link, steps 2-4 are undone
//      (nothing was renamed yet: the same state a kill before the commit leaves, which recovery
//      rolls back from the journal) and the caller compacts the full way.
//   5. COMMIT: rename(temp, messages.jsonl); lines appended to the old file meanwhile are carried
//      over. Before it the old file is whole under its own name; after it, under the archive's.
//   6. how far the carry-over went is noted in state/ (a hint, no fsync). The journal stays until
//      the finishing; the transcript's name holds a placeholder that says the transcript is being
//      written. The finishing waits until the old file has stopped growing (a write in flight
//      through it when the name moved lands a moment later), carries what reached it after the
//      carry-over, and only then cuts the archive to A and fsyncs it.
// Recovery: not committed (messages.jsonl is still the file the run started from) → the temp, the
// placeholder and the archive name are removed (the last only while it names that same file);
// committed → finishQuickCut (quick-finish.ts).
import { closeSync, fstatSync, linkSync, openSync, promises as fs, readSync, statSync } from 'node:fs';
import path from 'node:path';
import { createExclusive, ensureDir, fsyncDir } from '../../store/fsx.js';
import { fileStamp } from '../../store/paths.js';
import type { Session } from '../../store/session.js';
import { fsError, ioError } from '../../ui/errors.js';
import { IdScanner } from '../model/id-scan.js';
import { markerLine, openingNote, type CompactionMarker } from '../model/marker.js';
import type { CutPlan } from './plan.js';
import { fileIdentity, journalPath, readJournal, writeJournal, type Journal } from './journal.js';
import { noteCarried } from './quick-finish.js';
import { rel, transcriptPlaceholder, type Progress } from './pass.js';
import { readChunksInThread } from '../stream/read.js';
import { startGrepCheck, type GrepCheck, type ThenRun } from '../stream/grep-check.js';
import { DurableFile, freeName, tempFor } from '../stream/durable.js';
import { replaceKeepingAppends } from '../stream/swap.js';
import { nodeHash } from '../../memory/hash.js';

/** From this many archived bytes a plain cut goes the quick way (below, the full way costs little). */
export const QUICK_CUT_BYTES = 8 << 20;

export interface QuickCutContext {
  now: Date;
  archiveTo?: string;
  progress: Progress;
  /**
   * The finishing run (`wmem compact --finish`), to start in the link check's child once the
   * check is done and this process has exited, whatever its answer (it takes the lock after this
   * run and finishes what is left: this cut, or nothing after the full way); `finishStarted` is
   * told when it was.
   */
  finish?: ThenRun;
  finishStarted?: () => void;
  /** Check in this thread only (tests of the in-thread check). */
  inThread?: boolean;
}

export interface QuickCutDone {
  journal: Journal;
  archive: string;
  archiveRel: string;
  transcriptRel: string;
}

/**
 * Compacts the quick way, or returns undefined (nothing changed) when it cannot be sure that no
 * line before the cut is linked to the kept part, or the file system has no hard links: the
 * caller then compacts the full way. Call with the session lock held.
 */
export async function quickCut(session: Session, plan: CutPlan, ctx: QuickCutContext): Promise<QuickCutDone | undefined> {
  const scanner = IdScanner.for(plan.needles);
  if (!scanner) return undefined;
  const file = session.paths.messages;
  const cut = plan.cut;
  const old = await fs.open(file, 'r').catch((err) => {
    throw fsError(err, 'read', file);
  });
  const stamp = fileStamp(ctx.now);
  // Started first, on the other core: the check's answer is awaited only before the commit.
  const native = ctx.inThread ? undefined : startLinkCheck(old.fd, file, scanner, [tempFor(path.join(session.paths.stateDir, 'link-check'), stamp), tempFor(path.join(session.paths.stateDir, 'link-check-escapes'), stamp)], ctx.finish);
  if (native?.thenStarted) ctx.finishStarted?.();
  const messagesTemp = tempFor(file, stamp);
  let archiveLinked: string | undefined;
  let placeholder: string | undefined;
  let journalId: string | undefined;
  let committed = false;
  try {
    // Synchronous stats and link (microseconds each): on the way to the commit, each trip through
    // the thread pool is a wake-up of a thread and of the event loop (bench/README.md, compact9).
    const identity = fstatSync(old.fd);
    // Settles to its error, so that a return or throw before it is awaited leaves nothing unhandled.
    const synced = old.sync().then(
      () => undefined,
      (err: unknown) => err,
    );

    const archive = ctx.archiveTo ?? (await freeName(session.paths.archiveDir, `messages-${stamp}`, '.jsonl'));
    const archiveRel = rel(session, archive);
    const transcript = await freeName(session.paths.detailDir, `${stamp}-conversation`, '.md');
    const transcriptRel = rel(session, transcript);
    const opening = plan.opening;
    const marker: CompactionMarker = {
      version: 1,
      id: `${stamp}-${path.basename(archive)}`,
      archive: archiveRel,
      archivedBytes: cut,
      // Taken by the finishing (state/archives.json): the archive is the original file, not a copy.
      archiveSha256: '',
      replacedBytes: opening?.length ?? 0,
      replacedSha256: opening ? nodeHash('sha256').update(opening).digest('hex') : '',
      ...(opening ? { openingBytes: opening.length } : {}),
      details: [transcriptRel],
    };
    const next = await new DurableFile(messagesTemp).open();
    try {
      const copiedTo = fstatSync(old.fd).size;
      const journal: Journal = {
        version: 1,
        id: marker.id,
        pid: process.pid,
        startedAt: ctx.now.toISOString(),
        temps: [messagesTemp],
        finals: [archive, transcript],
        indexLines: [],
        recentLine: '',
        quick: { archive, archivedBytes: cut, copiedTo, transcript, created: ctx.now.toISOString(), ...(opening ? { headBytes: opening.length } : {}) },
        messagesFile: fileIdentity(identity),
      };
      // The journal, the new file and the transcript's placeholder (which holds its name until
      // the finishing replaces it) are written and fsynced side by side; all before the link.
      // They are written while the bytes before the cut are checked (the new file's writes and
      // fsyncs in the thread pool, the check in this thread); if the check finds a link, the
      // finally blocks remove them.
      const building = (async () => {
        await next.write(markerLine(plan.format ?? 'chat', marker, headerText(marker, plan, transcriptRel)));
        if (opening) await next.write(opening);
        await next.copyRange(file, cut, copiedTo);
        await next.close();
      })();
      journalId = journal.id;
      const reserving = createExclusive(transcript, transcriptPlaceholder({ session: session.id, created: ctx.now, archiveRel }));
      const journaled = writeJournal(session, journal);
      // The archive's name comes once the journal that names it is on disk (a run killed before
      // its commit is rolled back from the journal, that name included).
      // The name is taken for cleanup the moment it exists (a failed check after the link must not
      // leave it behind unjournaled).
      const linking = journaled.then(() =>
        linkArchive(file, archive, identity, () => {
          archiveLinked = archive;
        }),
      );
      const written = Promise.allSettled([building, journaled, reserving, linking]);
      let mayLink: boolean;
      try {
        mayLink = await mayLinkAcrossCut(native, scanner, old, file, cut, ctx.progress);
      } finally {
        // Nothing may still be writing when the finally blocks below clean up.
        const [, , reserved] = await written;
        if (reserved.status === 'fulfilled' && reserved.value) placeholder = transcript;
      }
      if (mayLink) {
        await synced;
        return undefined;
      }
      for (const outcome of await written) if (outcome.status === 'rejected') throw outcome.reason;
      // A name was taken meanwhile (or this file system has no hard links): the full way picks
      // names again, and copies.
      if (!placeholder || !archiveLinked) return undefined;
      const syncError = await synced;
      if (syncError) throw fsError(syncError, 'sync', file);
      const carriedTo = await replaceKeepingAppends(messagesTemp, file, old, copiedTo, () => {
        committed = true;
      });
      // The archive is cut to length by the finishing, once writes in flight through the old
      // file have landed (a cut now could come between such a write and its carrying over).
      await noteCarried(session, journal.id, carriedTo);
      return { journal, archive, archiveRel, transcriptRel };
    } finally {
      if (!committed) await next.discard();
    }
  } finally {
    await old.close().catch(() => {});
    if (!committed) {
      if (archiveLinked) {
        await fs.unlink(archiveLinked).catch(() => {});
        // Durable before the journal that names it goes: else a power cut could keep the name
        // and lose the journal (two folders, no order between them on every file system).
        await fsyncDir(path.dirname(archiveLinked));
      }
      if (placeholder) await fs.unlink(placeholder).catch(() => {});
      if (journalId) await removeOwnJournal(session, journalId);
    }
  }
}

/**
 * The link check by two greps side by side (IdScanner.fixedStringGroups), the second over the
 * file opened again (each grep reads through its own offset; the same file, checked by its
 * identity), or by one grep when it cannot be opened again.
 */
function startLinkCheck(fd: number, file: string, scanner: IdScanner, [answer, otherAnswer]: [string, string], then: ThenRun | undefined): GrepCheck | undefined {
  // Enough to rank the ids' bytes; counting more cost the return ~3 M instructions (V8 optimizing the loop).
  const sample = Buffer.alloc(16 << 10);
  let groups: string[][];
  try {
    groups = scanner.fixedStringGroups(sample.subarray(0, readSync(fd, sample, 0, sample.length, 0)));
  } catch {
    groups = [scanner.fixedStrings()];
  }
  const again = groups.length === 2 ? openAgain(fd, file) : undefined;
  if (again === undefined) return startGrepCheck(fd, groups.flat(), { answer, then });
  try {
    return startGrepCheck(fd, groups[0]!, { answer, then, others: { needles: groups[1]!, fd: again, answer: otherAnswer } });
  } finally {
    // The child has its own copy (or none was started).
    closeSync(again);
  }
}

/** `file` opened again when it is still the file open as `fd`, else undefined. */
function openAgain(fd: number, file: string): number | undefined {
  let again: number | undefined;
  try {
    again = openSync(file, 'r');
    const [a, b] = [fstatSync(fd), fstatSync(again)];
    if (a.ino === b.ino && a.dev === b.dev) return again;
  } catch {
    // below
  }
  if (again !== undefined) closeSync(again);
  return undefined;
}

/**
 * Gives the old file its archive name (a hard link) and makes that name durable; false when this
 * file system has no hard links or the name was taken meanwhile (the full way then copies).
 */
async function linkArchive(file: string, archive: string, identity: { ino: number; dev: number }, linked: () => void): Promise<boolean> {
  try {
    await ensureDir(path.dirname(archive), true);
    linkSync(file, archive);
    linked();
  } catch (err) {
    if (['EXDEV', 'EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'EMLINK', 'EEXIST'].includes((err as NodeJS.ErrnoException).code ?? '')) return false;
    throw fsError(err, 'create', archive);
  }
  const named = statSync(archive);
  if (named.ino !== identity.ino || named.dev !== identity.dev) {
    // Another file under the old name: this name is not the archive; the run stops.
    await fs.unlink(archive).catch(() => {});
    throw ioError(`${file} was replaced by another program during the compaction`, undefined, 'nothing was changed; run wmem compact again');
  }
  await fsyncDir(path.dirname(archive));
  return true;
}

/**
 * Removes the journal only while it is this run's: a run that stalled past its lock (a suspended
 * process) and was rolled back by the run that took the lock over must not remove that run's
 * journal, which its finishing still needs.
 */
async function removeOwnJournal(session: Session, id: string): Promise<void> {
  const current = await readJournal(session).catch(() => undefined);
  if (current?.id === id && current.pid === process.pid) await fs.unlink(journalPath(session)).catch(() => {});
}

/**
 * Whether a line before the cut may carry one of the kept part's link ids (the scanner's
 * conservative answer). Lines are not counted here: counting newlines costs more than the rest of
 * the scan; the finishing counts them while it reads the archive anyway.
 */
async function mayLinkAcrossCut(native: GrepCheck | undefined, scanner: IdScanner, old: fs.FileHandle, file: string, cut: number, progress: Progress): Promise<boolean> {
  const first = await native?.firstMatch;
  // grep read to its first match: one before the cut may link; one after it says "no" only if the
  // file still holds the whole range (it was not cut down meanwhile). The ids come from the kept
  // lines, so a grep that behaves always finds one: no match at all means it did not (another
  // grep's options, a file replaced), and the bytes are checked here instead.
  if (first !== undefined && first !== -1) return first < cut || fstatSync(old.fd).size < cut;
  let scanned = 0;
  for await (const chunk of readChunksInThread(old.fd, file, 0, cut)) {
    if (scanner.push(chunk)) return true;
    scanned += chunk.length;
    progress.tick(scanned, 'checking the cut');
  }
  // The file shrank under the check (another program): bytes not read cannot be ruled out.
  return scanned < cut;
}

function headerText(marker: CompactionMarker, plan: CutPlan, transcriptRel: string): string {
  const kept = plan.opening ? `the last ${plan.tailSteps} step${plan.tailSteps === 1 ? '' : 's'}` : `the last ${plan.tailTurns} turn${plan.tailTurns === 1 ? '' : 's'}`;
  return (
    `[wmem] Earlier history was compacted: everything before ${kept} (${(marker.archivedBytes / 1e6).toFixed(1)} MB) was moved byte for byte to working-memory/${marker.archive}; ` +
    `a readable transcript is in working-memory/${transcriptRel}.${plan.opening ? openingNote(plan.tailSteps) : ''} Undo with: wmem restore ${marker.archive}`
  );
}
