// Use case `note`: one note appended to scratch.md at once (a single durable write under the
// session lock), so nothing is lost between consolidations. Plain options in, a result out.
import { appendDurably, withLock } from '../store/fsx.js';
import { resolveSession } from '../store/session.js';
import type { AppEnv } from './env.js';
import { formatNote, validateImportance } from '../memory/scratch.js';
import { usageError } from '../ui/errors.js';

const TAG = /^#?\p{L}[\p{L}\p{N}_-]{0,39}$/u;

export interface NoteOptions {
  text: string;
  /** 0 to 1; absent: the default importance. */
  importance?: number;
  tags?: string[];
}

export interface NoteResult {
  session: string;
  file: string;
  /** The line as written to scratch.md. */
  note: string;
}

/** Refuses an importance outside 0..1 and tags that are secrets or not tag-shaped. */
export async function checkNoteOptions(importance: number | undefined, tags: string[] | undefined): Promise<number> {
  const value = validateImportance(importance);
  if (!Number.isFinite(value) || value < 0 || value > 1) throw usageError(`--importance must be a number from 0 to 1 such as 0.8, not ${JSON.stringify(importance)}`);
  const { findSecret } = await import('../memory/gate.js');
  for (const tag of tags ?? []) {
    const secret = findSecret(tag);
    // Tags are stored with the note and injected like it: the same gate, without echoing a secret.
    if (secret) throw usageError(`a --tag looks like ${secret.kind}; refused (memory is injected into prompts)`, 'keep secrets out of memory');
    if (!TAG.test(tag)) throw usageError(`invalid --tag ${JSON.stringify(tag)}`, 'a tag starts with a letter and has up to 40 letters, digits, _ and -, e.g. --tag decisions');
  }
  return value;
}

export async function addNote(options: NoteOptions, env: AppEnv): Promise<NoteResult> {
  const importance = await checkNoteOptions(options.importance, options.tags);
  const session = await resolveSession(env);
  const { text } = options;
  if (!text.trim()) throw usageError('the note is empty');
  if (text.includes('\0')) throw usageError('the note holds a NUL byte', 'notes are text: pass text, or save binary output elsewhere and note its path');
  const { guardNoteText } = await import('../memory/gate.js');
  guardNoteText(text);
  const line = formatNote({ time: env.now(), importance, text, tags: options.tags });
  // The lock keeps a note from landing in a scratch.md that a consolidation is replacing.
  await withLock(session.paths.dir, () => appendDurably(session.paths.scratch, line + '\n', { onNewLine: true, what: 'note' }));
  return { session: session.id, file: session.paths.scratch, note: line };
}
