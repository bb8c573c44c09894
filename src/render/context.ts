// Pure: the two parts `wmem context` injects (SPEC §4). The memory part depends only on the
// files (same files → same bytes: no clock, no counters); the meta part carries the volatile
// token figures. Text inside a block is neutralised so it cannot close or forge a block.

export const BLOCK_TAGS = [
  'working_memory',
  'scratch_notes',
  'workspace_memory',
  'workspace_memory_candidates',
  'session_state',
  'context_meta',
] as const;

const TAG_LIKE = new RegExp(`<(\\s*/?\\s*)(${BLOCK_TAGS.join('|')})(?![\\p{L}\\p{N}_])`, 'giu');

// A cheap first look: every block tag starts with w, s or c, and under the unicode case folding
// of TAG_LIKE only 'ſ' (U+017F) folds to one of them. Text that fails this (most text, and the
// templates' <!-- comments -->) cannot match TAG_LIKE, whose unicode classes cost ~0.5 ms to
// compile on first use: real time on a command that runs on every prompt.
const MAYBE_TAG = /<\s*\/?\s*[wscſ]/i;

/** Makes `<working_memory>`, `</scratch_notes >` and the like inert inside block content. */
export function neutralizeTags(text: string): string {
  if (!MAYBE_TAG.test(text)) return text;
  return text.replace(TAG_LIKE, (_m, gap: string, name: string) => `&lt;${gap}${name}`);
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
}

interface Unit {
  block: 'working_memory' | 'scratch_notes' | 'workspace_memory' | 'session_state';
  order: number;
  priority: number;
  text: string;
  label: string;
}

// What survives a tight budget first: the state the agent needs to carry on, then recent notes.
const SECTION_PRIORITY: Record<string, number> = { task: 0, progress: 1, decisions: 2, context: 3, open: 4 };

export function budgetForTokensMax(tokensMax: number): number {
  if (tokensMax >= 200_000) return 8000;
  if (tokensMax >= 128_000) return 6000;
  if (tokensMax >= 64_000) return 4000;
  return 3200;
}

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
    units.push({ block: 'working_memory', order: order++, priority: -2, text: `[wmem: ${inputs.overview.problem}. Repair the file; wmem set and append refuse to edit it until then.]`, label: 'problem' });
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
  let text = assemble(units, kept, budget);
  const keptByRank = ranked.filter((u) => kept.has(u));
  while (text.length > budget && keptByRank.length > 0) {
    kept.delete(keptByRank.pop()!);
    text = assemble(units, kept, budget);
  }
  return text.length <= budget ? text : `[wmem: memory left out to fit ${budget} characters; see working-memory/]`.slice(0, budget);
}

function assemble(units: Unit[], kept: Set<Unit>, budget: number): string {
  const blocks: string[] = [];
  for (const block of ['working_memory', 'session_state', 'workspace_memory', 'scratch_notes'] as const) {
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
    blocks.push(`[wmem: left out to fit ${budget} characters: ${what}. The rest is in working-memory/ (wmem show overview, wmem show scratch).]`);
  }
  return blocks.join('\n');
}

export type Pressure = 'safe' | 'moderate' | 'high';
export type ActionHint = 'normal' | 'light_compression' | 'medium_compression' | 'heavy_compression' | 'emergency_compression';
export type TokensSource = 'flag' | 'transcript_usage' | 'tokenizer';

export function pressureFor(percent: number): Pressure {
  if (percent < 75) return 'safe';
  if (percent < 90) return 'moderate';
  return 'high';
}

export function actionHintFor(percent: number): ActionHint {
  if (percent < 20) return 'normal';
  if (percent < 40) return 'light_compression';
  if (percent < 60) return 'medium_compression';
  if (percent < 75) return 'heavy_compression';
  return 'emergency_compression';
}

export interface MetaFigures {
  tokens_used: number;
  tokens_max: number;
  tokens_percent: number;
  messages_in_history: number;
  working_memory_size: number;
  tokens_source: TokensSource;
  action_hint: ActionHint;
  pressure: Pressure;
  overview_maintained: boolean;
}

export function metaFigures(input: {
  tokensUsed: number;
  tokensMax: number;
  tokensSource: TokensSource;
  messages: number;
  memorySize: number;
  maintained: boolean;
}): MetaFigures {
  // Hints and pressure follow the exact share; only the displayed percentage is rounded.
  const exact = input.tokensMax > 0 ? (input.tokensUsed / input.tokensMax) * 100 : 0;
  return {
    tokens_used: input.tokensUsed,
    tokens_max: input.tokensMax,
    tokens_percent: Math.round(exact),
    messages_in_history: input.messages,
    working_memory_size: input.memorySize,
    tokens_source: input.tokensSource,
    action_hint: actionHintFor(exact),
    pressure: pressureFor(exact),
    overview_maintained: input.maintained,
  };
}

export function renderMeta(meta: MetaFigures): string {
  const lines = [JSON.stringify(meta), 'Remember to update working-memory/overview.md and compact if needed.'];
  if (!meta.overview_maintained) lines.push('working-memory/overview.md is still the bare template: fill in the current task and progress.');
  if (meta.action_hint === 'emergency_compression') lines.push(`Context is ${meta.tokens_percent}% full: save state to overview.md and run 'wmem compact' now.`);
  else if (meta.action_hint === 'heavy_compression') lines.push(`Context is ${meta.tokens_percent}% full: update overview.md, then compact old turns ('wmem compact').`);
  return wrap('context_meta', lines.join('\n'));
}
