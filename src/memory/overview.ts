// overview.md as a tree: front matter (gray-matter) and level-2 sections (remark). Edits are
// made by splicing the source at the offsets remark reports, so everything outside the edited
// section stays byte for byte as the agent or person wrote it. The usual overview is read by a
// line scanner that gives the same answers (overview-scan.ts); remark and gray-matter load only
// for text it declines: require(), which the bundles turn into a lazy initialisation, keeps
// their loading (~60 ms, esprima included) off the hooks that never need them.
import type GrayMatter from 'gray-matter';
import type { Processor } from 'unified';
import type { Root, RootContent, Heading } from 'mdast';
import { usageError } from '../ui/errors.js';
import { mayHoldSectionHeading, scanFrontMatter, scanHeadings, type ScannedHeading } from './overview-scan.js';

export interface SectionSpec {
  id: string;
  title: string;
  maxChars?: number;
  required?: boolean;
}

export interface Section {
  id: string;
  title: string;
  maxChars?: number;
  required: boolean;
  /** Offsets into the body (the text after the front matter). */
  headingStart: number;
  headingEnd: number;
  end: number;
  /** Leading HTML comments: the template's guidance for the agent, kept through edits. */
  guidance: string;
  /** The section's own text, without guidance, trimmed. */
  content: string;
}

export interface ParseOptions {
  /**
   * For rendering only: accept what an agent's hand edit may leave (invalid front matter, a
   * renamed required section, no sections at all) instead of refusing, so that the context is
   * never lost. Edits always parse strictly.
   */
  lenient?: boolean;
}

/** Leading blank lines and trailing whitespace go; the first line's indentation stays. */
export function trimBlock(text: string): string {
  return text.replace(/^(?:[ \t]*\r?\n)+/, '').replace(/\s+$/, '');
}

/** Characters as a person counts them (code points), not UTF-16 units. */
export function charCount(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

export interface Overview {
  /** The raw front matter block including its fences, or '' when there is none. */
  frontMatterRaw: string;
  frontMatter: Record<string, unknown>;
  body: string;
  /** Text before the first section (the title line, usually). */
  preamble: string;
  sections: Section[];
  /** Set in lenient mode when the file could not be read as sections; the reason. */
  problem?: string;
}

let markdown: Processor | undefined;

export function parseMarkdown(text: string): Root {
  if (!markdown) {
    const { unified } = require('unified') as typeof import('unified');
    const remarkParse = (require('remark-parse') as typeof import('remark-parse')).default;
    markdown = unified().use(remarkParse) as unknown as Processor;
  }
  return markdown.parse(text) as Root;
}

/** A heading's plain text, as remark sees it. */
export function nodeText(node: RootContent | Root): string {
  if ('value' in node && typeof node.value === 'string') return node.value;
  if ('children' in node) return (node.children as RootContent[]).map(nodeText).join('');
  return '';
}

export function slugify(title: string): string {
  return title
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '-')
    .replace(/^-+|-+$/g, '');
}

function sectionSpecs(frontMatter: Record<string, unknown>, file: string): SectionSpec[] {
  const raw = frontMatter.sections;
  if (raw === undefined || raw === null) return [];
  if (typeof raw !== 'object' || Array.isArray(raw)) {
    throw usageError(`${file}: front matter "sections" must be a mapping of id → {title, max_chars}`, 'compare it with templates/overview.md');
  }
  return Object.entries(raw as Record<string, unknown>).map(([id, value]) => {
    const spec = (value && typeof value === 'object' ? value : {}) as Record<string, unknown>;
    const max = spec.max_chars;
    if (max !== undefined && (typeof max !== 'number' || !Number.isInteger(max) || max <= 0)) {
      throw usageError(`${file}: sections.${id}.max_chars must be a positive whole number, not ${JSON.stringify(max)}`);
    }
    return {
      id,
      title: typeof spec.title === 'string' ? spec.title : typeof value === 'string' ? value : id,
      maxChars: max as number | undefined,
      required: spec.required === true,
    };
  });
}

function splitFrontMatter(text: string, file: string, lenient: boolean): { raw: string; data: Record<string, unknown>; body: string; problem?: string } {
  if (!/^---\r?\n/.test(text)) return { raw: '', data: {}, body: text };
  const scanned = scanFrontMatter(text);
  if (scanned) return scanned;
  let parsed: GrayMatter.GrayMatterFile<string>;
  try {
    const matter = require('gray-matter') as typeof GrayMatter;
    // gray-matter caches by input string; an empty options object turns the cache off.
    parsed = matter(text, {});
  } catch (err) {
    const lines = ((err as Error).message ?? String(err)).split('\n').filter((l) => l.trim());
    const reason = lines.slice(0, 2).join(' ').replace(/\s+/g, ' ');
    const problem = `${file}: the front matter is not valid YAML: ${reason}`;
    if (lenient) {
      // Drop the fenced block by its closing fence so that the rest still renders.
      const close = /\r?\n---[ \t]*(?:\r?\n|$)/.exec(text.slice(3));
      const bodyStart = close ? 3 + close.index + close[0].length : 0;
      return { raw: text.slice(0, bodyStart), data: {}, body: text.slice(bodyStart), problem };
    }
    throw usageError(problem, 'fix the block between the two --- lines, or restore it from templates/overview.md');
  }
  const body = parsed.content;
  return { raw: text.slice(0, text.length - body.length), data: (parsed.data ?? {}) as Record<string, unknown>, body };
}

/** The level-2 headings by remark's tree (what scanHeadings answers for plain text). */
function headingsOf(body: string): ScannedHeading[] {
  const tree = parseMarkdown(body);
  // Only level-2 headings delimit sections; a level-1 title belongs to the text around it.
  const found: Array<{ node: Heading; index: number }> = [];
  tree.children.forEach((node, index) => {
    if (node.type === 'heading' && node.depth === 2) found.push({ node, index });
  });
  return found.map(({ node, index }, i) => {
    const end = i + 1 < found.length ? found[i + 1].node.position!.start.offset! : body.length;
    // Leading HTML comments are the template's guidance; the rest is the agent's content.
    let guidanceEnd = node.position!.end.offset!;
    for (let j = index + 1; j < tree.children.length; j++) {
      const child = tree.children[j];
      if (child.position!.start.offset! >= end) break;
      if (child.type !== 'html' || !/^<!--[\s\S]*-->$/.test(child.value.trim())) break;
      guidanceEnd = child.position!.end.offset!;
    }
    return { start: node.position!.start.offset!, end: node.position!.end.offset!, guidanceEnd, title: nodeText(node).trim() };
  });
}

export function parseOverview(text: string, file = 'overview.md', options: ParseOptions = {}): Overview {
  const lenient = options.lenient === true;
  const front = splitFrontMatter(text, file, lenient);
  const { raw, body } = front;
  let problem = front.problem;
  let specs: SectionSpec[] = [];
  try {
    specs = sectionSpecs(front.data, file);
  } catch (err) {
    if (!lenient) throw err;
    problem ??= (err as Error).message;
  }
  const headings = scanHeadings(body) ?? headingsOf(body);
  const sections: Section[] = [];
  const usedIds = new Set<string>();
  for (let i = 0; i < headings.length; i++) {
    const { title, start: headingStart, end: headingEnd, guidanceEnd } = headings[i];
    const folded = title.toLowerCase();
    const spec = specs.find((s) => s.title === title) ?? specs.find((s) => s.title.toLowerCase() === folded) ?? specs.find((s) => s.id === slugify(title));
    let id = spec?.id ?? (slugify(title) || `section-${sections.length + 1}`);
    if (usedIds.has(id)) {
      const first = sections.find((s) => s.id === id);
      const line = body.slice(0, headingStart).split(/\r\n|\r|\n/).length;
      const message = `${file} has two "## ${title}" sections (the second at line ${line}${first ? `, the first titled "${first.title}"` : ''})`;
      if (!lenient) throw usageError(message, 'merge them into one section');
      problem ??= message;
      let n = 2;
      while (usedIds.has(`${id}-${n}`)) n++;
      id = `${id}-${n}`;
    }
    usedIds.add(id);
    const end = i + 1 < headings.length ? headings[i + 1].start : body.length;
    sections.push({
      id,
      title,
      maxChars: spec?.maxChars,
      required: spec?.required ?? false,
      headingStart,
      headingEnd,
      end,
      guidance: body.slice(headingEnd, guidanceEnd).trim(),
      content: trimBlock(body.slice(guidanceEnd, end)),
    });
  }
  const firstStart = headings.length ? headings[0].start : body.length;
  const preamble = body.slice(0, firstStart);
  if (sections.length === 0) {
    const message = `${file} has no sections (no "## " headings)`;
    if (!lenient) throw usageError(message, 'add "## " headings (templates/overview.md shows the usual ones)');
    problem ??= message;
  }
  for (const spec of specs) {
    if (spec.required && !sections.some((s) => s.id === spec.id)) {
      const message = `${file} is missing the required section "${spec.id}" (## ${spec.title})`;
      if (!lenient) throw usageError(message, `add a "## ${spec.title}" heading back (or rename the heading that replaced it)`);
      problem ??= message;
    }
  }
  return { frontMatterRaw: raw, frontMatter: front.data, body, preamble, sections, problem };
}

/** Finds a section by id, slug of its title, or its exact title. */
export function findSection(overview: Overview, key: string, file = 'overview.md'): Section {
  const wanted = key.trim();
  const found =
    overview.sections.find((s) => s.id === wanted) ??
    overview.sections.find((s) => slugify(s.title) === slugify(wanted)) ??
    overview.sections.find((s) => s.title.toLowerCase() === wanted.toLowerCase());
  if (!found) {
    throw usageError(`unknown section "${key}" in ${file}`, `known sections: ${overview.sections.map((s) => s.id).join(', ')}`);
  }
  return found;
}

/** The whole file with one section's content replaced; the heading and guidance stay. */
export function replaceSectionContent(overview: Overview, section: Section, content: string): string {
  return replaceSectionContents(overview, [{ section, content }]);
}

/**
 * The whole file with several sections' content replaced (distinct sections of one parse): edited
 * from the last section up, so the offsets of those before stay valid, and checked once. The
 * Markdown parse is most of an edit's cost (a compaction hook edits two sections).
 */
export function replaceSectionContents(overview: Overview, edits: Array<{ section: Section; content: string }>): string {
  let body = overview.body;
  for (const { section, content } of [...edits].sort((a, b) => b.section.headingStart - a.section.headingStart)) {
    const trimmed = trimBlock(content);
    const parts = [section.guidance, trimmed].filter((p) => p !== '');
    const block = parts.length ? `\n${parts.join('\n')}\n\n` : '\n\n';
    body = body.slice(0, section.headingEnd) + block + body.slice(section.end).replace(/^\n+/, '');
  }
  const next = overview.frontMatterRaw + body.replace(/\n*$/, '\n');
  assertSameStructure(overview, next);
  return next;
}

/**
 * Text that opens a code fence, an HTML comment or a <pre> block without closing it would swallow
 * the headings after it. Every edit is checked by parsing the result: the sections must be the
 * same, in the same order, with the same titles.
 */
function assertSameStructure(before: Overview, nextText: string): void {
  const after = parseOverview(nextText, 'overview.md', { lenient: true });
  const shape = (o: Overview) => o.sections.map((s) => `${s.id}\u0000${s.title}`).join('\n');
  if (shape(after) !== shape(before)) {
    throw usageError(
      'the text would change the sections of overview.md (an unclosed ``` fence, <!-- comment or HTML block swallows the headings after it)',
      'close the fence or comment inside the text, or indent code by four spaces',
    );
  }
}

function isListLine(text: string): boolean {
  return /^\s*(?:[-*+]|\d+[.)])\s/.test(text);
}

/** Joins new text under existing content: list items stay one list, paragraphs get a blank line. */
export function joinContent(existing: string, addition: string): string {
  const added = trimBlock(addition);
  if (!existing) return added;
  const lastLine = existing.split('\n').at(-1) ?? '';
  const separator = isListLine(lastLine) && isListLine(added) ? '\n' : '\n\n';
  return existing + separator + added;
}

/** Refuses text that would open or close sections when put inside one. */
export function assertSectionText(text: string, what: string): void {
  if (mayHoldSectionHeading(text) === false) return;
  const tree = parseMarkdown(text);
  const heading = tree.children.find((n) => n.type === 'heading' && (n as Heading).depth <= 2) as Heading | undefined;
  if (heading) {
    throw usageError(
      `${what} contains a level-${heading.depth} heading ("${nodeText(heading).trim()}"), which would start a new section`,
      'use ### for headings inside a section',
    );
  }
}

export function assertWithinLimit(section: Section, content: string, file: string): void {
  const length = charCount(content);
  if (section.maxChars !== undefined && length > section.maxChars) {
    throw usageError(
      `section "${section.id}" of ${file} is limited to ${section.maxChars} characters; the new text would make it ${length}`,
      'shorten it, or put the long material in detail/ and leave a line here',
    );
  }
}

/** The template with no content written yet: a harness keeps full history until it is filled. */
export function isMaintained(overview: Overview): boolean {
  return overview.sections.some((s) => s.content !== '');
}

/** The overview as injected: no front matter. */
export function injectableOverview(overview: Overview): string {
  return overview.body.trim();
}
