// The one rule for a transcript path an agent's hook input names, before anything reads it: the
// moments' transcript reads (app/hook-moments.ts, hook-compaction.ts) and the adapters that complete
// an input from the transcript (Codex's summary and exit codes, Droid's compaction chain).
import { lstatSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { HookInputError } from './adapter.js';

/** The longest path Linux takes (PATH_MAX, with its NUL); macOS takes 1,024. */
const PATH_MAX = 4_096;

/**
 * A transcript path from hook input is read (and archived, byte for byte): it must be absolute and
 * name a .jsonl file, as every agent's transcript does, so that input naming /etc/passwd or a
 * key file gets nothing copied into memory. A link named `.jsonl` is followed only to a `.jsonl`
 * file: `x.jsonl -> /etc/shadow` is refused as /etc/shadow would be.
 */
export function checkTranscriptPath(file: string): void {
  // Refused by their text, before Node's own errors (an internal error logged with its stack).
  if (file.includes('\0')) throw new HookInputError(`transcript_path ${JSON.stringify(file.slice(0, 200))} holds a NUL byte: no file has that name`);
  const bytes = Buffer.byteLength(file);
  if (bytes >= PATH_MAX) throw new HookInputError(`transcript_path is ${bytes} bytes long, longer than any path (${JSON.stringify(file.slice(0, 80))}…)`);
  if (!path.isAbsolute(file)) throw new HookInputError(`transcript_path ${JSON.stringify(file)} is not an absolute path`);
  // `lnk/../x.jsonl`: the kernel walks `..` through the link, path.resolve (the readers') drops it:
  // two files. Agents send normalized paths; anything else is refused.
  if (path.normalize(file) !== file) throw new HookInputError(`transcript_path ${JSON.stringify(file)} is not a normalized path (no '.', '..' or '//' parts)`);
  if (!file.endsWith('.jsonl')) throw new HookInputError(`transcript_path ${JSON.stringify(file)} is not a .jsonl file (every agent's transcript is one)`);
  if (!isLink(file)) return;
  let target: string;
  try {
    target = realpathSync.native(file);
  } catch {
    return; // a dangling link: read as a missing transcript
  }
  if (!target.endsWith('.jsonl')) throw new HookInputError(`transcript_path ${JSON.stringify(file)} is a link to ${JSON.stringify(target)}, which is not a .jsonl file`);
}

/** Whether `file` is a symbolic link; a name part longer than the file system takes is refused as input. */
function isLink(file: string): boolean {
  try {
    return lstatSync(file, { throwIfNoEntry: false })?.isSymbolicLink() ?? false;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENAMETOOLONG') throw new HookInputError(`transcript_path ${JSON.stringify(file.slice(0, 80))}… has a name longer than the file system takes`);
    throw err;
  }
}

/** Whether checkTranscriptPath lets `file` be read (for an adapter's reads, which never throw). */
export function mayReadTranscript(file: string | undefined): file is string {
  if (!file) return false;
  try {
    checkTranscriptPath(file);
    return true;
  } catch {
    return false;
  }
}
