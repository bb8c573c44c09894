// Pure: workspace memory, the facts shared by all sessions of a project (docs/memory.md). Entries pass
// the gate (workspace-gate.ts), fold with their canonical duplicates (the highest confidence wins), and
// stay within 5200 rendered characters and 28 entries by evicting the lowest-confidence, oldest
// entries first, never the one just added.
import { sha256Hex } from './hash.js';
import { isoTime } from '../ui/time.js';
import { checkWorkspaceText, type GateRefusal } from './workspace-gate.js';

export const WORKSPACE_TYPES = ['feedback', 'project', 'decision', 'reference'] as const;
export type WorkspaceType = (typeof WORKSPACE_TYPES)[number];
export const WORKSPACE_SOURCES = ['explicit', 'compaction', 'manual', 'team', 'session'] as const;
export type WorkspaceSource = (typeof WORKSPACE_SOURCES)[number];

/** Confidence by source: said on purpose 1.0, found in a compaction summary 0.75, imported 0.9, from the team file 1.0, a session's decision 0.8. */
export const SOURCE_CONFIDENCE: Record<WorkspaceSource, number> = { explicit: 1, compaction: 0.75, manual: 0.9, team: 1, session: 0.8 };
export const MAX_ENTRIES = 28;
export const MAX_RENDERED_CHARS = 5200;
export const MAX_ENTRY_CHARS = 1000;
/** After how many days an entry of a type is shown with `[Nd old, verify]`. */
export const STALE_AFTER_DAYS: Partial<Record<WorkspaceType, number>> = { decision: 45, project: 60, reference: 90 };

export interface WorkspaceEntry {
  id: string;
  type: WorkspaceType;
  text: string;
  source: WorkspaceSource;
  confidence: number;
  created: string;
  updated: string;
  /** The session a `session` entry came from (its decisions, offered when it ended). */
  session?: string;
}

export interface WorkspaceFile {
  version: 1;
  entries: WorkspaceEntry[];
}

export interface EntryInput {
  type: string;
  text: string;
  source?: string;
  confidence?: number;
  created?: string;
  /** With source `session`: the session it comes from. */
  session?: string;
}

export type AddOutcome =
  | { ok: true; file: WorkspaceFile; entry: WorkspaceEntry; status: 'added' | 'merged' | 'unchanged'; evicted: WorkspaceEntry[] }
  | { ok: false; refusal: GateRefusal };

export function emptyWorkspace(): WorkspaceFile {
  return { version: 1, entries: [] };
}

/** Lowercase, no punctuation, folded spaces: two texts with the same canonical form are one entry. */
export function canonical(text: string): string {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s]+/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

export function entryId(text: string): string {
  return 'm-' + sha256Hex(canonical(text)).slice(0, 8);
}

function isType(value: unknown): value is WorkspaceType {
  return typeof value === 'string' && (WORKSPACE_TYPES as readonly string[]).includes(value);
}

function isSource(value: unknown): value is WorkspaceSource {
  return typeof value === 'string' && (WORKSPACE_SOURCES as readonly string[]).includes(value);
}

function isoOr(value: unknown, fallback: string): string {
  if (typeof value === 'number' && Number.isFinite(value)) return isoTime(new Date(value));
  if (typeof value === 'string' && !Number.isNaN(Date.parse(value))) return isoTime(new Date(value));
  return fallback;
}

/**
 * Any earlier or foreign shape, upgraded on load, never refused (docs/operations.md): a bare list, a file
 * without a version, OpenCode's `createdAt`/`updatedAt` entries. Entries without text are dropped
 * and counted.
 */
export function migrateWorkspace(raw: unknown): { file: WorkspaceFile; dropped: number } {
  const list = Array.isArray(raw) ? raw : raw && typeof raw === 'object' && Array.isArray((raw as { entries?: unknown }).entries) ? (raw as { entries: unknown[] }).entries : [];
  const entries: WorkspaceEntry[] = [];
  let dropped = 0;
  for (const item of list) {
    const e = (item && typeof item === 'object' ? item : {}) as Record<string, unknown>;
    const text = typeof e.text === 'string' ? e.text.trim() : '';
    if (!text) {
      dropped++;
      continue;
    }
    const source: WorkspaceSource = isSource(e.source) ? e.source : 'manual';
    const confidence = typeof e.confidence === 'number' && e.confidence >= 0 && e.confidence <= 1 ? e.confidence : SOURCE_CONFIDENCE[source];
    const created = isoOr(e.created ?? e.createdAt, '1970-01-01T00:00:00.000Z');
    entries.push({
      id: typeof e.id === 'string' && /^[A-Za-z0-9._-]{1,64}$/.test(e.id) ? e.id : entryId(text),
      type: isType(e.type) ? e.type : 'project',
      text,
      source,
      confidence,
      created,
      updated: isoOr(e.updated ?? e.updatedAt, created),
      ...(source === 'session' && typeof e.session === 'string' && /^[A-Za-z0-9._-]{1,128}$/.test(e.session) ? { session: e.session } : {}),
    });
  }
  return { file: { version: 1, entries }, dropped };
}

/** One entry as injected: `- [type] text (id)`, plus its age when it may be stale. */
export function renderEntry(entry: WorkspaceEntry, reference?: Date): string {
  let line = `- [${entry.type}] ${entry.text.replace(/\s*\n\s*/g, ' ')} (${entry.id}${entry.source === 'team' ? ', team' : ''})`;
  const limit = STALE_AFTER_DAYS[entry.type];
  if (limit !== undefined && reference) {
    const days = Math.floor((reference.getTime() - Date.parse(entry.updated)) / 86_400_000);
    if (days >= limit) line += ` [${days}d old, verify]`;
  }
  return line;
}

/**
 * The newest `updated` time in the file: the clock that ages are measured against, so the
 * rendered block depends on the file alone (same file → same bytes, docs/context.md). An entry is shown
 * as stale when it is old compared with the latest thing the project remembered.
 */
export function referenceTime(file: WorkspaceFile): Date | undefined {
  let max = -Infinity;
  for (const e of file.entries) max = Math.max(max, Date.parse(e.updated));
  return Number.isFinite(max) ? new Date(max) : undefined;
}

/**
 * Code-unit order, not localeCompare's: the same bytes whatever the user's locale, and no ICU
 * collator to build (its first use cost a hook 10-20 ms of CPU). For what wmem writes (ISO times,
 * `m-` and hex ids) the two orders agree.
 */
function byCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export function sortForRender(entries: WorkspaceEntry[]): WorkspaceEntry[] {
  const order = (t: WorkspaceType) => WORKSPACE_TYPES.indexOf(t);
  return [...entries].sort((a, b) => order(a.type) - order(b.type) || byCodeUnits(a.created, b.created) || byCodeUnits(a.id, b.id));
}

/** The block's body (without tags), or '' when there is nothing to show. */
export function renderWorkspace(file: WorkspaceFile): string {
  const reference = referenceTime(file);
  return sortForRender(file.entries)
    .map((e) => renderEntry(e, reference))
    .join('\n');
}

/** What counts against the 5200-character limit: the rendered lines without ages. */
export function renderedSize(entries: WorkspaceEntry[]): number {
  return entries.reduce((n, e) => n + renderEntry(e).length + 1, 0);
}

/** Removes the lowest-confidence, oldest entries until the limits hold; `keepId` is never removed. */
export function enforceLimits(entries: WorkspaceEntry[], keepId?: string): { kept: WorkspaceEntry[]; evicted: WorkspaceEntry[] } {
  const kept = [...entries];
  const evicted: WorkspaceEntry[] = [];
  const victims = [...entries]
    .filter((e) => e.id !== keepId)
    .sort((a, b) => a.confidence - b.confidence || byCodeUnits(a.updated, b.updated) || byCodeUnits(a.created, b.created) || byCodeUnits(a.id, b.id));
  while ((kept.length > MAX_ENTRIES || renderedSize(kept) > MAX_RENDERED_CHARS) && victims.length) {
    const victim = victims.shift()!;
    kept.splice(kept.indexOf(victim), 1);
    evicted.push(victim);
  }
  return { kept, evicted };
}

/** Checks an input's type, source and text; returns a refusal or the normalized fields. */
export function validateInput(input: EntryInput): { refusal: GateRefusal } | { type: WorkspaceType; source: WorkspaceSource; text: string; confidence: number } {
  if (!isType(input.type)) {
    return { refusal: { rule: 'unknown-type', reason: `unknown type ${JSON.stringify(input.type)}: use one of ${WORKSPACE_TYPES.join(', ')}` } };
  }
  const source: WorkspaceSource = input.source === undefined ? 'explicit' : isSource(input.source) ? input.source : 'manual';
  const refusal = checkWorkspaceText(input.text);
  const text = input.text.trim().replace(/\s*\n\s*/g, ' ');
  if (refusal) return { refusal };
  if (text.length > MAX_ENTRY_CHARS) {
    return { refusal: { rule: 'too-long', reason: `it is ${text.length} characters; an entry holds at most ${MAX_ENTRY_CHARS} (put long material in a detail file and remember where)` } };
  }
  const confidence = typeof input.confidence === 'number' && input.confidence >= 0 && input.confidence <= 1 ? input.confidence : SOURCE_CONFIDENCE[source];
  return { type: input.type, source, text, confidence };
}

/** Adds an entry through the gate, folding a canonical duplicate and enforcing the limits. */
export function addEntry(file: WorkspaceFile, input: EntryInput, now: Date): AddOutcome {
  const checked = validateInput(input);
  if ('refusal' in checked) return { ok: false, refusal: checked.refusal };
  const stamp = isoTime(now);
  const key = canonical(checked.text);
  const existing = file.entries.find((e) => canonical(e.text) === key);
  if (existing) {
    const wins = checked.confidence > existing.confidence;
    if (!wins && restatedBySameSession(existing, checked.source, input)) return { ok: true, file, entry: existing, status: 'unchanged', evicted: [] };
    const { session: _was, ...rest } = existing;
    const merged: WorkspaceEntry = wins
      ? { ...rest, type: checked.type, text: checked.text, source: checked.source, confidence: checked.confidence, updated: stamp, ...sessionOf(checked.source, input) }
      : { ...existing, updated: stamp };
    const entries = file.entries.map((e) => (e === existing ? merged : e));
    return { ok: true, file: { version: 1, entries }, entry: merged, status: wins ? 'merged' : 'unchanged', evicted: [] };
  }
  let id = entryId(checked.text);
  for (let n = 2; file.entries.some((e) => e.id === id); n++) id = `${entryId(checked.text)}-${n}`;
  const created = input.created ? isoOr(input.created, stamp) : stamp;
  const entry: WorkspaceEntry = { id, type: checked.type, text: checked.text, source: checked.source, confidence: checked.confidence, created, updated: stamp, ...sessionOf(checked.source, input) };
  const { kept, evicted } = enforceLimits([...file.entries, entry], id);
  return { ok: true, file: { version: 1, entries: kept }, entry, status: 'added', evicted };
}

/**
 * A session offering again a decision it placed itself (its end moment comes again after a
 * resume, or after a consolidation): no one confirmed anything, so its date is not refreshed and
 * the file is not rewritten (a rewrite would make the next prompt render memory anew).
 */
function restatedBySameSession(existing: WorkspaceEntry, source: WorkspaceSource, input: EntryInput): boolean {
  return source === 'session' && existing.source === 'session' && input.session !== undefined && existing.session === input.session;
}

function sessionOf(source: WorkspaceSource, input: EntryInput): { session?: string } {
  return source === 'session' && input.session ? { session: input.session } : {};
}

export function removeEntry(file: WorkspaceFile, id: string): { file: WorkspaceFile; removed?: WorkspaceEntry } {
  const removed = file.entries.find((e) => e.id === id);
  return { file: { version: 1, entries: file.entries.filter((e) => e !== removed) }, removed };
}

const CANDIDATE_BLOCK = /<workspace_memory_candidates>([\s\S]*?)<\/workspace_memory_candidates>/gi;

/**
 * The candidates in `<workspace_memory_candidates>` blocks: one a line, `- [type] text`,
 * `- type: text` or a JSON object `{"type","text"}`; a line without a type is a `project` fact.
 */
export function extractCandidates(text: string): { type: string; text: string }[] {
  const out: { type: string; text: string }[] = [];
  for (const match of text.matchAll(CANDIDATE_BLOCK)) {
    for (const rawLine of match[1].split('\n')) {
      const line = rawLine.trim();
      if (!line) continue;
      if (line.startsWith('{')) {
        try {
          const obj = JSON.parse(line) as { type?: unknown; text?: unknown };
          if (typeof obj.text === 'string') out.push({ type: typeof obj.type === 'string' ? obj.type : 'project', text: obj.text });
          continue;
        } catch {
          /* not JSON: read as text */
        }
      }
      const body = line.replace(/^(?:[-*+]|\d+[.)])\s+/, '');
      const bracket = /^\[(\w+)\]\s*(.+)$/.exec(body);
      const colon = /^(feedback|project|decision|reference)\s*:\s*(.+)$/i.exec(body);
      if (bracket) out.push({ type: bracket[1].toLowerCase(), text: bracket[2] });
      else if (colon) out.push({ type: colon[1].toLowerCase(), text: colon[2] });
      else out.push({ type: 'project', text: body });
    }
  }
  return out;
}
