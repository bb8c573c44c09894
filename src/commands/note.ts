// `wmem note`: parses the note's flags and text, then src/app/note.ts appends it.
import { resolveSession } from '../store/session.js';
import { validateImportance } from '../memory/scratch.js';
import { addNote, checkNoteOptions } from '../app/note.js';
import { usageError } from '../ui/errors.js';
import { readStdin, type CommandResult, type RunContext } from './run.js';

const DECIMAL = /^\s*(?:[01]|[01]?\.\d+|1\.0*)\s*$/;

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
  await checkNoteOptions(importance, options.tag);
  await resolveSession(ctx);
  const text = await textFromArgs(args[0] as string[], ctx, 'the note');
  const result = await addNote({ text, importance: options.importance === undefined ? undefined : importance, tags: options.tag }, ctx);
  return { data: result, text: ctx.quiet ? '' : result.note };
}
