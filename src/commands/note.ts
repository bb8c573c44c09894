// `wmem note`: appends one note to scratch.md at once (a single durable write), so nothing is
// lost between consolidations.
import { appendDurably, withLock } from '../store/fsx.js';
import { resolveSession } from '../store/session.js';
import { formatNote, validateImportance } from '../memory/scratch.js';
import { usageError } from '../ui/errors.js';
import { readStdin, type CommandResult, type RunContext } from '../ui/run.js';

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
  const importance = validateImportance(options.importance);
  if (!Number.isFinite(importance) || importance < 0 || importance > 1) {
    throw usageError(`--importance must be a number from 0 to 1, not ${JSON.stringify(options.importance)}`);
  }
  for (const tag of options.tag ?? []) {
    if (!/^#?[\p{L}\p{N}_-]+$/u.test(tag)) throw usageError(`invalid --tag ${JSON.stringify(tag)}`, 'a tag is letters, digits, _ and -, e.g. --tag decisions');
  }
  const session = await resolveSession(ctx);
  const text = await textFromArgs(args[0] as string[], ctx, 'the note');
  const { guardNoteText } = await import('../memory/gate.js');
  guardNoteText(text);
  const line = formatNote({ time: ctx.now(), importance, text, tags: options.tag });
  // The lock keeps a note from landing in a scratch.md that a consolidation is replacing.
  await withLock(session.paths.dir, () => appendDurably(session.paths.scratch, line + '\n', { onNewLine: true }));
  return { data: { session: session.id, file: session.paths.scratch, note: line }, text: ctx.quiet ? '' : line };
}
