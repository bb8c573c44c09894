// Reading a session's memory files for rendering: overview.md as a digest of sections (cached by
// content hash, so remark loads only when the file changed) and scratch.md as lines.
import type { OverviewDigest } from '../render/context.js';
import type { ContextCache } from './context-cache.js';
import { readTextIfExists } from './fsx.js';
import { usageError } from '../ui/errors.js';
import { isScratchHeader } from '../memory/scratch.js';

export async function digestOverviewText(text: string, file: string): Promise<OverviewDigest> {
  const { parseOverview, isMaintained } = await import('../memory/overview.js');
  // Lenient: an agent's hand edit may break the file; the context must still render what is there.
  const overview = parseOverview(text, file, { lenient: true });
  return {
    ...(overview.problem ? { problem: overview.problem.replace(file, 'working-memory/overview.md') } : {}),
    preamble: overview.preamble,
    // A section's guidance only while it is empty: once filled, the comment would cost its
    // characters on every prompt and say what the content already shows.
    sections: overview.sections.map((s) => ({
      id: s.id,
      text: [overview.body.slice(s.headingStart, s.headingEnd).trim(), s.content || s.guidance].filter(Boolean).join('\n'),
      empty: s.content === '',
    })),
    maintained: isMaintained(overview),
  };
}

/** The shape of the digest: a cached one of another shape is made again. */
const DIGEST_FORM = 2;

/** The overview digest, from the cache when overview.md is unchanged. Marks the cache dirty on a miss. */
export async function loadOverviewDigest(file: string, cache: ContextCache): Promise<{ digest: OverviewDigest; dirty: boolean }> {
  const text = await readTextIfExists(file);
  if (text === undefined) throw usageError(`${file} is missing`, "run 'wmem init' to recreate it from the template (nothing else is overwritten)");
  if (cache.overview?.text === text && cache.overview.form === DIGEST_FORM) return { digest: cache.overview.digest, dirty: false };
  const digest = await digestOverviewText(text, file);
  cache.overview = { text, digest, form: DIGEST_FORM };
  return { digest, dirty: true };
}

/** The scratch lines to inject: notes and unparsed lines alike (kept, never dropped), header and blanks left out. */
export async function loadScratchLines(file: string): Promise<string[]> {
  const text = (await readTextIfExists(file)) ?? '';
  // Rendering needs the lines as stored, in order; parsing each note is not needed here.
  return text
    .split('\n')
    .map((line) => line.replace(/\r$/, ''))
    .filter((line) => line.trim() !== '' && !isScratchHeader(line));
}
