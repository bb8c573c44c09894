// Pure: the two parts `wmem context` injects (docs/context.md). The memory part depends only on the
// files (same files → same bytes: no clock, no counters); the meta part carries the volatile
// token figures. Text inside a block is neutralised so it cannot close or forge a block.

import type { MetaFigures } from '../memory/meter.js';
import { lazyRegExp } from '../memory/lazy-regexp.js';
import { entryOf } from '../ui/json.js';
import { allocate, entrySize, renderPart, splitEntries, takeOrder, type Entry, type PartCut, type PartPlan } from './budget.js';

export { actionHintFor, budgetForTokensMax, metaFigures, pressureFor } from '../memory/meter.js';
export type { ActionHint, MetaFigures, Pressure, TokensSource } from '../memory/meter.js';

export const BLOCK_TAGS = [
  'working_memory',
  'scratch_notes',
  'workspace_memory',
  'workspace_memory_candidates',
  'session_state',
  'context_meta',
  'previous_session',
] as const;

// Built on first use (lazyRegExp): its unicode classes cost ~1.8 M instructions to parse, on every
// prompt that loads this module, though most never escape a tag.
const TAG_LIKE = lazyRegExp(`<(\\s*/?\\s*)(${BLOCK_TAGS.join('|')})(?![\\p{L}\\p{N}_])`, 'giu');

// A cheap first look: every block tag starts with w, s, c or p, and under the unicode case folding
// of TAG_LIKE only 'ſ' (U+017F) folds to one of them. Text that fails this (most text, and the
// templates' <!-- comments -->) cannot match TAG_LIKE, whose unicode classes cost ~0.5 ms to
// compile on first use: real time on a command that runs on every prompt.
// ſ spelled \u017F: one non-ASCII character would make the whole bundle a two-byte string.
const MAYBE_TAG = /<\s*\/?\s*[wscp\u017F]/i;

/** Makes `<working_memory>`, `</scratch_notes >` and the like inert inside block content. */
export function neutralizeTags(text: string): string {
  const visible = neutralizeControls(text);
  if (!MAYBE_TAG.test(visible)) return visible;
  return visible.replace(TAG_LIKE(), (_m, gap: string, name: string) => `&lt;${gap}${name}`);
}

// Control characters (but tab and newline) and the bidirectional overrides and isolates, which
// can reorder what the model or a person reads (U+202E turns the rest of a line around).
const CONTROLS = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/g;

/** Shows such characters as `[U+202E]` rather than letting them act. */
export function neutralizeControls(text: string): string {
  CONTROLS.lastIndex = 0;
  if (!CONTROLS.test(text)) return text;
  return text.replace(CONTROLS, (c) => `[U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}]`);
}

export interface OverviewUnit {
  id: string;
  /** Heading, guidance and content, trimmed. */
  text: string;
  empty: boolean;
}

export interface OverviewDigest {
  /** What is wrong with overview.md, shown to the agent so it can repair the file. */
  problem?: string;
  preamble: string;
  sections: OverviewUnit[];
  maintained: boolean;
}

export interface MemoryInputs {
  overview: OverviewDigest;
  /** Scratch lines as stored (notes and unparsed lines), oldest first. */
  scratchLines: string[];
  workspace?: string;
  /** Lines of `workspace` the user explicitly asked to remember (explicit and feedback entries): cut last. */
  workspacePinned?: string[];
  sessionState?: string;
  /** The handoff from the project's previous session, frozen when this one started (memory/handoff.ts). */
  handoff?: string;
  /** Real paths for the notices (default: relative names). */
  where?: MemoryWhere;
}

/** A block of the memory part: one of the tags above (the candidates and meta blocks are not in it). */
export type Block = Exclude<(typeof BLOCK_TAGS)[number], 'workspace_memory_candidates' | 'context_meta'>;

/** A part besides the overview's sections: its block, its share and rank (see budget.ts), and where the rest is. */
interface PartSpec {
  block: Block;
  share: number;
  rank: number;
  keep: 'first' | 'last';
  entries: (inputs: MemoryInputs) => Entry[];
  /** What was left out, for the closing notice ("12 workspace entries"). */
  label: (omitted: number) => string;
  /** The marker line where entries were left out: says where the rest is. */
  marker: (omitted: number) => string;
  yieldsToPinned?: boolean;
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

// The parts after the working memory, in the order of their blocks. Shares are characters at the
// 8,000-character budget (scaled to the budget in use) and add up with the sections' (docs/context.md).
// A new part is one line here, plus its input in MemoryInputs and its tag in BLOCK_TAGS: its
// block, share, rank (heads and leftovers go in rank order), the end that survives a cut, how its
// text splits into entries (lineEntries: a line each; splitEntries: Markdown items and
// paragraphs), and the marker that says where the rest is.
const PARTS: PartSpec[] = [
  // The handoff is frozen within its own budget (memory/handoff.ts); its last line says where the rest is, so it is kept first.
  { block: 'previous_session', share: 1100, rank: 7, keep: 'first', entries: (i) => handoffEntries(i.handoff), label: (n) => plural(n, 'line of the previous session', 'lines of the previous session'), marker: (n) => `[wmem: ${plural(n, 'more line', 'more lines')} of the previous session: its overview and wmem search --session, named below]` },
  { block: 'session_state', share: 300, rank: 5, keep: 'first', entries: (i) => lineEntries(i.sessionState), label: (n) => plural(n, 'line of session state', 'lines of session state'), marker: (n) => `[wmem: ${plural(n, 'more line', 'more lines')} of session state: wmem status, wmem show scratch]` },
  { block: 'workspace_memory', share: 1000, rank: 6, keep: 'first', entries: (i) => lineEntries(i.workspace, i.workspacePinned), label: (n) => plural(n, 'workspace entry', 'workspace entries'), marker: (n) => `[wmem: ${plural(n, 'more entry', 'more entries')} of workspace memory: wmem memories, wmem search]` },
  { block: 'scratch_notes', share: 200, rank: 9, keep: 'last', entries: (i) => i.scratchLines.map((text) => ({ text, gap: 0 })), label: (n) => plural(n, 'older scratch note', 'older scratch notes'), marker: (n) => `[wmem: ${plural(n, 'older note', 'older notes')}: wmem show scratch]` },
];

/** Each section's share and rank, and the end that survives a cut (the newest entries are last). */
const SECTION_PARTS: Record<string, { share: number; rank: number; keep: 'first' | 'last' }> = {
  task: { share: 500, rank: 0, keep: 'first' },
  progress: { share: 1000, rank: 1, keep: 'first' },
  decisions: { share: 1200, rank: 2, keep: 'last' },
  context: { share: 900, rank: 3, keep: 'first' },
  open: { share: 500, rank: 4, keep: 'first' },
  recent: { share: 300, rank: 8, keep: 'last' },
  pointers: { share: 300, rank: 10, keep: 'last' },
  details: { share: 200, rank: 11, keep: 'last' },
};
const OTHER_SECTION = { share: 200, rank: 12, keep: 'first' as const };

export interface Part extends PartPlan {
  block: Block;
  spec?: PartSpec;
}

function lineEntries(text: string | undefined, pinned: string[] = []): Entry[] {
  const trimmed = text?.trim();
  if (!trimmed) return [];
  const keep = new Set(pinned.map(neutralizeTags));
  return neutralizeTags(trimmed)
    .split('\n')
    .map((line) => ({ text: line, gap: 0, ...(keep.has(line) ? { pinned: true } : {}) }));
}

/** The handoff's lines; its last line (where the rest of that session is) is pinned, kept before the others. */
function handoffEntries(text: string | undefined): Entry[] {
  const entries = lineEntries(text);
  if (entries.length) entries[entries.length - 1].pinned = true;
  return entries;
}

function sectionPart(section: OverviewUnit): Part {
  const text = neutralizeTags(section.text);
  const cut = text.indexOf('\n');
  const header = cut < 0 ? text : text.slice(0, cut);
  const entries = cut < 0 ? [] : splitEntries(trimBody(text.slice(cut + 1)));
  const label = `section ${section.id}`;
  if (section.empty) return { block: 'working_memory', label, header, entries: entries.length ? [{ text: entries.map((e) => e.text).join('\n'), gap: 0 }] : [], keep: 'first', share: 0, rank: 40, optional: true };
  const spec = entryOf(SECTION_PARTS, section.id) ?? OTHER_SECTION;
  return { block: 'working_memory', label, header, entries, ...spec, marker: sectionMarker(spec.keep), yieldsToPinned: section.id === 'decisions' };
}

/** A section's marker line, by the end of it that survives a cut. */
const sectionMarker =
  (keep: 'first' | 'last') =>
  (n: number): string =>
    `[wmem: ${plural(n, keep === 'last' ? 'earlier entry' : 'more entry', keep === 'last' ? 'earlier entries' : 'more entries')} of this section: wmem show overview]`;

function trimBody(text: string): string {
  return text.replace(/^(?:[ \t]*\n)+/, '').replace(/\s+$/, '');
}

/** The parts of one block, in the order the budget sees them (working memory first, then PARTS'). */
function blockParts(inputs: MemoryInputs, where: MemoryWhere, block: Block): Part[] {
  const parts: Part[] = [];
  if (block === 'working_memory') {
    const fixed = (label: string, text: string, rank: number) => parts.push({ block: 'working_memory', label, header: neutralizeTags(text), entries: [], keep: 'first', share: 0, rank });
    if (inputs.overview.problem) fixed('problem', `[wmem: ${inputs.overview.problem}. Repair ${where.overview}; wmem set and append refuse to edit it until then.]`, -2);
    const preamble = inputs.overview.preamble.trim();
    if (preamble) fixed('title', preamble, -1);
    for (const section of inputs.overview.sections) parts.push(sectionPart(section));
  }
  for (const spec of PARTS) {
    if (spec.block !== block) continue;
    const entries = spec.entries(inputs);
    if (entries.length) parts.push({ block: spec.block, label: spec.label(entries.length), header: '', entries, keep: spec.keep, share: spec.share, rank: spec.rank, marker: spec.marker, spec });
  }
  return parts;
}

/**
 * What each block is rendered from, and nothing else (with where the files are, which notices
 * name): a block whose inputs are unchanged renders to the same text, so a caller may keep it.
 * test/unit/render-block-inputs.test.ts holds every field of MemoryInputs to it.
 */
export function blockInputs(inputs: MemoryInputs, block: Block): unknown {
  const where = inputs.where ?? RELATIVE_WHERE;
  switch (block) {
    case 'working_memory':
      return [where, inputs.overview];
    case 'previous_session':
      return [where, inputs.handoff];
    case 'session_state':
      return [where, inputs.sessionState];
    case 'workspace_memory':
      return [where, inputs.workspace, inputs.workspacePinned];
    case 'scratch_notes':
      return [where, inputs.scratchLines];
    default: {
      // A new block must name its inputs here, or the render cache would keep it stale.
      const unknown: never = block;
      throw new Error(`no inputs listed for the memory block ${String(unknown)}`);
    }
  }
}

/**
 * Each block's parts (blockParts) from `inputs`, made once per block however often asked: a
 * changed block is measured whole (renderBlock), then the part may be cut from the same parts
 * (cutMemory), as renderOrRecall does; not made again for the cut.
 */
export type PartsOf = (block: Block) => Part[];
export function partsOf(inputs: MemoryInputs): PartsOf {
  const where = inputs.where ?? RELATIVE_WHERE;
  const made = new Map<Block, Part[]>();
  return (block) => made.get(block) ?? (made.set(block, blockParts(inputs, where, block)), made.get(block)!);
}

/** One block whole (nothing cut), '' when it has nothing: the memory part, when it fits, is these joined (joinBlocks). */
export function renderBlock(inputs: MemoryInputs, block: Block, parts: PartsOf = partsOf(inputs)): string {
  return blockText(block, parts(block));
}

/** The blocks' texts as the memory part holds them, empty ones left out. */
export function joinBlocks(texts: string[]): string {
  return texts.filter(Boolean).join('\n');
}

function blockText(block: Block, parts: Part[], cuts?: PartCut[]): string {
  const texts = parts.flatMap((p, i) => (!cuts || cuts[i].shown ? [renderPart(p, cuts ? cuts[i].kept : p.entries.map((_, k) => k))] : []));
  // Cutting may bring text from two entries together: the tags are neutralised once more.
  return texts.length ? wrap(block, neutralizeTags(texts.join(separatorOf(block)))) : '';
}

/** The memory part's blocks, in their order. */
export const MEMORY_BLOCKS: readonly Block[] = ['working_memory', ...new Set(PARTS.map((p) => p.block))];

/**
 * The part a render cache entry without its own text stands for (store/context-cache.ts), its
 * blocks joined, when every block kept its text; and each shown block's digest (planResend's
 * record of a copy), when every one kept it.
 */
export function joinedBlocks(blocks: Record<string, { text?: string; digest?: string }>): { text: string; digests?: Record<string, string> } | undefined {
  const texts = MEMORY_BLOCKS.map((block) => blocks[block]?.text);
  if (!texts.every((t): t is string => typeof t === 'string')) return undefined;
  const shown = MEMORY_BLOCKS.filter((_, i) => texts[i]);
  const digests = shown.every((block) => typeof blocks[block].digest === 'string') ? Object.fromEntries(shown.map((block) => [block, blocks[block].digest!])) : undefined;
  return { text: joinBlocks(texts), digests };
}

/**
 * The part a render cache entry holds whole (store/context-cache.ts): its cut text, or its blocks
 * joined; with its digest (and each shown block's, or the cut text's segments', when kept). Undefined when it holds neither.
 */
export function keptPart(kept: { digest?: unknown; text?: unknown; segments?: unknown; blocks?: Record<string, { text?: string; digest?: string }> } | undefined): { text: string; digest: string; blockDigests?: Record<string, string> } | undefined {
  if (typeof kept?.digest !== 'string') return undefined;
  if (typeof kept.text === 'string') return { text: kept.text, digest: kept.digest, ...(isDigests(kept.segments) ? { blockDigests: kept.segments } : {}) };
  const joined = kept.blocks && joinedBlocks(kept.blocks);
  return joined ? { text: joined.text, digest: kept.digest, blockDigests: joined.digests } : undefined;
}

/** A record of digests by name (a cut part's segments, as the render cache holds them). */
const isDigests = (value: unknown): value is Record<string, string> => typeof value === 'object' && value !== null && !Array.isArray(value) && Object.values(value).every((d) => typeof d === 'string');

function wrap(tag: string, body: string): string {
  return `<${tag}>\n${body}\n</${tag}>`;
}

const separatorOf = (block: Block) => (block === 'working_memory' ? '\n\n' : '\n');

/**
 * Renders the memory part within `budget` characters. When it does not all fit, every non-empty
 * part keeps a share, cut at entry boundaries with a marker where the rest is (budget.ts), and a
 * closing line says what was left out.
 */
export function renderMemory(inputs: MemoryInputs, budget: number): string {
  return cutMemory(inputs, budget).text;
}

/**
 * renderMemory's text and, when it cut the part, what the cut saw of every part outside the
 * session state's block, by block (CutRecord): what recutMemory needs to cut the part again for
 * another session state without the other blocks' inputs.
 */
export function cutMemory(inputs: MemoryInputs, budget: number, partsOfBlock: PartsOf = partsOf(inputs)): { text: string; records?: Partial<Record<Block, StoredCut[]>> } {
  const where = inputs.where ?? RELATIVE_WHERE;
  const byBlock = MEMORY_BLOCKS.map(partsOfBlock);
  const parts = byBlock.flat();
  // The whole part is at least as long as its headers and entries (rendering and neutralizing
  // only add to them): past the budget already, it is not rendered whole just to be measured.
  const least = parts.reduce((n, p) => p.entries.reduce((m, e) => m + e.text.length, n + p.header.length), 0);
  if (least <= budget) {
    const full = joinBlocks(byBlock.map((ps, i) => blockText(MEMORY_BLOCKS[i], ps)));
    if (full.length <= budget) return { text: full };
  }
  const best = chooseCut(parts, budget, where);
  const text = [assemble(parts, best.cuts), best.closing].filter(Boolean).join('\n');
  if (text.length > budget) return { text: `[wmem: memory left out to fit ${budget} characters; see ${where.overview}]`.slice(0, budget) };
  const records = Object.fromEntries(MEMORY_BLOCKS.filter((b) => b !== 'session_state').map((b) => [b, [] as StoredCut[]]));
  parts.forEach((part, i) => part.block !== 'session_state' && records[part.block].push(recordOf(part, best.cuts[i], budget)));
  return { text, records };
}

/** The cut renderMemory makes of `parts` (every block's, in order) that do not fit `budget` whole, and its closing line. */
function chooseCut(parts: Part[], budget: number, where: MemoryWhere): { cuts: PartCut[]; closing: string } {
  const reserve = longestNotice(parts, budget, where).length + 1;
  const overhead = (shown: PartPlan[], part: PartPlan) => {
    const block = (part as Part).block;
    return shown.some((p) => (p as Part).block === block) ? separatorOf(block).length : wrap(block, '').length + 1;
  };
  const cut = (room: number) => {
    const { cuts, used } = allocate(parts, room, overhead, budget);
    const closing = notice(parts.flatMap((p, i) => leftOut(p, cuts[i]) ?? []), budget, where);
    return { cuts, closing, fits: used + 1 + closing.length <= budget, used };
  };
  // The room the closing line needs is known once the cut is: cut again within the room that
  // line leaves, and keep the cut that shows the most while its own closing line still fits.
  let best = cut(budget - reserve);
  let last = best;
  for (let pass = 0; pass < 3; pass++) {
    const next = cut(budget - last.closing.length - 1);
    if (next.closing === last.closing) break;
    if (next.fits && next.used > best.used) best = next;
    last = next;
  }
  return best;
}

/**
 * What a cut saw of one part (the render cache's StoredCut, app/context-recall.ts recutState): all that allocate
 * and the closing line read of it (its header's length, its entries' sizes in the order they are
 * taken, how many are pinned, its share, rank and marker), and how many entries it kept. Sizes
 * stop at the first entry past the budget counted from the header: no cut can take it, so none
 * can look at the ones after it.
 */
export interface CutRecord {
  label: string;
  header: number;
  keep: 'first' | 'last';
  share: number;
  rank: number;
  optional: boolean;
  yields: boolean;
  marker: boolean;
  count: number;
  pinned: number;
  sizes: number[];
  taken: number;
  shown: boolean;
}

/**
 * A CutRecord as the render cache holds it, one short array (every prompt reads the cache):
 * [label, header, flags, share, rank, count, pinned, taken, sizes], the flags' bits: 1 keeps the
 * last entries, 2 optional, 4 yields to pinned entries, 8 has a marker, 16 shown.
 */
export type StoredCut = [string, number, number, number, number, number, number, number, number[]];
const FLAGS = { last: 1, optional: 2, yields: 4, marker: 8, shown: 16 } as const;

function recordOf(part: Part, cut: PartCut, budget: number): StoredCut {
  const sizes: number[] = [];
  for (let i = 0, total = part.header.length, order = takeOrder(part); i < order.length && total <= budget; i++) total += sizes[sizes.push(entrySize(part.entries[order[i]])) - 1];
  const pinned = part.entries.filter((e) => e.pinned).length;
  const flags = (part.keep === 'last' ? FLAGS.last : 0) | (part.optional ? FLAGS.optional : 0) | (part.yieldsToPinned ? FLAGS.yields : 0) | (part.marker ? FLAGS.marker : 0) | (cut.shown ? FLAGS.shown : 0);
  return [part.label, part.header.length, flags, part.share, part.rank, part.entries.length, pinned, cut.kept.length, sizes];
}

/** A stored record read back; undefined when it is not one this code writes. */
function recordFrom(raw: unknown): CutRecord | undefined {
  if (!Array.isArray(raw) || raw.length !== 9) return undefined;
  const [label, header, flags, share, rank, count, pinned, taken, sizes] = raw as unknown[];
  const counts = [header, flags, share, count, pinned, taken];
  if (typeof label !== 'string' || !counts.every((n) => Number.isSafeInteger(n) && (n as number) >= 0) || !Number.isSafeInteger(rank) || !Array.isArray(sizes)) return undefined;
  const f = flags as number;
  const r = { label, header: header as number, keep: f & FLAGS.last ? 'last' : 'first', share: share as number, rank: rank as number, optional: !!(f & FLAGS.optional), yields: !!(f & FLAGS.yields), marker: !!(f & FLAGS.marker), count: count as number, pinned: pinned as number, sizes: sizes as number[], taken: taken as number, shown: !!(f & FLAGS.shown) } satisfies CutRecord;
  if (r.sizes.length > r.count || !r.sizes.every((n) => Number.isSafeInteger(n) && n > 0) || r.taken > r.count || r.pinned > r.count) return undefined;
  return r;
}

/**
 * A part as allocate and the closing line see it, from its record: entries of the recorded sizes
 * in the recorded order (taken first to last), those past the sizes recorded never reached.
 */
function standIn(block: Block, r: CutRecord, budget: number): Part {
  const far: Entry = { text: '', gap: budget + 1 };
  const entries = Array.from({ length: r.count }, (_, i): Entry => (i < r.sizes.length ? { text: '', gap: r.sizes[i] - 1, ...(i < r.pinned ? { pinned: true } : {}) } : i < r.pinned ? { ...far, pinned: true } : far));
  const spec = block === 'working_memory' ? undefined : PARTS.find((p) => p.block === block);
  const marker = !r.marker ? undefined : (spec?.marker ?? sectionMarker(r.keep));
  // keep 'first': the entries are in their taken order already.
  return { block, label: r.label, header: ' '.repeat(r.header), entries, keep: 'first', share: r.share, rank: r.rank, marker, spec, ...(r.optional ? { optional: true } : {}), ...(r.yields ? { yieldsToPinned: true } : {}) };
}

/** The session state block's parts for `text` (blockParts reads nothing else of the inputs for this block). */
const sessionStateParts = (text: string | undefined) => blockParts({ sessionState: text } as MemoryInputs, RELATIVE_WHERE, 'session_state');

/**
 * renderMemory's cut again when the session state alone changed (`before` → `after`), from the cut
 * it gave before (`cut`), without the other blocks' parts: undefined when that is not provably the
 * same text. renderMemory's choices see a part's entries by their lengths only (allocate, the
 * closing line's counts), and the whole render's length only (fits or is cut): when every session
 * state line and the whole block keep their lengths, the cut keeps every part's entries as before,
 * and the text differs only in the session state block, rendered with the entries it kept.
 * The block is found by its tags: text inside every block is neutralised, so the first
 * `<session_state>` opening a line is the block's own. A property test holds it to renderMemory.
 */
export function recutSessionState(cut: string, before: string | undefined, after: string | undefined): string | undefined {
  const [old] = sessionStateParts(before);
  const [now] = sessionStateParts(after);
  if (!old || !now) return old || now ? undefined : cut;
  if (old.entries.length !== now.entries.length || old.entries.some((e, i) => e.text.length !== now.entries[i].text.length)) return undefined;
  if (blockText('session_state', [old]).length !== blockText('session_state', [now]).length) return undefined;
  const open = '<session_state>\n';
  const close = '\n</session_state>';
  const at = cut.startsWith(open) ? 0 : cut.indexOf(`\n${open}`) + 1;
  // Not shown (or the whole part given up for its notice): its lengths are all the cut saw of it.
  if (at === 0 && !cut.startsWith(open)) return cut;
  const end = cut.indexOf(close, at);
  if (end < 0) return undefined;
  const block = cut.slice(at, end + close.length);
  for (let taken = 0; taken <= old.entries.length; taken++) {
    const kept = [{ kept: old.entries.slice(0, taken).map((_, i) => i), shown: true }];
    if (blockText('session_state', [old], kept) !== block) continue;
    const again = blockText('session_state', [now], kept);
    return again.length === block.length ? cut.slice(0, at) + again + cut.slice(end + close.length) : undefined;
  }
  return undefined;
}

/**
 * renderMemory's cut again for the session state `after`, from the cut text it gave before (`cut`)
 * and the records of every other part (cutMemory's, by block), without the other blocks' inputs:
 * the cut is chosen again as renderMemory chooses it, every other part standing in by its record.
 * When each of those keeps what it kept, its block's text is the one in `cut`; the session state's
 * block and the closing line are made again. Undefined when another part's cut changes or a record
 * is missing or not this code's. The caller has checked that the part does not fit whole (then
 * renderMemory gives the blocks whole, which `cut` does not hold). A property test holds it to renderMemory.
 */
export function recutMemory(cut: string, records: Partial<Record<Block, unknown>>, after: string | undefined, budget: number, where: MemoryWhere): string | undefined {
  const kept = blockTextsOf(cut);
  if (!kept) return undefined;
  const parts: Part[] = [];
  const recorded: (CutRecord | undefined)[] = [];
  for (const block of MEMORY_BLOCKS) {
    if (block === 'session_state') {
      const own = sessionStateParts(after);
      parts.push(...own);
      recorded.push(...own.map(() => undefined));
      continue;
    }
    const mine = recordsOf(records[block], budget);
    if (!mine) return undefined;
    parts.push(...mine.map((r) => standIn(block, r, budget)));
    recorded.push(...mine);
  }
  const best = chooseCut(parts, budget, where);
  if (!recorded.every((r, i) => !r || (r.taken === best.cuts[i].kept.length && r.shown === best.cuts[i].shown))) return undefined;
  const texts = MEMORY_BLOCKS.map((block) => {
    const mine = parts.flatMap((p, i) => (p.block === block ? [i] : []));
    if (block === 'session_state') return blockText(block, mine.map((i) => parts[i]), mine.map((i) => best.cuts[i]));
    // The block is in the cut text exactly when one of its parts is shown.
    return mine.some((i) => best.cuts[i].shown) === (kept[block] !== undefined) ? (kept[block] ?? '') : undefined;
  });
  if (texts.includes(undefined)) return undefined;
  const text = [joinBlocks(texts as string[]), best.closing].filter(Boolean).join('\n');
  return text.length <= budget ? text : undefined;
}

/** A block's records read back (recordFrom); undefined when any is not one this code writes for `budget`. */
function recordsOf(stored: unknown, budget: number): CutRecord[] | undefined {
  if (!Array.isArray(stored)) return undefined;
  const records = stored.map(recordFrom);
  return records.every((r): r is CutRecord => r !== undefined && fitsBudget(r, budget)) ? records : undefined;
}

/** Past this many entries a part is rendered from its inputs: standIn lays out one entry each. */
const MAX_STOOD_IN = 1_000_000;

/**
 * Whether a record read from the disk holds what recordOf writes for `budget`: a header no longer
 * than the budget, its sizes every entry's or stopped past the budget, and a bounded count. The
 * cache is a file: a damaged number must send the prompt to the full render, never lay out a
 * header or entries of any size it names (standIn).
 */
function fitsBudget(r: CutRecord, budget: number): boolean {
  if (r.header > budget || r.count > MAX_STOOD_IN) return false;
  let total = r.header;
  for (const size of r.sizes) total += size;
  return r.sizes.length === r.count || total > budget;
}

/**
 * The blocks of a cut memory part (assemble's join, then the closing line), by name: undefined
 * when the text is not laid out so. Text inside a block is neutralised, so a block's own tags
 * are the only ones that open or close a line.
 */
function blockTextsOf(cut: string): Partial<Record<Block, string>> | undefined {
  const texts: Partial<Record<Block, string>> = {};
  let pos = 0;
  for (const block of MEMORY_BLOCKS) {
    if (!cut.startsWith(`<${block}>\n`, pos)) continue;
    const close = `\n</${block}>`;
    const end = cut.indexOf(close, pos);
    if (end < 0) return undefined;
    texts[block] = cut.slice(pos, end + close.length);
    pos = end + close.length + 1;
  }
  // What is left is the closing line alone, after a line break.
  const joined = pos === 0 || pos > cut.length || cut.charCodeAt(pos - 1) === 10;
  return joined && !cut.includes('\n', pos) ? texts : undefined;
}

function assemble(parts: Part[], cuts: PartCut[]): string {
  return joinBlocks(
    MEMORY_BLOCKS.map((block) => {
      const mine = parts.flatMap((p, i) => (p.block === block ? [i] : []));
      return blockText(
        block,
        mine.map((i) => parts[i]),
        mine.map((i) => cuts[i]),
      );
    }),
  );
}

/** What the closing line says of a part: the part itself when it was left out whole, else how many of its entries. */
function leftOut(part: Part, cut: PartCut): string | undefined {
  if (part.optional) return undefined;
  if (!cut.shown) return part.spec ? part.spec.label(part.entries.length) : part.label;
  const omitted = part.entries.length - cut.kept.length;
  if (omitted === 0) return undefined;
  return part.spec ? part.spec.label(omitted) : `${plural(omitted, 'entry', 'entries')} of ${part.label}`;
}

/** The closing line: what was left out, and where all of it is. '' when nothing was. */
function notice(what: string[], budget: number, where: MemoryWhere): string {
  if (!what.length) return '';
  return `[wmem: left out to fit ${budget} characters: ${what.join(', ')}. The rest is in ${where.overview} and ${where.scratch}; wmem search finds any of it.]`;
}

/** The longest closing line a cut can need: every part named, each in its longer form. */
function longestNotice(parts: Part[], budget: number, where: MemoryWhere): string {
  const worst = parts.flatMap((p) => {
    const forms = [leftOut(p, { kept: [], shown: false }), leftOut(p, { kept: [], shown: true })].filter((f): f is string => f !== undefined);
    return forms.length ? [forms.reduce((a, b) => (b.length > a.length ? b : a))] : [];
  });
  return notice(worst, budget, where);
}

/** Where the agent finds its memory, and how its agent compacts: named in what is injected. */
export interface MemoryWhere {
  overview: string;
  scratch: string;
  detailDir: string;
  /** What compacts this session: `/compact` in Claude Code, a `wmem compact` command line otherwise. */
  compact: string;
}

/** Relative names, for callers (tests, tools) that have no session at hand. */
export const RELATIVE_WHERE: MemoryWhere = {
  overview: 'working-memory/overview.md',
  scratch: 'working-memory/scratch.md',
  detailDir: 'working-memory/detail',
  compact: 'wmem compact',
};

/** What a resumed conversation gets instead of a second copy of memory it already holds. */
export function renderUnchangedPointer(where: MemoryWhere): string {
  return neutralizeTags(`[wmem: your working memory is unchanged since it was given earlier in this conversation; the files are ${where.overview} and ${where.scratch}.]`);
}

/**
 * The meta part: the figures as one JSON line, then what to do, with the real paths and the way
 * to compact that works for this session's agent. Says so when a figure is an estimate or a
 * default, so the agent never takes it for a measurement.
 */
export function renderMeta(meta: MetaFigures, where: MemoryWhere = RELATIVE_WHERE): string {
  const lines = [JSON.stringify(meta), `Update ${where.overview} as you work (details: ${where.detailDir}/, notes: ${where.scratch}); compact with ${where.compact} when needed.`];
  if (meta.tokens_source === 'estimate') lines.push("tokens_used is an estimate (a tokenizer count): it does not include the agent's system prompt and tools.");
  if (meta.tokens_max_source === 'default') lines.push(`tokens_max is assumed${meta.model ? ` (${meta.model} is not a model wmem knows)` : ' (no model reported yet)'}: set the window with WMEM_TOKENS_MAX or --tokens-max.`);
  if (!meta.overview_maintained) lines.push(`${where.overview} is still the bare template: fill in the current task and progress.`);
  if (meta.action_hint === 'emergency_compression') lines.push(`Context is ${meta.tokens_percent}% full: save state to the overview and compact now (${where.compact}).`);
  else if (meta.action_hint === 'heavy_compression') lines.push(`Context is ${meta.tokens_percent}% full: update the overview, then compact (${where.compact}).`);
  // Paths come from the disk: a folder named like a block tag must not close this one.
  return wrap('context_meta', neutralizeTags(lines.join('\n')));
}
