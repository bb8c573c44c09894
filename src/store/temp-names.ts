// Pure: the names of temp files that atomic writes leave when their process dies, told apart
// from a user's own files. Beside the writers (fsx.ts names its temps this way), so that a sweep
// and a compaction's cleanup both ask here.

/**
 * Files wmem writes with write-file-atomic outside state/ (whose own files are all JSON that wmem
 * writes that way). Only their leftovers are swept: a user's `messages.jsonl.1`, an archive that
 * `--archive-to` named `before.jsonl.2`, or notes called `plan.tmp` are never taken for one.
 */
const ATOMICALLY_WRITTEN = new Set(['meta.json', 'overview.md', 'scratch.md', 'current', 'workspace-memory.json']);

/**
 * What write-file-atomic leaves when its process dies mid-write: `<name>.<uint32>`. The number
 * is a hash, so six digits or more all but always (a leftover with fewer stays; a user's
 * `overview.md.2` backup must not go).
 */
export function isAtomicWriteLeftover(name: string, inState = false): boolean {
  const m = /^(.+)\.\d{6,10}$/.exec(name);
  return m !== null && (ATOMICALLY_WRITTEN.has(m[1]!) || (inState && m[1]!.endsWith('.json') && !m[1]!.startsWith('.')));
}

/** The writer's pid in one of wmem's own temp names (hidden: `.<name>.<…>.<pid>[.replaced].tmp`). */
export function ownTempPid(name: string): number | undefined {
  const m = /^\..+\.(\d+)(?:\.replaced)?\.tmp$/.exec(name);
  return m ? Number(m[1]) : undefined;
}

/** A temp file of an atomic write, by wmem or by write-file-atomic for wmem (see above). */
export function isTempName(name: string, inState = false): boolean {
  return ownTempPid(name) !== undefined || isAtomicWriteLeftover(name, inState);
}
