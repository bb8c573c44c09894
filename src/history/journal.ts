// The compaction journal (state/compaction.json) and recovery from a run killed part way: the
// journal names every file a run may create; whether messages.jsonl already starts with the run's
// marker says whether it committed (see the protocol in compact.ts).
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { exists, readTextIfExists } from '../store/fsx.js';
import type { Session } from '../store/session.js';
import { appendToSections } from '../store/detail.js';
import { fsError } from '../ui/errors.js';
import { parseMarker } from './marker.js';
import { readLines } from './scan.js';

export interface Journal {
  version: 1;
  id: string;
  pid: number;
  startedAt: string;
  /** Temp files this run may create (deleted on recovery). */
  temps: string[];
  /** Final files this run creates before its commit (deleted if it never committed). */
  finals: string[];
  /** Overview lines to add once committed. */
  indexLines: string[];
  recentLine: string;
}

const JOURNAL = 'compaction.json';

export function journalPath(session: Session): string {
  return path.join(session.paths.stateDir, JOURNAL);
}

/** Reads the first line of a file (up to 1 MiB), or ''. */
async function firstLine(file: string): Promise<string> {
  for await (const line of readLines(file)) return line.bytes.subarray(0, 1 << 20).toString('utf8');
  return '';
}

/**
 * Resolves a compaction interrupted by a crash (call with the session lock held): finishes it
 * if it committed, otherwise deletes what it created. Returns what it did, or undefined.
 */
export async function recoverCompaction(session: Session, env: { warn(msg: string): void }): Promise<string | undefined> {
  const file = journalPath(session);
  const text = await readTextIfExists(file);
  if (text === undefined) return undefined;
  let journal: Journal;
  try {
    journal = JSON.parse(text) as Journal;
  } catch {
    // A torn journal cannot exist (atomic write); an unreadable one is kept aside, not trusted.
    await fs.rename(file, `${file}.unreadable-${Date.now()}`).catch(() => {});
    return `set aside an unreadable ${file}`;
  }
  for (const temp of journal.temps) await fs.unlink(temp).catch(() => {});
  let committed = false;
  if (await exists(session.paths.messages)) committed = parseMarker(await firstLine(session.paths.messages))?.id === journal.id;
  let note: string;
  if (committed) {
    await updateOverview(session, journal.indexLines, journal.recentLine, env);
    note = `finished compaction ${journal.id}, which was interrupted after its commit`;
  } else {
    for (const final of journal.finals) await fs.unlink(final).catch(() => {});
    note = `rolled back compaction ${journal.id}, which was interrupted before its commit (messages.jsonl was untouched)`;
  }
  await fs.unlink(file).catch((err) => {
    throw fsError(err, 'remove', file);
  });
  env.warn(`wmem: ${note}`);
  return note;
}

/** Adds index and recent lines unless an earlier attempt already did (recovery may repeat this). */
export async function updateOverview(session: Session, indexLines: string[], recentLine: string, env: { warn(msg: string): void }): Promise<void> {
  try {
    const current = (await readTextIfExists(session.paths.overview)) ?? '';
    const missing = indexLines.filter((l) => !current.includes(l));
    const recent = recentLine && !current.includes(recentLine) ? [recentLine] : [];
    await appendToSections(session, [{ sectionId: 'details', lines: missing }, { sectionId: 'recent', lines: recent }], { locked: true });
  } catch (err) {
    env.warn(`wmem: compaction done, but overview.md was not updated: ${(err as Error).message}`);
  }
}
