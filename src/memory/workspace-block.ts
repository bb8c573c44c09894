// Pure: the workspace memory block as injected, from the project's own entries and the team's
// (docs/team.md). One rule for one id everywhere: the newest `updated` wins, then the greater
// text (then type and created, so two machines never differ). The block keeps its budget
// (entries and characters) at any team size: it is filled by priority and says how many more
// there are and how to reach them. Same entries → same bytes (no clock).
import { isoTime } from '../ui/time.js';
import { MAX_ENTRIES, MAX_RENDERED_CHARS, canonical, renderEntry, sortForRender, type WorkspaceEntry, type WorkspaceType } from './workspace.js';

export interface WorkspaceLimits {
  entries: number;
  chars: number;
}

export const WORKSPACE_LIMITS: WorkspaceLimits = { entries: MAX_ENTRIES, chars: MAX_RENDERED_CHARS };

/** Where a broken or future `updated` time is normalised to: the oldest there is. */
export const OLDEST = '1970-01-01T00:00:00.000Z';

/** How far ahead of the reading machine's clock an `updated` may be before it counts as broken (clock skew). */
export const FUTURE_SLACK_MS = 86_400_000;

/** An `updated` time as compared: a broken one, or one past `notAfter` (the future), is the oldest. */
export function updatedRank(updated: string, notAfter = Infinity): number {
  const t = Date.parse(updated);
  return Number.isNaN(t) || t > notAfter ? -Infinity : t;
}

interface Copy {
  type: WorkspaceType;
  text: string;
  created: string;
  updated: string;
}

const cmp = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0);

/**
 * Of two copies of one entry, the one every machine keeps: the newest `updated`, then the greater
 * text, type, created and `updated` as written (a total order on what a line says, so file order
 * never matters). On a complete tie `a` is kept (the same content either way).
 */
export function newerCopy<T extends Copy>(a: T, b: T, notAfter = Infinity): T {
  const order = updatedRank(a.updated, notAfter) - updatedRank(b.updated, notAfter) || cmp(a.text, b.text) || cmp(a.type, b.type) || cmp(a.created, b.created) || cmp(a.updated, b.updated);
  return order >= 0 ? a : b;
}

/**
 * The project's own entries and the team's as one list, one entry per id: a team entry with the
 * id or the canonical text of an own entry is the same entry, and the newer copy of the two is
 * kept (an own entry never masks a newer teammate edit). `team` is already one entry per id.
 */
export function mergeTeam(own: WorkspaceEntry[], team: WorkspaceEntry[]): WorkspaceEntry[] {
  if (!team.length) return own;
  const byId = new Map(team.map((e) => [e.id, e]));
  let byText: Map<string, WorkspaceEntry> | undefined;
  const taken = new Set<WorkspaceEntry>();
  const merged = own.map((mine) => {
    let theirs = byId.get(mine.id);
    if (!theirs || taken.has(theirs)) {
      byText ??= new Map(team.map((e) => [canonical(e.text), e]));
      theirs = byText.get(canonical(mine.text));
    }
    if (!theirs || taken.has(theirs)) return mine;
    taken.add(theirs);
    return newerCopy(mine, theirs) === mine ? mine : theirs;
  });
  return [...merged, ...team.filter((e) => !taken.has(e))];
}

/**
 * What goes in first when not everything fits: what someone said on purpose (explicit entries)
 * and feedback about how to work, then decisions, then the rest; within each, the most recently
 * updated first, then by id.
 */
export function priorityTier(entry: WorkspaceEntry): number {
  if (entry.type === 'feedback' || entry.source === 'explicit') return 0;
  return entry.type === 'decision' ? 1 : 2;
}

export interface ComposedWorkspace {
  /** The entries injected (in priority order). */
  shown: WorkspaceEntry[];
  /** How many entries there are in all, one per id (own and team). */
  total: number;
  /** The newest `updated` of all entries: ages are measured against it (see referenceTime). */
  reference?: string;
}

/** The line that counts what did not fit, and says how to reach it. */
export function moreLine(count: number): string {
  return `${count} more not shown: \`wmem memories --team\`, \`wmem search\``;
}

function newestUpdated(entries: WorkspaceEntry[]): string | undefined {
  let max = -Infinity;
  for (const e of entries) max = Math.max(max, updatedRank(e.updated));
  return Number.isFinite(max) ? isoTime(new Date(max)) : undefined;
}

/**
 * Fills the block by priority within `limits`: entries in priority order, one that does not fit
 * the characters left is passed over for smaller ones after it, until the entry count is reached.
 * When anything is left out, room is kept for the line that counts it.
 */
export function composeWorkspace(entries: WorkspaceEntry[], limits: WorkspaceLimits = WORKSPACE_LIMITS): ComposedWorkspace {
  const reference = newestUpdated(entries);
  const at = reference ? new Date(reference) : undefined;
  const ranks = new Map(entries.map((e) => [e, updatedRank(e.updated)]));
  const ranked = [...entries].sort((a, b) => priorityTier(a) - priorityTier(b) || ranks.get(b)! - ranks.get(a)! || cmp(a.id, b.id));
  const cost = (e: WorkspaceEntry) => renderEntry(e, at).length + 1;
  const pick = (room: number): WorkspaceEntry[] => {
    const shown: WorkspaceEntry[] = [];
    let used = 0;
    for (const e of ranked) {
      if (shown.length >= limits.entries) break;
      const c = cost(e);
      if (used + c > room) continue;
      used += c;
      shown.push(e);
    }
    return shown;
  };
  let shown = pick(limits.chars);
  if (shown.length < entries.length) shown = pick(limits.chars - moreLine(entries.length).length - 1);
  return { shown, total: entries.length, ...(reference ? { reference } : {}) };
}

/** The block's body (without tags): the shown entries by type, then the count of the rest; '' when empty. */
export function renderComposed(composed: ComposedWorkspace): string {
  const at = composed.reference ? new Date(composed.reference) : undefined;
  const lines = sortForRender(composed.shown).map((e) => renderEntry(e, at));
  const rest = composed.total - composed.shown.length;
  if (rest > 0) lines.push(moreLine(rest));
  return lines.join('\n');
}
