// What a consolidation would find to fold (docs/compaction.md): the notes in scratch.md and the
// detail files overview.md does not index yet. Read without the lock and without the merge, so
// that a session's end with nothing new (OpenCode's idle ends every turn) need not load the
// consolidation at all; anything it is not sure of is left to the consolidation itself.
import { statSync } from 'node:fs';
import { listInside, readTextIfExists, staysInside } from '../../store/fsx.js';
import { readMeta, type Session, type SessionMeta } from '../../store/session.js';
import { joinName } from '../../store/names.js';
import { parseScratch } from '../../memory/scratch.js';

export interface NewDetail {
  rel: string;
  title: string;
  body: string;
}

/** A scratch.md this large is read by the consolidation's stream, not here (it holds notes anyway). */
const SMALL_SCRATCH = 64 * 1024;

const TITLE = /^title:\s*(.+)$/m;

function parseTitle(text: string, fallback: string): string {
  const raw = TITLE.exec(text.slice(0, 2000))?.[1]?.trim();
  if (!raw) return fallback;
  try {
    return raw.startsWith('"') ? (JSON.parse(raw) as string) : raw;
  } catch {
    return raw;
  }
}

/** When the session was last consolidated (ms since the epoch; 0: never). */
export function lastConsolidated(meta: SessionMeta | undefined): number {
  return meta?.lastConsolidatedAt ? Date.parse(String(meta.lastConsolidatedAt)) || 0 : 0;
}

/** Detail files written since the last consolidation (all, the first time) that the overview does not index yet. */
export async function newDetailFiles(session: Session, overview: string, since: number, withBodies: boolean): Promise<NewDetail[]> {
  const out: NewDetail[] = [];
  for (const { name, plain } of listInside(session.paths.dir, session.paths.detailDir)) {
    if (!name.endsWith('.md')) continue;
    const rel = `detail/${name}`;
    // One join per file at every session end: node:path's normalize would run over the whole path each time (store/names.ts joinName).
    const full = joinName(session.paths.detailDir, name);
    // search's rule: a link planted in detail/ that leads out of the session is never read (its
    // text would be folded into overview.md, which is injected into every prompt).
    if (!plain && !staysInside(session.paths.dir, full)) continue;
    let mtime: number;
    try {
      mtime = statSync(full).mtimeMs;
    } catch {
      continue;
    }
    if (mtime <= since && overview.includes(rel)) continue;
    if (overview.includes(rel) && !withBodies) continue;
    const text = (await readTextIfExists(full)) ?? '';
    out.push({ rel, title: parseTitle(text, name), body: withBodies ? text.replace(/^---\n[\s\S]*?\n---\n/, '').trim() : '' });
  }
  return out;
}

/**
 * True only when a deterministic consolidation now would do nothing and say nothing: scratch.md
 * holds no note and no line that is not one (those are warned about), overview.md exists, and no
 * detail file waits to be indexed. A note appended right after this read is the next
 * consolidation's, as it would be had the consolidation run a moment earlier.
 */
export async function nothingPending(session: Session): Promise<boolean> {
  const { paths } = session;
  let size: number;
  try {
    size = statSync(paths.scratch).size;
  } catch {
    size = 0; // no scratch.md: the consolidation reads it as empty
  }
  if (size > SMALL_SCRATCH) return false;
  const scratch = size ? parseScratch((await readTextIfExists(paths.scratch)) ?? '') : { notes: [], unparsed: [] };
  if (scratch.notes.length || scratch.unparsed.length) return false;
  const overview = await readTextIfExists(paths.overview);
  if (overview === undefined) return false;
  return (await newDetailFiles(session, overview, lastConsolidated(await readMeta(paths)), false)).length === 0;
}
