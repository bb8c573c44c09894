// `wmem restore`: puts the lines a compaction archived back where they came from. The marker
// line that leads messages.jsonl says which bytes to expect (the archive's size and hash, and the
// replacement lines after the marker); the marker and its replacement are swapped for the
// archive's bytes in one atomic rename. Restoring several compactions newest first gives back
// the original file byte for byte.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { exists, resolveInside, withLock } from '../../store/fsx.js';
import type { Session } from '../../store/session.js';
import { appendToSection } from '../../store/detail.js';
import { fsError, refusedError, usageError } from '../../ui/errors.js';
import { MARKER_KEY, parseMarker, type CompactionMarker } from '../model/marker.js';
import { recoverCompaction } from './journal.js';
import { archiveDigest } from './archive-digests.js';
import { hashRange, readLines, readRange } from '../stream/read.js';
import { DurableFile } from '../stream/durable.js';
import { SETTLE_MS, replaceKeepingAppends } from '../stream/swap.js';
import { removeSessionLeftovers } from '../stream/leftovers.js';
import { carryAndCut, writtenAfterCut } from './quick-finish.js';

export interface RestoreResult {
  session: string;
  archive: string;
  /** null when nothing recorded it (a quick cut whose finishing did not run). */
  restoredLines: number | null;
  restoredBytes: number;
  /** Lines that stood in for the archived ones (rewritten tool outputs) and were dropped again. */
  replacedBytes: number;
  /** Bytes a program wrote into the archive after the compaction (a descriptor held on the old file), now at the end of messages.jsonl. */
  writtenAfterBytes?: number;
  recovered?: string;
}

/** Resolves ARCHIVE (a name in archive/, a path relative to working-memory/, or absolute inside it). */
export async function resolveArchiveArg(session: Session, arg: string): Promise<{ file: string; rel: string }> {
  const root = session.paths.workingMemory;
  let relative = arg;
  if (path.isAbsolute(arg)) {
    relative = path.relative(root, path.resolve(arg));
    if (!relative || relative.startsWith('..') || path.isAbsolute(relative)) throw usageError(`archive ${arg} is outside ${root}`, 'give a file in working-memory/archive/, e.g. archive/messages-<stamp>.jsonl');
  } else if (!/[\\/]/.test(arg) && !(await exists(path.join(root, arg)))) {
    // A bare name is an archive in archive/, unless --archive-to put it at the top of working-memory/.
    relative = `archive/${arg}`;
  }
  const file = await resolveInside(root, relative, 'archive');
  const st = await fs.stat(file).catch(() => undefined);
  if (!st) throw usageError(`archive ${arg} does not exist (${file})`, "run 'wmem show archive' to list the archives");
  if (!st.isFile()) throw usageError(`archive ${arg} is not a file (${file})`, "name one archive file; run 'wmem show archive' to list them");
  return { file, rel: path.relative(root, file).split(path.sep).join('/') };
}

async function findMarker(messages: string, archiveRel: string): Promise<{ marker: CompactionMarker; start: number; end: number } | undefined> {
  if (!(await exists(messages))) return undefined;
  const key = Buffer.from(MARKER_KEY);
  for await (const line of readLines(messages)) {
    if (!line.bytes.includes(key)) continue;
    const marker = parseMarker(line.bytes.toString('utf8'));
    if (marker?.archive === archiveRel) return { marker, start: line.offset, end: line.offset + line.bytes.length };
  }
  return undefined;
}

/** Which other archive holds the marker of `archiveRel` (it was compacted again later). */
async function archiveHoldingMarker(session: Session, archiveRel: string): Promise<string | undefined> {
  const needle = Buffer.from(JSON.stringify(archiveRel));
  const names = await fs.readdir(session.paths.archiveDir).catch(() => [] as string[]);
  for (const name of names.filter((n) => !n.startsWith('.')).sort().reverse()) {
    const file = path.join(session.paths.archiveDir, name);
    for await (const line of readLines(file)) {
      if (line.bytes.includes(needle) && parseMarker(line.bytes.toString('utf8'))?.archive === archiveRel) return `archive/${name}`;
    }
  }
  return undefined;
}

/** The archive to restore before `archiveRel`: the newest one whose marker chain leads to it and is still live. */
async function liveHolder(session: Session, archiveRel: string): Promise<string | undefined> {
  let current = archiveRel;
  for (let depth = 0; depth < 50; depth++) {
    const holder = await archiveHoldingMarker(session, current);
    if (!holder) return undefined;
    if (await findMarker(session.paths.messages, holder)) return holder;
    current = holder;
  }
  return undefined;
}

export async function restoreArchive(session: Session, archiveArg: string, env: { now(): Date; warn(msg: string): void }): Promise<RestoreResult> {
  const { file: archiveFile, rel: archiveRel } = await resolveArchiveArg(session, archiveArg);
  return withLock(session.paths.dir, async () => {
    const recovered = await recoverCompaction(session, env);
    await removeSessionLeftovers(session);
    const messages = session.paths.messages;
    if ((await fs.stat(messages).catch(() => undefined))?.isFile() === false) throw usageError(`${messages} is not a file`, 'messages.jsonl must be a file of JSON lines; move whatever is there aside');
    const found = await findMarker(messages, archiveRel);
    if (!found) {
      const holder = await liveHolder(session, archiveRel);
      if (holder) throw refusedError(`${archiveRel} was compacted again later: its marker is in ${holder}`, `restore ${holder} first (newest first), then ${archiveRel}`);
      throw refusedError(`messages.jsonl has no marker for ${archiveRel}: it was already restored, or it is not a compaction archive`, 'nothing was changed');
    }
    const { marker, start, end } = found;
    // Checked again under the lock: another run may have removed it since it was looked up.
    const archiveSize = (
      await fs.stat(archiveFile).catch((err) => {
        throw fsError(err, 'read', archiveFile);
      })
    ).size;
    // A quick cut's marker has no digest: its finishing recorded one (the recovery above ran it).
    const recorded = marker.archiveSha256 ? undefined : await archiveDigest(session, archiveRel);
    const expectedSha = marker.archiveSha256 || recorded?.sha256;
    const restoredLines = marker.archivedLines ?? recorded?.lines;
    if (!expectedSha) env.warn(`wmem: no digest is recorded for ${archiveRel} (its finishing did not record one); only its size was checked`);
    // A quick cut's archive is the old messages.jsonl: a program that kept that file open may have
    // written on into it after the finishing cut it (recorded with its digest: an archive the
    // finishing left whole still holds the kept lines past its archived bytes). Those later lines
    // are nowhere else: they go at the end of the restored messages.jsonl, in the same rename.
    const writtenAfter = archiveSize > marker.archivedBytes && marker.archiveSha256 === '' && recorded?.cut === true && (await hashRange(archiveFile, 0, marker.archivedBytes)) === expectedSha;
    const archivedSize = writtenAfter ? marker.archivedBytes : archiveSize;
    if (archivedSize !== marker.archivedBytes || (!writtenAfter && expectedSha && (await hashRange(archiveFile, 0, archiveSize)) !== expectedSha)) {
      throw refusedError(`${archiveRel} is not the archive its marker describes (it changed since the compaction)`, 'nothing was changed; put the original archive back');
    }
    const size = (await fs.stat(messages)).size;
    const replacedEnd = end + marker.replacedBytes;
    if (replacedEnd > size || (marker.replacedBytes && (await hashRange(messages, end, replacedEnd)) !== marker.replacedSha256)) {
      throw refusedError(`the lines that replaced ${archiveRel} in messages.jsonl have changed since the compaction`, 'nothing was changed; restore newer archives first');
    }

    const late = writtenAfter ? await writtenAfterCut(archiveFile, marker.archivedBytes) : undefined;
    const temp = path.join(path.dirname(messages), `.messages.jsonl.restore.${process.pid}.tmp`);
    const next = new DurableFile(temp);
    const old = await fs.open(messages, 'r');
    try {
      await next.open();
      await next.copyRange(messages, 0, start);
      await next.copyRange(archiveFile, 0, archivedSize);
      const copiedTo = (await old.stat()).size;
      // An archive of a whole file may end without a newline; keep later lines separate.
      if (copiedTo > replacedEnd && archivedSize > 0 && (await byteBefore(archiveFile, archivedSize)) !== NEWLINE) await next.write('\n');
      await next.copyRange(messages, replacedEnd, copiedTo);
      if (late) {
        const [file, end] = copiedTo > replacedEnd ? [messages, copiedTo] : [archiveFile, archivedSize];
        if (end > 0 && (await byteBefore(file, end)) !== NEWLINE) await next.write('\n');
        await next.copyRange(archiveFile, late.from, late.to);
        if ((await byteBefore(archiveFile, late.to)) !== NEWLINE) await next.write('\n');
      }
      await next.close();
      await replaceKeepingAppends(temp, messages, old, copiedTo, () => {}, { settleMs: SETTLE_MS });
    } catch (err) {
      await next.discard();
      throw err;
    } finally {
      await old.close().catch(() => {});
    }
    if (late) await cutAfterRestore(archiveFile, marker.archivedBytes, messages, late, archiveRel, env);
    try {
      await appendToSection(session, 'recent', [`Restored ${restoredLines ?? 'the'} lines from ${archiveRel} into messages.jsonl`], { locked: true });
    } catch (err) {
      env.warn(`wmem: restored, but overview.md was not updated: ${(err as Error).message}`);
    }
    return { session: session.id, archive: archiveRel, restoredLines: restoredLines ?? null, restoredBytes: archivedSize, replacedBytes: marker.replacedBytes, ...(late ? { writtenAfterBytes: late.to - late.from } : {}), ...(recovered ? { recovered } : {}) };
  });
}

const NEWLINE = 10;

/** The byte just before `end` in a file (undefined at its start). */
async function byteBefore(file: string, end: number): Promise<number | undefined> {
  return end > 0 ? (await readRange(file, end - 1, end))[0] : undefined;
}

/**
 * Once the restore is in (the late lines with it), cuts the quick archive back to its archived
 * bytes, carrying first what reached it since they were copied. Says what was carried. A failure
 * (or a kill) here leaves those lines in the archive past its archived bytes as well: doubled
 * there, never lost.
 */
async function cutAfterRestore(archive: string, archivedBytes: number, messages: string, late: { from: number; to: number }, archiveRel: string, env: { warn(msg: string): void }): Promise<void> {
  env.warn(`wmem: ${late.to - late.from} bytes a program wrote into ${archiveRel} after the compaction (through a descriptor it kept open on the old messages.jsonl) are at the end of messages.jsonl; if it is still running, make it reopen messages.jsonl for each write`);
  try {
    await carryAndCut(archive, archivedBytes, messages, late.to);
  } catch (err) {
    env.warn(`wmem: restored, but ${archiveRel} was not cut back to its first ${archivedBytes} bytes (what lies past them is also at the end of messages.jsonl): ${(err as Error).message}`);
  }
}
