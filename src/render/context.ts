// Pure: the two parts `wmem context` injects (docs/context.md). The memory part depends only on the
// files (same files → same bytes: no clock, no counters); the meta part carries the volatile
// token figures. Text inside a block is neutralised so it cannot close or forge a block.

import type { MetaFigures } from '../memory/meter.js';

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

const TAG_LIKE = new RegExp(`<(\\s*/?\\s*)(${BLOCK_TAGS.join('|')})(?![\\p{L}\\p{N}_])`, 'giu');

// A cheap first look: every block tag starts with w, s, c or p, and under the unicode case folding
// of TAG_LIKE only 'ſ' (U+017F) folds to one of them. Text that fails this (most text, and the
// templates' <!-- comments -->) cannot match TAG_LIKE, whose unicode classes cost ~0.5 ms to
// compile on first use: real time on a command that runs on every prompt.
const MAYBE_TAG = /<\s*\/?\s*[wscpſ]/i;

/** Makes `<working_memory>`, `</scratch_notes >` and the like inert inside block content. */
export function neutralizeTags(text: string): string {
  const visible = neutralizeControls(text);
  if (!MAYBE_TAG.test(visible)) return visible;
  return visible.replace(TAG_LIKE, (_m, gap: string, name: string) => `&lt;${gap}${name}`);
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
  sessionState?: string;
  /** The handoff from the project's previous session, frozen when this one started (memory/handoff.ts). */
  handoff?: string;
  /** Real paths for the notices (default: relative names). */
  where?: MemoryWhere;
}

interface Unit {
  block: 'working_memory' | 'scratch_notes' | 'workspace_memory' | 'session_state' | 'previous_session';
  order: number;
  priority: number;
  text: string;
  label: string;
}

// What survives a tight budget first: the state the agent needs to carry on, then recent notes.
const SECTION_PRIORITY: Record<string, number> = { task: 0, progress: 1, decisions: 2, context: 3, open: 4 };

function wrap(tag: string, body: string): string {
  return `<${tag}>\n${body}\n</${tag}>`;
}

function blockOverhead(tag: string): number {
  return wrap(tag, '').length + 1;
}

/**
 * Renders the memory part within `budget` characters. Sections and notes are whole units: a
 * unit that does not fit is left out (lowest priority first) and a closing line says where the
 * rest is. Scratch notes are cut oldest first.
 */
export function renderMemory(inputs: MemoryInputs, budget: number): string {
  const units: Unit[] = [];
  let order = 0;
  if (inputs.overview.problem) {
    units.push({ block: 'working_memory', order: order++, priority: -2, text: `[wmem: ${inputs.overview.problem}. Repair ${(inputs.where ?? RELATIVE_WHERE).overview}; wmem set and append refuse to edit it until then.]`, label: 'problem' });
  }
  const preamble = inputs.overview.preamble.trim();
  if (preamble) units.push({ block: 'working_memory', order: order++, priority: -1, text: preamble, label: 'title' });
  for (const section of inputs.overview.sections) {
    const base = SECTION_PRIORITY[section.id] ?? 20;
    units.push({ block: 'working_memory', order: order++, priority: section.empty ? 40 : base, text: section.text, label: `section ${section.id}` });
  }
  const notes = inputs.scratchLines;
  notes.forEach((line, i) => {
    // Newest notes first: priority between the core sections and the rest.
    units.push({ block: 'scratch_notes', order: order++, priority: 10 + (notes.length - 1 - i) / Math.max(notes.length, 1), text: line, label: 'note' });
  });
  // One unit, bounded by its own budget: after the core sections, before the notes.
  if (inputs.handoff?.trim()) units.push({ block: 'previous_session', order: order++, priority: 5, text: inputs.handoff.trim(), label: 'previous session' });
  if (inputs.sessionState?.trim()) units.push({ block: 'session_state', order: order++, priority: 12, text: inputs.sessionState.trim(), label: 'session state' });
  if (inputs.workspace?.trim()) units.push({ block: 'workspace_memory', order: order++, priority: 13, text: inputs.workspace.trim(), label: 'workspace memory' });

  for (const unit of units) unit.text = neutralizeTags(unit.text);

  const ranked = [...units].sort((a, b) => a.priority - b.priority || a.order - b.order);
  const kept = new Set<Unit>();
  const openBlocks = new Set<string>();
  let used = 0;
  for (const unit of ranked) {
    const cost = unit.text.length + 2 + (openBlocks.has(unit.block) ? 0 : blockOverhead(unit.block));
    if (used + cost > budget) continue;
    used += cost;
    kept.add(unit);
    openBlocks.add(unit.block);
  }
  // The notice about what was left out takes room too: drop the lowest-priority kept unit until all fits.
  const where = inputs.where ?? RELATIVE_WHERE;
  let text = assemble(units, kept, budget, where);
  const keptByRank = ranked.filter((u) => kept.has(u));
  while (text.length > budget && keptByRank.length > 0) {
    kept.delete(keptByRank.pop()!);
    text = assemble(units, kept, budget, where);
  }
  return text.length <= budget ? text : `[wmem: memory left out to fit ${budget} characters; see ${where.overview}]`.slice(0, budget);
}

function assemble(units: Unit[], kept: Set<Unit>, budget: number, where: MemoryWhere): string {
  const blocks: string[] = [];
  for (const block of ['working_memory', 'previous_session', 'session_state', 'workspace_memory', 'scratch_notes'] as const) {
    const inBlock = units.filter((u) => u.block === block && kept.has(u));
    if (!inBlock.length) continue;
    const separator = block === 'scratch_notes' ? '\n' : '\n\n';
    blocks.push(wrap(block, inBlock.map((u) => u.text).join(separator)));
  }
  const dropped = units.filter((u) => !kept.has(u));
  if (dropped.length) {
    const droppedNotes = dropped.filter((u) => u.label === 'note').length;
    const others = dropped.filter((u) => u.label !== 'note').map((u) => u.label);
    const what = [...others, ...(droppedNotes ? [`${droppedNotes} older scratch note${droppedNotes === 1 ? '' : 's'}`] : [])].join(', ');
    blocks.push(`[wmem: left out to fit ${budget} characters: ${what}. The rest is in ${where.overview} and ${where.scratch}.]`);
  }
  return blocks.join('\n');
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
