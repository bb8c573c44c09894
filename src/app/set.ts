// Use cases `set` and `append`: edit one section of overview.md through the section tree, under
// the session lock, enforcing its max_chars and the secret gate. On any refusal the file is left
// as it was.
import { atomicWrite, readTextIfExists, withLock } from '../store/fsx.js';
import { resolveSession } from '../store/session.js';
import type { AppEnv } from './env.js';
import { usageError } from '../ui/errors.js';

export type SectionEdit = 'set' | 'append';

export interface SectionOptions {
  /** Section id or title, e.g. task, progress, decisions. */
  section: string;
  text: string;
}

export interface SectionResult {
  session: string;
  file: string;
  section: string;
  chars: number;
  maxChars: number | null;
}

export async function editSection(file: string, sectionKey: string, text: string, mode: SectionEdit): Promise<{ id: string; chars: number; maxChars?: number }> {
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

async function edit(mode: SectionEdit, options: SectionOptions, env: AppEnv): Promise<SectionResult> {
  const session = await resolveSession(env);
  // Setting "" empties a section; appending nothing is a mistake.
  if (mode === 'append' && !options.text.trim()) throw usageError('the text is empty');
  const result = await withLock(session.paths.dir, () => editSection(session.paths.overview, options.section, options.text, mode));
  return { session: session.id, file: session.paths.overview, section: result.id, chars: result.chars, maxChars: result.maxChars ?? null };
}

export const setSection = (options: SectionOptions, env: AppEnv) => edit('set', options, env);
export const appendSection = (options: SectionOptions, env: AppEnv) => edit('append', options, env);
