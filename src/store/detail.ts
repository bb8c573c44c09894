// detail/ files and the overview's index of them. Compaction, consolidation, migrations and
// hooks all write detail files the same way: Markdown with front matter saying what it holds,
// created atomically under a name that is never reused, then listed in the `details` section.
import path from 'node:path';
import { atomicWrite, exists, readTextIfExists, withLock } from './fsx.js';
import type { Session } from './session.js';
import { usageError } from '../ui/errors.js';
import { isoTime } from '../ui/time.js';
import { redactSecrets } from '../memory/gate.js';
import type { Section } from '../memory/overview.js';

export interface DetailInput {
  /** File name stem, e.g. `20261123T083012345Z-conversation`; `.md` is added. Letters, digits, . _ - only. */
  stem: string;
  /** What it holds: conversation, summary, notes, memory-md, compact-summary, … */
  kind: string;
  /** Where it came from (a file, a command, a hook). */
  source: string;
  /** One line for the overview's index. */
  title: string;
  body: string;
  created: Date;
  /** More front matter: message range, line numbers, counts. */
  extra?: Record<string, unknown>;
}

function yamlScalar(value: unknown): string {
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (value === null || value === undefined) return 'null';
  return JSON.stringify(typeof value === 'string' ? value : value);
}

export function detailFrontMatter(fields: Record<string, unknown>): string {
  const lines = Object.entries(fields).map(([k, v]) => `${k}: ${yamlScalar(v)}`);
  return `---\n${lines.join('\n')}\n---\n`;
}

/** detail/<stem>.md, or a numbered name if that is taken: the file name only. */
export async function freeDetailName(session: Session, stem: string): Promise<string> {
  if (!/^[A-Za-z0-9._-]{1,160}$/.test(stem)) throw usageError(`invalid detail file name ${JSON.stringify(stem)}`);
  let name = `${stem}.md`;
  for (let n = 2; await exists(path.join(session.paths.detailDir, name)); n++) name = `${stem}-${n}.md`;
  return name;
}

/** The front matter of a detail file (what it holds, where from, when). */
export function detailHeader(session: Session, input: Omit<DetailInput, 'body' | 'stem'>): string {
  return detailFrontMatter({
    wmem: 'detail',
    version: 1,
    kind: input.kind,
    title: input.title,
    created: isoTime(input.created),
    session: session.id,
    source: input.source,
    ...input.extra,
  });
}

/** Writes detail/<stem>.md (a numbered name if taken) and returns its path relative to working-memory/. */
export async function writeDetail(session: Session, input: DetailInput): Promise<string> {
  const name = await freeDetailName(session, input.stem);
  const front = detailHeader(session, input);
  await atomicWrite(path.join(session.paths.detailDir, name), `${front}\n${input.body.replace(/\n*$/, '\n')}`);
  return `detail/${name}`;
}

/**
 * Adds lines to a section of overview.md (appended, newest last), holding the session lock
 * unless the caller already does. A section over its max_chars drops its oldest lines first.
 */
export async function appendToSection(session: Session, sectionId: string, lines: string[], options: { locked?: boolean } = {}): Promise<void> {
  await appendToSections(session, [{ sectionId, lines }], options);
}

/** Several sections' additions in one edit of overview.md (one parse per section, one write). */
export async function appendToSections(session: Session, additions: Array<{ sectionId: string; lines: string[] }>, options: { locked?: boolean } = {}): Promise<void> {
  const wanted = additions.filter((a) => a.lines.length);
  if (!wanted.length) return;
  // Loaded before the lock: the edit is then synchronous calls alone (a read, the parse, a durable
  // replace), a brief hold (no owner token, heartbeat or exit listeners: store/lock.ts).
  const { parseOverview, findSection, replaceSectionContents } = await import('../memory/overview.js');
  const work = async () => {
    const file = session.paths.overview;
    const text = await readTextIfExists(file);
    if (text === undefined) throw usageError(`${file} is missing`, "run 'wmem init' to recreate it");
    // One parse for every section (the same section named twice gets both its additions).
    const overview = parseOverview(text, file);
    const edits = new Map<Section, string[]>();
    for (const { sectionId, lines } of wanted) {
      const section = findSection(overview, sectionId, file);
      const combined = edits.get(section) ?? (section.content ? section.content.split('\n') : []);
      edits.set(section, [...combined, ...lines.map((l) => l.replace(/\n/g, ' '))]);
    }
    const contents = [...edits].map(([section, combined]) => {
      if (section.maxChars !== undefined) {
        while (combined.length > 1 && combined.join('\n').length > section.maxChars) combined = combined.slice(1);
      }
      return { section, content: combined.join('\n') };
    });
    await atomicWrite(file, replaceSectionContents(overview, contents));
  };
  if (options.locked) await work();
  else await withLock(session.paths.dir, work, { brief: true });
}

/**
 * The index line for a detail file: `- detail/NAME.md — title`. It is injected with the overview,
 * so a title made from a file name or a heading passes the secret redaction like any other text.
 */
export function detailIndexLine(relativePath: string, title: string): string {
  return `- ${relativePath} — ${redactSecrets(title.replace(/\s+/g, ' ').trim())}`;
}

/**
 * Starts loading the overview module (remark) without waiting: a compaction calls this while the
 * disk syncs, since its overview edit at the end needs it. It lives here, one folder below src/,
 * because the lean compact bundle keeps `../memory/overview.js` external by that exact path.
 */
export function preloadOverviewModule(): void {
  import('../memory/overview.js').catch(() => {});
}
