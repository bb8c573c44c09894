// Pure: the handoff block a new session gets about the project's previous session (docs/context.md,
// "The handoff"). Its age is measured against the new session's start, never the prompt's clock,
// so the block is frozen once and every prompt of the session renders the same bytes. Secrets are
// redacted here; block tags are neutralised where the memory part is assembled.
import { redactSecrets } from './gate.js';

// Its share of the memory part at the 8,000-character budget (render/context.ts, docs/context.md).
export const DEFAULT_HANDOFF_CHARS = 1100;
/** A session active this recently is named as running (most likely in another terminal). */
export const RUNNING_WITHIN_MS = 5 * 60_000;
/** One entry (a line of a section, a note) is clipped to this many characters. */
const LINE_CAP = 300;

export interface HandoffSource {
  id: string;
  /** When the session last wrote to its memory or hook state (ms since the epoch). */
  lastActiveMs: number;
  /** Absolute path of its overview.md, for the pointer. */
  overviewPath: string;
  task: string;
  progress: string;
  decisions: string;
  open: string;
  /** The Recent Actions section; its last line is shown. */
  recent: string;
  /** Note texts not yet consolidated, newest first. */
  notes: string[];
}

/** "just now", "12 min ago", "14 h ago", "3 d ago": ages as a person reads them. */
export function formatAge(ms: number): string {
  const minutes = Math.floor(Math.max(0, ms) / 60_000);
  if (minutes < 1) return 'just now';
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours} h ago`;
  return `${Math.floor(hours / 24)} d ago`;
}

/** Whether a session has something to hand over: any section content or a note. */
export function hasContent(source: Pick<HandoffSource, 'task' | 'progress' | 'decisions' | 'open' | 'recent' | 'notes'>): boolean {
  return [source.task, source.progress, source.decisions, source.open, source.recent].some((s) => s.trim() !== '') || source.notes.length > 0;
}

function clip(line: string): string {
  const flat = line.replace(/\s+$/, '');
  return flat.length > LINE_CAP ? `${flat.slice(0, LINE_CAP - 1)}…` : flat;
}

/** A section's entries: its non-blank lines, each clipped (after redaction: a key block spans lines, a clip could halve a secret). */
function entriesOf(text: string): string[] {
  return redactSecrets(text)
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map(clip);
}

interface Group {
  title: string;
  /** How the pointer to what was cut names its entries. */
  unit: string;
  entries: string[];
  /** Entries not even prepared, since they could not fit: counted in the pointer to what was cut. */
  omitted?: number;
}

/** The newest notes up to about `budget` characters: a session may leave hundreds, the block shows a few. */
function notesThatMayFit(notes: string[], budget: number): string[] {
  let size = 0;
  let n = 0;
  while (n < notes.length && size <= budget) size += Math.min(notes[n++].length, LINE_CAP) + 3;
  return notes.slice(0, n);
}

/**
 * The block's body (without its tags) within `budget` characters, or '' when `budget` is 0 or the
 * source has nothing to hand over. Entries are kept whole, in priority order (task, progress,
 * decisions, open questions, last action, notes newest first); a closing line names what was cut.
 */
export function renderHandoff(source: HandoffSource, startedMs: number, budget: number): string {
  if (budget <= 0 || !hasContent(source)) return '';
  const age = startedMs - source.lastActiveMs;
  const id = redactSecrets(source.id);
  const head =
    age < RUNNING_WITHIN_MS
      ? `Session ${id} of this project is still running (active ${formatAge(age)}, likely in another terminal). Where it stands:`
      : `The previous session of this project, ${id}, was last active ${formatAge(age)}. Where it stopped:`;
  const tail = redactSecrets(`The rest: ${source.overviewPath}, and wmem search --session ${id} WORDS.`);
  const lastAction = entriesOf(source.recent).at(-1);
  const groups: Group[] = [
    { title: 'Current Task', unit: 'task lines', entries: entriesOf(source.task) },
    { title: 'Progress', unit: 'progress lines', entries: entriesOf(source.progress) },
    { title: 'Key Decisions', unit: 'decisions', entries: entriesOf(source.decisions) },
    { title: 'Open Questions', unit: 'open questions', entries: entriesOf(source.open) },
    { title: 'Last action', unit: 'last action', entries: lastAction ? [lastAction] : [] },
  ];
  const notes = notesThatMayFit(source.notes, budget);
  groups.push({ title: 'Notes not yet consolidated (newest first)', unit: 'notes', entries: notes.map((n) => clip(`- ${redactSecrets(n).replace(/\s*\n\s*/g, ' ')}`)), omitted: source.notes.length - notes.length });
  // The pointer to what was cut takes room too: try without it, then with room for the one the
  // last try needed (it can only grow by a little as more is cut), then with the longest it can be.
  const longest = cutLine(budget, groups, groups.map(() => 0)).length;
  let text = '';
  for (let reserve = 0, tries = 0; tries < 4; tries++) {
    text = assembleHandoff(head, tail, groups, budget, reserve);
    if (text.length <= budget) return text;
    reserve = tries === 2 ? longest + 1 : Math.max(reserve + 1, text.length - budget + reserve + 8);
  }
  // A pointer alone may still be too long for a tiny budget: then nothing rather than a broken block.
  return text.length <= budget ? text : '';
}

/** Fills the groups in priority order within `budget` less `reserve`, and writes the block. */
function assembleHandoff(head: string, tail: string, groups: Group[], budget: number, reserve: number): string {
  const kept = groups.map(() => 0);
  let used = head.length + 1 + tail.length;
  groups.forEach((group, g) => {
    for (const entry of group.entries) {
      const cost = entry.length + 1 + (kept[g] === 0 ? group.title.length + 2 : 0);
      if (used + cost + reserve > budget) break;
      used += cost;
      kept[g]++;
    }
  });
  const lines = [head];
  groups.forEach((group, g) => kept[g] && lines.push(`${group.title}:`, ...group.entries.slice(0, kept[g])));
  const cut = cutLine(budget, groups, kept);
  if (cut) lines.push(cut);
  lines.push(tail);
  return lines.join('\n');
}

function cutLine(budget: number, groups: Group[], kept: number[]): string {
  const cut = groups.flatMap((g, i) => {
    const left = g.entries.length - kept[i] + (g.omitted ?? 0);
    return left > 0 ? [`${left} ${g.unit}`] : [];
  });
  return cut.length ? `[cut to fit ${budget} characters: ${cut.join(', ')}]` : '';
}
