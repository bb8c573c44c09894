// Pure: folding scratch notes into overview.md (docs/compaction.md). The deterministic merge puts each note
// under its tagged section (else `decisions` for importance ≥ 0.8, `context` below), folds
// canonical duplicates, and pushes the oldest lines of a section over its max_chars out as
// one-line pointers, their full text going to a detail file. The guards decide whether an LLM's
// synthesis may replace the overview.
import { parseOverview, replaceSectionContent, slugify, type Overview, type Section } from './overview.js';
import { DECISION_IMPORTANCE, type Note } from './scratch.js';
import { canonical } from './workspace.js';
import { keywordsOf, oneSpaced } from './text.js';
import { findSecret } from './gate.js';

export { DECISION_IMPORTANCE };
export const MAX_POINTERS = 20;
export const POINTER_LINE = /^\s*[-*+]\s+Past:\s/;

/** Lines of a section pushed out of the overview: the pointer that replaces them and the detail file that keeps them. */
export interface Eviction {
  sectionId: string;
  sectionTitle: string;
  /** The lines pushed out, when the merge kept them (empty when they were streamed to a file). */
  lines: string[];
  /** How many lines were pushed out. */
  count: number;
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
  /** `text` with index lines for more detail files (addIndexLines without parsing it again). */
  withIndex(lines: string[]): string;
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
  let text = note.text.includes('\n') ? note.text.replace(/\s*\r?\n\s*/g, ' ').trim() : note.text.trim();
  for (const tag of note.tags) {
    if (tagNamesSection(tag, section)) text = oneSpaced(withoutTag(text, tag));
  }
  return `- ${text}`;
}

const slugs = new Map<string, string>();
/** slugify, remembered: the same few tags and titles come back on every note. */
function slugOf(text: string): string {
  let slug = slugs.get(text);
  if (slug === undefined) slugs.set(text, (slug = slugify(text)));
  return slug;
}

function tagNamesSection(tag: string, section: Section): boolean {
  return tag === section.id || slugOf(tag) === section.id || slugOf(tag) === slugOf(section.title);
}

const SPACE = /\s/u;

/** `text` without its first `#tag` that stands as a word of its own (after a space or at the start). */
function withoutTag(text: string, tag: string): string {
  const mark = '#' + tag;
  for (let at = text.indexOf(mark); at >= 0; at = text.indexOf(mark, at + 1)) {
    const end = at + mark.length;
    if ((at === 0 || SPACE.test(text[at - 1])) && (end === text.length || SPACE.test(text[end]))) return text.slice(0, at) + text.slice(end);
  }
  return text;
}


function topicOf(sectionTitle: string, firstLine: string, count: number): string {
  const first = stripListMarker(firstLine).replace(/[`*_]/g, '');
  const short = first.split(/\s+/).slice(0, 8).join(' ');
  const more = count > 1 ? ` (+${count - 1} more)` : '';
  return `${sectionTitle}: ${short.length > 70 ? short.slice(0, 69) + '…' : short}${more}`;
}

/** `- Past: <topic> → search: \`<keywords>\`` */
export function pointerLine(topic: string, keywords: string[]): string {
  const words = keywords.map((k) => k.replace(/`/g, '')).filter(Boolean);
  return `- Past: ${topic.replace(/`/g, "'")} → search: \`${words.join(' ') || 'past'}\``;
}

/** At most this many of a section's pushed-out lines feed its pointer's keywords (the first and last halves). */
const KEYWORD_SAMPLE = 600;

/** The pushed-out lines that feed the keywords: all of them, or the oldest and newest when many. */
class LineSample {
  private head: string[] = [];
  private tail: string[] = [];
  private next = 0;
  count = 0;
  first: string | undefined;

  add(line: string): void {
    this.count++;
    this.first ??= line;
    if (this.head.length < KEYWORD_SAMPLE / 2) return void this.head.push(line);
    // A ring of the newest lines, so memory stays bounded whatever the count.
    if (this.tail.length < KEYWORD_SAMPLE / 2) this.tail.push(line);
    else this.tail[this.next] = line;
    this.next = (this.next + 1) % (KEYWORD_SAMPLE / 2);
  }

  lines(): string[] {
    return [...this.head, ...this.tail.slice(this.next), ...this.tail.slice(0, this.next)];
  }
}

function makeEviction(section: Pick<Section, 'id' | 'title'>, sample: LineSample, lines: string[]): Eviction {
  const keywords = keywordsOf(sample.lines().map(stripListMarker));
  const topic = topicOf(section.title, sample.first ?? '', sample.count);
  return { sectionId: section.id, sectionTitle: section.title, lines, count: sample.count, topic, keywords, pointer: pointerLine(topic, keywords) };
}

function splitLines(content: string): string[] {
  return content ? content.split('\n') : [];
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
  notes: Iterable<Note>;
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

/**
 * One section's lines as notes arrive: the protected lines (a seeded overview's own text) stay;
 * the movable ones are a queue whose oldest lines leave, to `evict`, as soon as the section is
 * over its limit. The kept lines are then the longest newest run that fits, the same as dropping
 * the oldest until it fits at the end, but with memory bounded by the limit, whatever the input.
 */
class SectionFill {
  readonly protectedLines: string[];
  private movable: string[];
  private head = 0;
  private length: number;
  added = 0;
  readonly sample = new LineSample();

  constructor(
    readonly section: Section,
    existing: string[],
    firstMovable: number,
    private readonly limit: number | undefined,
    private readonly evict: (sectionId: string, line: string) => void,
  ) {
    this.protectedLines = existing.slice(0, firstMovable);
    this.movable = existing.slice(firstMovable);
    this.length = existing.reduce((n, l) => n + l.length + 1, -1);
  }

  add(line: string): void {
    this.movable.push(line);
    this.length += line.length + 1;
    this.added++;
    this.fit();
  }

  /** Drops the oldest movable lines while over the limit (blank lines leave without a trace). */
  fit(): void {
    if (this.limit === undefined) return;
    while (this.length > this.limit && this.head < this.movable.length) {
      const line = this.movable[this.head++];
      this.length -= line.length + 1;
      if (line.trim()) {
        this.sample.add(line);
        this.evict(this.section.id, line);
      }
    }
    // Compact the queue now and then, so it holds about the limit's worth of lines.
    if (this.head > 1024 && this.head * 2 > this.movable.length) {
      this.movable = this.movable.slice(this.head);
      this.head = 0;
    }
  }

  lines(): string[] {
    return [...this.protectedLines, ...this.movable.slice(this.head)];
  }

  get changed(): boolean {
    return this.added > 0 || this.sample.count > 0;
  }
}

/**
 * Folds notes into an overview one at a time (mergeNotes for a whole list). Pushed-out lines go
 * to `evict` as they leave, so a caller can stream them to a file; without one they are kept on
 * the plan's evictions. Duplicates are found by a hash of each line's canonical form.
 */
export class NoteMerger {
  private readonly overview: Overview;
  private readonly known = new KeySet();
  private readonly fills = new Map<string, SectionFill>();
  private readonly routes = new Map<string, Section>();
  private readonly kept = new Map<string, string[]>();
  readonly placed: Record<string, number> = {};
  folded = 0;

  constructor(
    private readonly input: Omit<MergeInput, 'notes'>,
    private readonly evict?: (sectionId: string, line: string) => void,
  ) {
    this.overview = parseOverview(input.overviewText, input.file ?? 'overview.md');
    for (const s of this.overview.sections) for (const line of splitLines(s.content)) if (lineKey(line)) this.known.add(KEY.a, KEY.b);
  }

  add(note: Note): void {
    const section = this.route(note);
    const line = noteLine(note, section);
    if (!lineKey(line) || !this.known.add(KEY.a, KEY.b)) {
      this.folded++;
      return;
    }
    this.fill(section).add(line);
    this.placed[section.id] = (this.placed[section.id] ?? 0) + 1;
  }

  private route(note: Note): Section {
    if (note.tags.length > 3) return routeNote(note, this.overview);
    const key = (note.importance >= DECISION_IMPORTANCE ? 'd' : 'c') + (note.tags.length ? ' ' + note.tags.join(' ') : '');
    let section = this.routes.get(key);
    if (!section) this.routes.set(key, (section = routeNote(note, this.overview)));
    return section;
  }

  private fill(section: Section): SectionFill {
    let fill = this.fills.get(section.id);
    if (!fill) {
      const existing = splitLines(section.content);
      const sink = this.evict ?? ((id: string, line: string) => this.kept.get(id)!.push(line));
      this.kept.set(section.id, []);
      fill = new SectionFill(section, existing, this.input.appendOnly ? existing.length : 0, sectionLimit(section), sink);
      this.fills.set(section.id, fill);
    }
    return fill;
  }

  finish(): MergePlan {
    let indexed = 0;
    const details = this.overview.sections.find((s) => s.id === 'details');
    if (details && this.input.newDetails?.length) {
      const lines = this.input.newDetails.filter((d) => !this.input.overviewText.includes(d.rel)).map((d) => `- ${d.rel} — ${d.title.replace(/\s+/g, ' ').trim()}`);
      const fill = this.fill(details);
      for (const line of lines) fill.add(line);
      indexed = lines.length;
    }
    // A section already over its bound (a hand edit, a smaller limit) is fitted too.
    for (const section of this.overview.sections) {
      const limit = sectionLimit(section);
      if (!this.fills.has(section.id) && limit !== undefined && section.content.trim().length > limit) this.fill(section).fit();
    }
    const evictions: Eviction[] = [];
    const contents = new Map<string, string[]>();
    for (const section of this.overview.sections) {
      const fill = this.fills.get(section.id);
      if (!fill?.changed) continue;
      contents.set(section.id, fill.lines());
      if (fill.sample.count) evictions.push(makeEviction(section, fill.sample, this.kept.get(section.id) ?? []));
    }
    const pointerLines = evictions.map((e) => e.pointer);
    if (pointerLines.length) this.placePointers(pointerLines, contents, evictions);
    const render = (all: Map<string, string[]>) => (all.size ? replaceSections(this.overview, new Map([...all].map(([id, lines]) => [id, lines.join('\n')]))) : this.input.overviewText);
    const text = render(contents);
    const withIndex = (lines: string[]) => {
      const missing = lines.filter((l) => !text.includes(/detail\/\S+/.exec(l)?.[0] ?? l));
      if (!missing.length) return text;
      const target = details ?? this.overview.sections[this.overview.sections.length - 1];
      return render(new Map([...contents, [target.id, [...(contents.get(target.id) ?? splitLines(target.content)), ...missing]]]));
    };
    return { text, evictions, placed: this.placed, folded: this.folded, indexed, withIndex };
  }

  /** The new pointers go to the pointers section (else the last one); past 20, the oldest fold into one. */
  private placePointers(pointerLines: string[], contents: Map<string, string[]>, evictions: Eviction[]): void {
    const pointers = this.overview.sections.find((s) => s.id === 'pointers');
    const target = pointers ?? this.overview.sections[this.overview.sections.length - 1];
    let lines = [...(contents.get(target.id) ?? splitLines(target.content)), ...pointerLines];
    const isPointer = (l: string) => POINTER_LINE.test(l);
    const count = lines.filter(isPointer).length;
    if (pointers && count > MAX_POINTERS) {
      // The oldest pointers fold into one, their lines kept in a detail file like any eviction.
      const folding = lines.filter(isPointer).slice(0, count - MAX_POINTERS + 1);
      const leaving = new Set(folding);
      lines = lines.filter((l) => !leaving.has(l));
      const sample = new LineSample();
      for (const l of folding) sample.add(l.replace(/^.*search:\s*`|`\s*$/g, ''));
      const keywords = keywordsOf(sample.lines(), 5);
      const topic = `${folding.length} older topics`;
      evictions.push({ sectionId: 'pointers', sectionTitle: pointers.title, lines: folding, count: folding.length, topic, keywords, pointer: pointerLine(topic, keywords) });
      lines.unshift(evictions[evictions.length - 1].pointer);
    }
    contents.set(target.id, lines);
  }
}


/**
 * A 64-bit hash of a line's canonical form (two 32-bit FNV-1a style passes), left in KEY: the
 * duplicate check keeps numbers, not a million strings. A collision would fold a note out of the
 * overview, never out of the scratch archive that keeps every note. ASCII lines are hashed as
 * they are read (letters lowered, every other run one space, the ends trimmed: what canonical()
 * gives for ASCII). Returns false for a line with no canonical text.
 */
export function lineKey(line: string): boolean {
  // A note's line is "- text": the marker's length without a regex, for the common case.
  const plain = line.charCodeAt(0) === 45 && line.charCodeAt(1) === 32 && line.charCodeAt(2) > 32 && line.charCodeAt(2) !== 91;
  const start = plain ? 2 : (/^\s*(?:[-*+]|\d+[.)])\s+(?:\[[ xX]\]\s+)?/.exec(line)?.[0].length ?? 0);
  let a = 0x811c9dc5;
  let b = 0x01000193;
  let pendingSpace = false;
  let any = false;
  for (let i = start; i < line.length; i++) {
    let c = line.charCodeAt(i);
    if (c > 0x7e) return hashText(canonical(stripListMarker(line)));
    if (c >= 65 && c <= 90) c += 32;
    else if (!((c >= 97 && c <= 122) || (c >= 48 && c <= 57))) {
      pendingSpace = any;
      continue;
    }
    if (pendingSpace) {
      a = Math.imul(a ^ 32, 0x01000193);
      b = Math.imul(b ^ 32, 0x5bd1e995);
      pendingSpace = false;
    }
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
    any = true;
  }
  KEY.a = a >>> 0;
  KEY.b = b >>> 0;
  return any;
}

/** The key lineKey (or hashText) computed last. */
export const KEY = { a: 0, b: 0 };

/** lineKey's hash of a text already canonical. */
export function hashText(text: string): boolean {
  let a = 0x811c9dc5;
  let b = 0x01000193;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
  }
  KEY.a = a >>> 0;
  KEY.b = b >>> 0;
  return text.length > 0;
}

/**
 * A set of 64-bit keys (two 32-bit halves) in flat typed arrays with open addressing: no object
 * per entry, so a million notes cost the collector nothing.
 */
class KeySet {
  private hi = new Uint32Array(1 << 12);
  private lo = new Uint32Array(1 << 12);
  private used = new Uint8Array(1 << 12);
  private size = 0;

  /** Adds the key; false if it was there already. */
  add(a: number, b: number): boolean {
    if ((this.size + 1) * 2 > this.used.length) this.grow();
    const mask = this.used.length - 1;
    for (let i = (a ^ Math.imul(b, 0x9e3779b1)) & mask; ; i = (i + 1) & mask) {
      if (!this.used[i]) {
        this.used[i] = 1;
        this.hi[i] = a;
        this.lo[i] = b;
        this.size++;
        return true;
      }
      if (this.hi[i] === a >>> 0 && this.lo[i] === b >>> 0) return false;
    }
  }

  private grow(): void {
    const { hi, lo, used } = this;
    this.hi = new Uint32Array(used.length * 2);
    this.lo = new Uint32Array(used.length * 2);
    this.used = new Uint8Array(used.length * 2);
    this.size = 0;
    for (let i = 0; i < used.length; i++) if (used[i]) this.add(hi[i], lo[i]);
  }
}

export function mergeNotes(input: MergeInput): MergePlan {
  const merger = new NoteMerger(input);
  for (const note of input.notes) merger.add(note);
  return merger.finish();
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

/** Accepts a candidate overview only past every guard (docs/compaction.md); returns the first refusal. */
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
