// Pure: folding scratch notes into overview.md (SPEC §6). The deterministic merge puts each note
// under its tagged section (else `decisions` for importance ≥ 0.8, `context` below), folds
// canonical duplicates, and pushes the oldest lines of a section over its max_chars out as
// one-line pointers, their full text going to a detail file. The guards decide whether an LLM's
// synthesis may replace the overview.
import { parseOverview, replaceSectionContent, slugify, type Overview, type Section } from './overview.js';
import type { Note } from './scratch.js';
import { canonical } from './workspace.js';
import { keywordsOf } from './text.js';
import { findSecret } from './gate.js';

export const DECISION_IMPORTANCE = 0.8;
export const MAX_POINTERS = 20;
export const POINTER_LINE = /^\s*[-*+]\s+Past:\s/;

/** Lines of a section pushed out of the overview: the pointer that replaces them and the detail file that keeps them. */
export interface Eviction {
  sectionId: string;
  sectionTitle: string;
  lines: string[];
  pointer: string;
  topic: string;
  keywords: string[];
}

export interface MergePlan {
  /** The new overview.md (without index lines for the evictions' detail files: see addIndexLines). */
  text: string;
  evictions: Eviction[];
  /** Section id → notes placed there. */
  placed: Record<string, number>;
  /** Notes already in the overview (canonically) or repeated in scratch. */
  folded: number;
  /** Index lines added for detail files that were not indexed yet. */
  indexed: number;
}

function stripListMarker(line: string): string {
  return line.replace(/^\s*(?:[-*+]|\d+[.)])\s+(?:\[[ xX]\]\s+)?/, '');
}

/** The section a note belongs under: its first tag naming a section, else by importance. */
export function routeNote(note: Pick<Note, 'tags' | 'importance'>, overview: Overview): Section {
  for (const tag of note.tags) {
    const key = slugify(tag);
    const found = overview.sections.find((s) => s.id === tag || s.id === key || slugify(s.title) === key);
    if (found) return found;
  }
  const wanted = note.importance >= DECISION_IMPORTANCE ? 'decisions' : 'context';
  return (
    overview.sections.find((s) => s.id === wanted) ??
    overview.sections.find((s) => s.id === 'context') ??
    [...overview.sections].reverse().find((s) => s.id !== 'pointers' && s.id !== 'details') ??
    overview.sections[overview.sections.length - 1]
  );
}

/** The line a note becomes: its text on one line, without the tag that routed it. */
export function noteLine(note: Pick<Note, 'text' | 'tags'>, section: Section): string {
  let text = note.text.replace(/\s*\r?\n\s*/g, ' ').trim();
  for (const tag of note.tags) {
    if (tag === section.id || slugify(tag) === section.id || slugify(tag) === slugify(section.title)) {
      text = text.replace(new RegExp(`(^|\\s)#${tag.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?=\\s|$)`, 'u'), '$1').replace(/\s+/g, ' ').trim();
    }
  }
  return `- ${text}`;
}

function topicOf(sectionTitle: string, lines: string[]): string {
  const first = stripListMarker(lines[0] ?? '').replace(/[`*_]/g, '');
  const short = first.split(/\s+/).slice(0, 8).join(' ');
  const more = lines.length > 1 ? ` (+${lines.length - 1} more)` : '';
  return `${sectionTitle}: ${short.length > 70 ? short.slice(0, 69) + '…' : short}${more}`;
}

/** `- Past: <topic> → search: \`<keywords>\`` */
export function pointerLine(topic: string, keywords: string[]): string {
  const words = keywords.map((k) => k.replace(/`/g, '')).filter(Boolean);
  return `- Past: ${topic.replace(/`/g, "'")} → search: \`${words.join(' ') || 'past'}\``;
}

function makeEviction(section: Section, lines: string[]): Eviction {
  const keywords = keywordsOf(lines.map(stripListMarker));
  const topic = topicOf(section.title, lines);
  return { sectionId: section.id, sectionTitle: section.title, lines, topic, keywords, pointer: pointerLine(topic, keywords) };
}

function splitLines(content: string): string[] {
  return content ? content.split('\n') : [];
}

/**
 * Pushes the oldest lines out until the section fits; `protect` lines (a seeded overview's own
 * text) never move. Returns the kept lines and the pushed-out ones (blank lines dropped).
 */
function fitSection(lines: string[], maxChars: number, firstMovable: number): { kept: string[]; out: string[] } {
  const size = (xs: string[]) => xs.join('\n').trim().length;
  // One pass: drop the oldest movable lines while a running length (never below the trimmed one)
  // is over; then the exact length decides the last line or two. Linear in the section's size.
  let length = lines.reduce((n, l) => n + l.length + 1, -1);
  let drop = 0;
  const movable = lines.length - 1 - firstMovable;
  while (length > maxChars + 1 && drop < movable) length -= lines[firstMovable + drop++].length + 1;
  let kept = [...lines.slice(0, firstMovable), ...lines.slice(firstMovable + drop)];
  while (size(kept) > maxChars && drop < movable) {
    drop++;
    kept = [...lines.slice(0, firstMovable), ...lines.slice(firstMovable + drop)];
  }
  const out = lines.slice(firstMovable, firstMovable + drop).filter((l) => l.trim());
  // The newest line alone may still be too long: it goes too, so the limit always holds.
  while (size(kept) > maxChars && kept.length > firstMovable) {
    const [line] = kept.splice(kept.length - 1, 1);
    if (line.trim()) out.push(line);
  }
  return { kept, out };
}

/**
 * The bound of a section the template gives no max_chars (Key Decisions, Open Questions, …): the
 * overview is injected on every prompt, so no section grows without end. What goes past it moves
 * to detail/ with a pointer, like any eviction. The pointers section is bounded by its count.
 */
export const UNBOUNDED_SECTION_MAX = 4000;

function sectionLimit(section: { id: string; maxChars?: number }): number | undefined {
  return section.maxChars ?? (section.id === 'pointers' ? undefined : UNBOUNDED_SECTION_MAX);
}

export interface MergeInput {
  overviewText: string;
  file?: string;
  notes: Note[];
  /** Detail files not yet in the overview's index (e.g. written since the last consolidation). */
  newDetails?: { rel: string; title: string }[];
  /** The first consolidation after a MEMORY.md migration: existing text never moves. */
  appendOnly?: boolean;
}

/**
 * The overview with several sections' content replaced at once, by the offsets of one parse
 * (applied from the last section to the first, so earlier offsets stay right). The same
 * formatting as replaceSectionContent.
 */
export function replaceSections(overview: Overview, contents: Map<string, string>): string {
  let body = overview.body;
  for (let i = overview.sections.length - 1; i >= 0; i--) {
    const section = overview.sections[i];
    const content = contents.get(section.id);
    if (content === undefined) continue;
    const trimmed = content.replace(/^\s*\n|\s+$/g, '');
    const parts = [section.guidance, trimmed].filter((p) => p !== '');
    const block = parts.length ? `\n${parts.join('\n')}\n\n` : '\n\n';
    body = body.slice(0, section.headingEnd) + block + body.slice(section.end).replace(/^\n+/, '');
  }
  return overview.frontMatterRaw + body.replace(/\n*$/, '\n');
}

export function mergeNotes(input: MergeInput): MergePlan {
  const file = input.file ?? 'overview.md';
  const overview = parseOverview(input.overviewText, file);
  const known = new Set<string>();
  for (const s of overview.sections) for (const line of splitLines(s.content)) known.add(canonical(stripListMarker(line)));

  const additions = new Map<string, string[]>();
  const placed: Record<string, number> = {};
  let folded = 0;
  for (const note of input.notes) {
    const section = routeNote(note, overview);
    const line = noteLine(note, section);
    const key = canonical(stripListMarker(line));
    if (!key || known.has(key)) {
      folded++;
      continue;
    }
    known.add(key);
    let list = additions.get(section.id);
    if (!list) additions.set(section.id, (list = []));
    list.push(line);
    placed[section.id] = (placed[section.id] ?? 0) + 1;
  }

  let indexed = 0;
  const details = overview.sections.find((s) => s.id === 'details');
  if (details && input.newDetails?.length) {
    const lines = input.newDetails.filter((d) => !input.overviewText.includes(d.rel)).map((d) => `- ${d.rel} — ${d.title.replace(/\s+/g, ' ').trim()}`);
    if (lines.length) {
      additions.set('details', [...(additions.get('details') ?? []), ...lines]);
      indexed = lines.length;
    }
  }

  const evictions: Eviction[] = [];
  const pointerLines: string[] = [];
  const contents = new Map<string, string[]>();
  for (const section of overview.sections) {
    const existing = splitLines(section.content);
    const added = additions.get(section.id) ?? [];
    let lines = added.length ? [...existing, ...added] : existing;
    const limit = sectionLimit(section);
    if (limit !== undefined && lines.join('\n').trim().length > limit) {
      const firstMovable = input.appendOnly ? existing.length : 0;
      const { kept, out } = fitSection(lines, limit, firstMovable);
      if (out.length) {
        const eviction = makeEviction(section, out);
        evictions.push(eviction);
        pointerLines.push(eviction.pointer);
      }
      lines = kept;
    }
    if (added.length || lines.length !== existing.length) contents.set(section.id, lines);
  }

  if (pointerLines.length) {
    const pointers = overview.sections.find((s) => s.id === 'pointers');
    // No pointers section: the pointers go to the end of the last section, so nothing vanishes.
    const target = pointers ?? overview.sections[overview.sections.length - 1];
    let lines = [...(contents.get(target.id) ?? splitLines(target.content)), ...pointerLines];
    const isPointer = (l: string) => POINTER_LINE.test(l);
    const count = lines.filter(isPointer).length;
    if (pointers && count > MAX_POINTERS) {
      // The oldest pointers fold into one, their lines kept in a detail file like any eviction.
      const excess = count - MAX_POINTERS + 1;
      const folding = lines.filter(isPointer).slice(0, excess);
      lines = lines.filter((l) => !folding.includes(l));
      const keywords = keywordsOf(folding.map((l) => l.replace(/^.*search:\s*`|`\s*$/g, '')), 5);
      const topic = `${folding.length} older topics`;
      const eviction: Eviction = { sectionId: 'pointers', sectionTitle: pointers.title, lines: folding, topic, keywords, pointer: pointerLine(topic, keywords) };
      evictions.push(eviction);
      lines.unshift(eviction.pointer);
    }
    contents.set(target.id, lines);
  }
  const text = contents.size ? replaceSections(overview, new Map([...contents].map(([id, lines]) => [id, lines.join('\n')]))) : input.overviewText;
  return { text, evictions, placed, folded, indexed };
}

/** Adds index lines to the `details` section (those not there yet). */
export function addIndexLines(overviewText: string, lines: string[], file = 'overview.md'): string {
  const overview = parseOverview(overviewText, file);
  const details = overview.sections.find((s) => s.id === 'details');
  const missing = lines.filter((l) => {
    const rel = /detail\/\S+/.exec(l)?.[0];
    return rel ? !overviewText.includes(rel) : !overviewText.includes(l);
  });
  if (!missing.length) return overviewText;
  const target = details ?? overview.sections[overview.sections.length - 1];
  return replaceSectionContent(overview, target, [...splitLines(target.content), ...missing].join('\n'));
}

// ---- Guards on an LLM's synthesis -------------------------------------------------------------

export type GuardName = 'required-sections' | 'shrink' | 'pointers' | 'substance' | 'budget' | 'secret' | 'unparseable';

export interface GuardRefusal {
  guard: GuardName;
  reason: string;
}

export interface GuardInput {
  candidate: string;
  previous: string;
  /** Character budget of the injected memory part (from tokens_max). */
  budget: number;
  file?: string;
}

/** Removes a code fence around the whole output and puts the previous front matter on it (added, or in place of the model's). */
export function normalizeCandidate(candidate: string, previous: string): string {
  let text = candidate.replace(/\r\n/g, '\n').trim();
  const fenced = /^```[\w-]*\n([\s\S]*?)\n```$/.exec(text);
  if (fenced) text = fenced[1].trim();
  // The front matter (section limits, required flags) is wmem's, not the model's to change.
  const previousFront = /^---\n[\s\S]*?\n---\n/.exec(previous)?.[0] ?? '';
  const ownFront = /^---\n[\s\S]*?\n---\n/.exec(text)?.[0];
  if (ownFront && previousFront) text = text.slice(ownFront.length);
  if (previousFront || !ownFront) text = previousFront + text.replace(/^\n+/, '');
  return text + '\n';
}

function substance(overview: Overview): number {
  return overview.sections.reduce((n, s) => n + s.content.replace(/<!--[\s\S]*?-->/g, '').replace(/\s+/g, '').length, 0);
}

/** Accepts a candidate overview only past every guard (SPEC §6); returns the first refusal. */
export function checkSynthesis(input: GuardInput): GuardRefusal | undefined {
  const file = input.file ?? 'overview.md';
  const previous = parseOverview(input.previous, file);
  let candidate: Overview;
  try {
    candidate = parseOverview(input.candidate, 'the synthesis');
  } catch (err) {
    const message = (err as Error).message;
    if (/missing the required section/.test(message)) return { guard: 'required-sections', reason: message.replace(/^the synthesis is /, 'the synthesis is ') };
    return { guard: 'unparseable', reason: `the synthesis is not an overview: ${message}` };
  }
  const specs = previous.sections.filter((s) => s.required);
  const required = specs.length ? specs : previous.sections;
  const missing = required.filter((s) => !candidate.sections.some((c) => c.id === s.id || slugify(c.title) === slugify(s.title)));
  if (missing.length) {
    return { guard: 'required-sections', reason: `the synthesis lacks the required section${missing.length > 1 ? 's' : ''} ${missing.map((s) => `"${s.title}"`).join(', ')}` };
  }
  const before = previous.body.trim().length;
  const after = candidate.body.trim().length;
  if (before > 2000 && after < before * 0.5) {
    return { guard: 'shrink', reason: `the synthesis is ${after} characters, under 50 % of the previous overview's ${before}` };
  }
  const pointers = candidate.body.split('\n').filter((l) => POINTER_LINE.test(l)).length;
  if (pointers > MAX_POINTERS) return { guard: 'pointers', reason: `the synthesis has ${pointers} pointers; at most ${MAX_POINTERS}` };
  const chars = substance(candidate);
  if (chars < 50) return { guard: 'substance', reason: `the synthesis has ${chars} characters of content; at least 50` };
  for (const section of candidate.sections) {
    if (section.maxChars !== undefined && section.content.length > section.maxChars) {
      return { guard: 'budget', reason: `section "${section.id}" of the synthesis is ${section.content.length} characters; its limit is ${section.maxChars}` };
    }
  }
  const limit = Math.max(input.budget, before);
  if (after > limit) return { guard: 'budget', reason: `the synthesis is ${after} characters; the memory budget is ${limit}` };
  const secret = findSecret(candidate.body);
  if (secret) return { guard: 'secret', reason: `the synthesis contains what looks like ${secret.kind}` };
  return undefined;
}

/**
 * The first consolidation after a MEMORY.md migration keeps the seeded text as it is: the
 * synthesis's new lines are appended below each section's existing content.
 */
export function appendSynthesis(previousText: string, candidateText: string, file = 'overview.md'): string {
  let overview = parseOverview(previousText, file);
  const candidate = parseOverview(candidateText, 'the synthesis');
  for (const fresh of candidate.sections) {
    const target = overview.sections.find((s) => s.id === fresh.id || slugify(s.title) === slugify(fresh.title));
    if (!target) continue;
    const have = new Set(splitLines(target.content).map((l) => canonical(stripListMarker(l))));
    const add = splitLines(fresh.content).filter((l) => l.trim() && !have.has(canonical(stripListMarker(l))));
    if (!add.length) continue;
    overview = parseOverview(replaceSectionContent(overview, target, [...splitLines(target.content), ...add].join('\n')), file);
  }
  return overview.frontMatterRaw + overview.body;
}

/** Fills the synthesis prompt's {{placeholders}}. */
export function fillPrompt(template: string, values: Record<string, string>): string {
  return template.replace(/\{\{\s*(\w+)\s*\}\}/g, (m, key: string) => (key in values ? values[key] : m));
}

/**
 * `text` without one occurrence of each of `lines` (matched exactly, as stored): what stays in
 * scratch.md after a consolidation took those notes. Every other line stays, in order.
 */
export function removeLines(text: string, lines: string[]): string {
  const pending = new Map<string, number>();
  for (const line of lines) pending.set(line, (pending.get(line) ?? 0) + 1);
  const kept: string[] = [];
  for (const line of text.split('\n')) {
    const clean = line.replace(/\r$/, '');
    const left = pending.get(clean) ?? 0;
    if (left > 0) {
      pending.set(clean, left - 1);
      continue;
    }
    kept.push(line);
  }
  return kept.join('\n');
}
