// Undoing a committed quick cut whose finishing found that a line before the cut may be linked to
// the kept part (link-check.ts): messages.jsonl gets the archive's bytes back in place of the
// marker, as `wmem restore` puts them back, and the archive's name and the transcript's go; the
// caller then compacts the full way, which moves the cut where no link crosses it. Lossless at
// every instant: until the swap the archive (cut to length, fsynced) and messages.jsonl hold every
// byte; the swap is one rename; the archive's name goes only after it, and a kill in between is
// told apart by the journal's note of the file swapped in (journal.ts).
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { fsyncDir } from '../../store/fsx.js';
import { fsError } from '../../ui/errors.js';
import { DurableFile, tempFor } from '../stream/durable.js';
import { SETTLE_MS, replaceKeepingAppends } from '../stream/swap.js';
import { firstLineEnd, type QuickPart } from './quick-finish.js';

/**
 * Puts a cut archive back into messages.jsonl: its bytes [start, replacedEnd) (a marker and the
 * bytes it stood in for) become the archive's, in one swap that keeps what is appended
 * meanwhile. `beforeSwap` is told the complete temp file just before it replaces messages.jsonl.
 */
export async function putBack(messages: string, archive: string, archiveSize: number, at: { start: number; replacedEnd: number }, beforeSwap: (temp: string) => Promise<void> = async () => {}): Promise<void> {
  const next = new DurableFile(tempFor(messages, 'restore'));
  const old = await fs.open(messages, 'r').catch((err) => {
    throw fsError(err, 'read', messages);
  });
  try {
    await next.open();
    await next.copyRange(messages, 0, at.start);
    await next.copyRange(archive, 0, archiveSize);
    const copiedTo = (await old.stat()).size;
    if (copiedTo > at.replacedEnd && archiveSize > 0 && !(await endsWithNewline(archive, archiveSize))) {
      // An archive of a whole file may end without a newline; keep later lines separate.
      await next.write('\n');
    }
    await next.copyRange(messages, at.replacedEnd, copiedTo);
    await next.close();
    await beforeSwap(next.temp);
    await replaceKeepingAppends(next.temp, messages, old, copiedTo, () => {}, { settleMs: SETTLE_MS });
  } catch (err) {
    await next.discard();
    throw err;
  } finally {
    await old.close().catch(() => {});
  }
}

async function endsWithNewline(file: string, size: number): Promise<boolean> {
  const last = Buffer.alloc(1);
  const handle = await fs.open(file, 'r');
  try {
    await handle.read(last, 0, 1, size - 1);
  } finally {
    await handle.close();
  }
  return last[0] === 10;
}

/**
 * Undoes a quick cut whose archive is cut to length and whose marker still leads messages.jsonl.
 * `swapping` is told the file about to replace messages.jsonl (the journal notes it); then the
 * archive's and the transcript's names are removed (dropUndone).
 */
export async function undoQuickCut(messages: string, quick: QuickPart, swapping: (temp: string) => Promise<void>): Promise<void> {
  const replacedEnd = (await firstLineEnd(messages)) + (quick.headBytes ?? 0);
  await putBack(messages, quick.archive, quick.archivedBytes, { start: 0, replacedEnd }, swapping);
  await dropUndone(quick);
}

/** The names an undone quick cut leaves: its archive's (its bytes are back in messages.jsonl) and its transcript's. */
export async function dropUndone(quick: QuickPart): Promise<void> {
  await fs.unlink(quick.archive).catch(() => {});
  await fsyncDir(path.dirname(quick.archive));
  await fs.unlink(quick.transcript).catch(() => {});
}
