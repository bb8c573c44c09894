// `wmem set SECTION TEXT` / `wmem append SECTION TEXT`: edit one section of overview.md through
// the section tree, enforcing its max_chars. On any refusal the file is left as it was.
import { atomicWrite, readTextIfExists, withLock } from '../store/fsx.js';
import { resolveSession } from '../store/session.js';
import { usageError } from '../ui/errors.js';
import type { CommandResult, RunContext } from '../ui/run.js';
import { textFromArgs } from './note.js';

type Mode = 'set' | 'append';

export async function editSection(
  file: string,
  sectionKey: string,
  text: string,
  mode: Mode,
): Promise<{ id: string; chars: number; maxChars?: number }> {
  const { parseOverview, findSection, replaceSectionContent, joinContent, assertSectionText, assertWithinLimit, trimBlock } = await import('../memory/overview.js');
  const { guardNoteText } = await import('../memory/gate.js');
  guardNoteText(text);
  if (/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/.test(text)) {
    throw usageError('the text contains control characters (terminal escapes, NUL)', 'overview.md is injected into prompts and shown in terminals; remove them');
  }
  assertSectionText(text, 'the text');
  const before = await readTextIfExists(file);
  if (before === undefined) throw usageError(`${file} is missing`, "run 'wmem init' to recreate it from the template");
  const overview = parseOverview(before, file);
  const section = findSection(overview, sectionKey, file);
  const content = mode === 'set' ? trimBlock(text) : joinContent(section.content, text);
  assertWithinLimit(section, content, file);
  await atomicWrite(file, replaceSectionContent(overview, section, content));
  return { id: section.id, chars: content.length, maxChars: section.maxChars };
}

async function runEdit(mode: Mode, ctx: RunContext, args: unknown[]): Promise<CommandResult> {
  const [sectionKey, words] = args as [string, string[]];
  const session = await resolveSession(ctx);
  // `wmem set SECTION ""` empties a section; appending nothing is a mistake.
  const text = await textFromArgs(words, ctx, 'the text', { allowEmpty: mode === 'set' });
  const result = await withLock(session.paths.dir, () => editSection(session.paths.overview, sectionKey, text, mode));
  const limit = result.maxChars ? `/${result.maxChars}` : '';
  return {
    data: { session: session.id, file: session.paths.overview, section: result.id, chars: result.chars, maxChars: result.maxChars ?? null },
    text: ctx.quiet ? '' : `${mode === 'set' ? 'set' : 'appended to'} ${result.id} (${result.chars}${limit} chars)`,
  };
}

export const run = (_options: unknown, ctx: RunContext, args: unknown[]) => runEdit('set', ctx, args);
export const runAppend = (_options: unknown, ctx: RunContext, args: unknown[]) => runEdit('append', ctx, args);
