// Digests of archives whose marker has none (a quick cut's marker is written before anyone reads
// the archive; its finishing records the digest in state/archives.json, and restore checks it).
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { atomicWrite, readTextIfExists } from '../../store/fsx.js';
import type { Session } from '../../store/session.js';

/** Digests of archives whose marker has none (quick cuts), by path relative to working-memory/. */
interface ArchiveDigests {
  version: 1;
  archives: Record<string, ArchiveDigest>;
}

export interface ArchiveDigest {
  bytes: number;
  sha256: string;
  lines?: number;
  /** The finishing cut the archive to `bytes`: what lies past them was written after it. */
  cut?: true;
}

function digestsPath(session: Session): string {
  return path.join(session.paths.stateDir, 'archives.json');
}

/** The recorded sha256 of an archive whose marker has none, if any. */
export async function archiveDigest(session: Session, archiveRel: string): Promise<ArchiveDigest | undefined> {
  const text = await readTextIfExists(digestsPath(session));
  if (!text) return undefined;
  try {
    return (JSON.parse(text) as ArchiveDigests).archives?.[archiveRel];
  } catch {
    return undefined;
  }
}

/** Records an archive's digest (under the session lock). */
export async function recordArchiveDigest(session: Session, archiveRel: string, digest: ArchiveDigest): Promise<void> {
  let digests: ArchiveDigests = { version: 1, archives: {} };
  const text = await readTextIfExists(digestsPath(session));
  if (text) {
    try {
      const parsed = JSON.parse(text) as ArchiveDigests;
      if (parsed && typeof parsed.archives === 'object') digests = { version: 1, archives: parsed.archives };
    } catch {
      // Unreadable (it is written atomically, so not torn by wmem): kept aside, not overwritten.
      await fs.rename(digestsPath(session), `${digestsPath(session)}.unreadable-${Date.now()}`).catch(() => {});
    }
  }
  digests.archives[archiveRel] = digest;
  await atomicWrite(digestsPath(session), JSON.stringify(digests, null, 2) + '\n');
}
