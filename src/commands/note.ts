// `wmem note`: appends one note to scratch.md at once (a single durable write), so nothing is
// lost between consolidations.
import { appendDurably, withLock } from '../store/fsx.js';
import { resolveSession } from '../store/session.js';
import { formatNote, validateImportance } from '../memory/scratch.js';
import { usageError } from '../ui/errors.js';
import { readStdin, type CommandResult, type RunContext } from '../ui/run.js';

const DECIMAL = /^\s*(?:[01]|[01]?\.\d+|1\.0*)\s*$/;
const TAG = /^#?\p{L}[\p{L}\p{N}_-]{0,39}$/u;

export interface NoteOptions {
  importance?: string;
  tag?: string[];
}

/** Reads `TEXT…` arguments, or standard input when the only argument is `-`. */
export async function textFromArgs(words: string[], ctx: RunContext, what: string, options: { allowEmpty?: boolean } = {}): Promise<string> {
  const clean = words.map((w) => (w.startsWith('\u2060') ? w.slice(1) : w));
  const text = clean.length === 1 && clean[0] === '-' ? await readStdin(ctx.stdin, 'standard input', { utf8: true }) : clean.join(' ');
  if (!text.trim() && !options.allowEmpty) throw usageError(`${what} is empty`, 'give the text as arguments, or - to read it from standard input');
  return text;
}

export async function run(options: NoteOptions, ctx: RunContext, args: unknown[]): Promise<CommandResult> {
  // A plain decimal only: Number() would also take 0x1, 1e0 or Infinity.
  const importance = validateImportance(options.importance);
  if ((options.importance !== undefined && !DECIMAL.test(options.importance)) || !Number.isFinite(importance) || importance < 0 || importance > 1) {
    throw usageError(`--importance must be a number from 0 to 1 such as 0.8, not ${JSON.stringify(options.importance)}`);
  }
  const { findSecret, guardNoteText } = await import('../memory/gate.js');
  for (const tag of options.tag ?? []) {
    const secret = findSecret(tag);
    // Tags are stored with the note and injected like it: the same gate, without echoing a secret.
    if (secret) throw usageError(`a --tag looks like ${secret.kind}; refused (memory is injected into prompts)`, 'keep secrets out of memory');
    if (!TAG.test(tag)) throw usageError(`invalid --tag ${JSON.stringify(tag)}`, 'a tag starts with a letter and has up to 40 letters, digits, _ and -, e.g. --tag decisions');
  }
  const session = await resolveSession(ctx);
  const text = await textFromArgs(args[0] as string[], ctx, 'the note');
  if (text.includes('\0')) throw usageError('the note holds a NUL byte', 'notes are text: pass text, or save binary output elsewhere and note its path');
  guardNoteText(text);
  const line = formatNote({ time: ctx.now(), importance, text, tags: options.tag });
  // The lock keeps a note from landing in a scratch.md that a consolidation is replacing.
  await withLock(session.paths.dir, () => appendDurably(session.paths.scratch, line + '\n', { onNewLine: true, what: 'note' }));
  return { data: { session: session.id, file: session.paths.scratch, note: line }, text: ctx.quiet ? '' : line };
}
