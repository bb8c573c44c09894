// `wmem set SECTION TEXT` / `wmem append SECTION TEXT`: reads the text, then src/app/set.ts edits
// the section.
import { resolveSession } from '../store/session.js';
import { appendSection, setSection, type SectionEdit } from '../app/set.js';
import { renderSection } from '../views/memory.js';
import type { CommandResult, RunContext } from './run.js';
import { textFromArgs } from './note.js';

async function runEdit(mode: SectionEdit, ctx: RunContext, args: unknown[]): Promise<CommandResult> {
  const [section, words] = args as [string, string[]];
  await resolveSession(ctx);
  // `wmem set SECTION ""` empties a section; appending nothing is a mistake.
  const text = await textFromArgs(words, ctx, 'the text', { allowEmpty: mode === 'set' });
  const result = await (mode === 'set' ? setSection : appendSection)({ section, text }, ctx);
  return { data: result, text: ctx.quiet ? '' : renderSection(mode, result) };
}

export const run = (_options: unknown, ctx: RunContext, args: unknown[]) => runEdit('set', ctx, args);
export const runAppend = (_options: unknown, ctx: RunContext, args: unknown[]) => runEdit('append', ctx, args);
