// Pure: the team memory file, `.wmem/memory.md` at a repository's root (docs/team.md). One entry a
// line, `- [type] text <!-- id, created, updated -->`, sorted by id, so that two branches that
// each add entries merge line by line (git's union merge driver). After such a merge an id may
// appear twice: the newest `updated` wins, then the greater text, so every machine resolves it
// the same way. Lines that are not entries are kept where they can be and reported, never dropped.
import { findSecret } from './gate.js';
import { instructsModel } from './injection.js';
import { MAX_ENTRY_CHARS, WORKSPACE_TYPES, type WorkspaceEntry, type WorkspaceType } from './workspace.js';
import { FUTURE_SLACK_MS, OLDEST, WORKSPACE_LIMITS, composeWorkspace, newerCopy, updatedRank } from './workspace-block.js';

export const TEAM_ATTRIBUTES = '.wmem/memory.md merge=union';

export interface TeamEntry {
  id: string;
  type: WorkspaceType;
  text: string;
  created: string;
  updated: string;
  /** 1-based line number in the file it was read from. */
  line: number;
}

export interface TeamFile {
  /** Headings, comments and blank lines before the first entry, kept as they are. */
  preamble: string[];
  entries: TeamEntry[];
  /** Lines that are neither entries nor preamble: kept (at the end) and reported. */
  malformed: { line: number; raw: string }[];
}

export const TEAM_PREAMBLE = [
  '# Team memory',
  '',
  '<!-- Written by `wmem share` and read by every wmem session of this repository. -->',
  '<!-- One entry a line, sorted by id; git merges it line by line (merge=union in .gitattributes). -->',
  '<!-- Check it with `wmem share --check`. Never put a secret here: this file is committed. -->',
  '',
];

const ISO = '\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d(?:\\.\\d+)?Z';
const ENTRY = new RegExp(`^- \\[(\\w+)\\] (.+) <!-- ([A-Za-z0-9._-]{1,64}), (${ISO}), (${ISO}) -->$`);

/** Text as it can stand on an entry line: one line, and nothing that opens or closes a comment. */
export function lineSafe(text: string): string {
  return text.replace(/\s*\r?\n\s*/g, ' ').replace(/<!--/g, '< !--').replace(/-->/g, '-- >').trim();
}

export function formatEntry(entry: Omit<TeamEntry, 'line'>): string {
  return `- [${entry.type}] ${lineSafe(entry.text)} <!-- ${entry.id}, ${entry.created}, ${entry.updated} -->`;
}

export function parseTeam(text: string): TeamFile {
  const file: TeamFile = { preamble: [], entries: [], malformed: [] };
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  lines.forEach((rawLine, index) => {
    const raw = rawLine.replace(/\r$/, '');
    const match = ENTRY.exec(raw);
    if (match && (WORKSPACE_TYPES as readonly string[]).includes(match[1])) {
      file.entries.push({ type: match[1] as WorkspaceType, text: match[2], id: match[3], created: match[4], updated: match[5], line: index + 1 });
    } else if (!file.entries.length && !file.malformed.length && isPreamble(raw)) {
      file.preamble.push(raw);
    } else if (raw.trim() !== '') {
      file.malformed.push({ line: index + 1, raw });
    }
  });
  return file;
}

/** A blank line, a heading, or one whole comment on its line. */
function isPreamble(line: string): boolean {
  return line.trim() === '' || line.startsWith('#') || /^<!--.*-->\s*$/.test(line);
}

/** The latest `updated` that counts when read at `nowMs` (later ones are the future: broken). */
export function notAfter(nowMs: number): number {
  return nowMs + FUTURE_SLACK_MS;
}

/** The file's order: by id, in code units (the same on every machine). */
const byIdOrder = (a: TeamEntry, b: TeamEntry) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/**
 * One entry per id (the winner: newest `updated`, a broken or future one counting as the oldest,
 * then the greater text; see newerCopy), sorted by id; and the ids that appeared more than once.
 */
export function resolveTeam(entries: TeamEntry[], latest = Infinity): { entries: TeamEntry[]; duplicates: { id: string; lines: number[] }[] } {
  const byId = new Map<string, TeamEntry>();
  const lines = new Map<string, number[]>();
  for (const entry of entries) {
    const seen = byId.get(entry.id);
    byId.set(entry.id, seen ? newerCopy(seen, entry, latest) : entry);
    const at = lines.get(entry.id);
    if (at) at.push(entry.line);
    else lines.set(entry.id, [entry.line]);
  }
  const duplicates = [...lines].filter(([, at]) => at.length > 1).map(([id, at]) => ({ id, lines: at }));
  return { entries: [...byId.values()].sort(byIdOrder), duplicates };
}

/**
 * The file's text: the preamble (the default one for a new file), entries by id, then kept
 * malformed lines. Each id keeps its shown copy (shownTeamEntries); a line never shown (a secret,
 * an instruction to the model) is kept as it is beside it for a person to remove, never chosen over
 * a teammate's copy.
 */
export function formatTeam(file: TeamFile, latest = Infinity): string {
  const preamble = file.preamble.length ? file.preamble : TEAM_PREAMBLE;
  const refused = file.entries.filter((e) => teamRefusal(e.text));
  const body = [...shownTeamEntries(file.entries, latest), ...refused].sort(byIdOrder).map(formatEntry);
  return [...preamble, ...body, ...file.malformed.map((m) => m.raw)].join('\n') + '\n';
}

/** `file` with `entries` put in (replacing those of the same id). */
export function upsertTeam(file: TeamFile, entries: Omit<TeamEntry, 'line'>[]): TeamFile {
  const ids = new Set(entries.map((e) => e.id));
  return { ...file, entries: [...file.entries.filter((e) => !ids.has(e.id)), ...entries.map((e) => ({ ...e, line: 0 }))] };
}

/** One change `wmem share --diff` shows: a line added or removed, or an entry's line changed. */
export type TeamChange = { kind: 'add' | 'remove'; id: string; line: string } | { kind: 'change'; id: string; from: string; to: string };

/**
 * What writing `after` (formatted) does to the file `before` as it is: per id, the lines it had
 * and the one it will have. Two lines of one id collapsing into one show as the loser removed.
 */
export function diffTeam(before: TeamFile, after: TeamFile, latest = Infinity): TeamChange[] {
  const had = new Map<string, string[]>();
  for (const e of before.entries) had.set(e.id, [...(had.get(e.id) ?? []), formatEntry(e)]);
  // What formatTeam writes: each id's shown copy, and the refused lines beside it as they are.
  const shown = (file: TeamFile) => new Map(shownTeamEntries(file.entries, latest).map((e) => [e.id, formatEntry(e)]));
  const will = shown(after);
  const winner = shown(before);
  const refused = after.entries.filter((e) => teamRefusal(e.text));
  const changes: TeamChange[] = [];
  for (const id of [...new Set([...had.keys(), ...will.keys()])].sort()) {
    const lines = had.get(id) ?? [];
    const next = will.get(id);
    const from = winner.get(id);
    const changed = next !== undefined && !lines.includes(next);
    if (changed) changes.push(from === undefined ? { kind: 'add', id, line: next } : { kind: 'change', id, from, to: next });
    const kept = new Set([...(next === undefined ? [] : [next]), ...refused.filter((e) => e.id === id).map(formatEntry)]);
    for (const line of lines) if (!kept.has(line) && !(changed && line === from)) changes.push({ kind: 'remove', id, line });
  }
  return changes;
}

export function removeFromTeam(file: TeamFile, id: string): { file: TeamFile; removed: number } {
  const kept = file.entries.filter((e) => e.id !== id);
  return { file: { ...file, entries: kept }, removed: file.entries.length - kept.length };
}

/**
 * Why a team entry is never shown to an agent: a secret, or text that instructs the model. The
 * file comes from git (any branch, any pull request), past the gate `remember` applies; of that
 * gate's rules only these two make an entry harmful to inject. The others (too short, a trace, a
 * raw error, a commit hash, mostly paths) judge what is worth remembering, which a reviewed team
 * fact may be all the same (docs/team.md).
 */
export function teamRefusal(text: string): { rule: 'secret' | 'injection'; reason: string } | undefined {
  const secret = findSecret(text);
  if (secret) return { rule: 'secret', reason: `holds what looks like ${secret.kind}: remove it from the file and rotate the secret` };
  if (instructsModel(text)) return { rule: 'injection', reason: `tries to instruct the model that reads the memory ("ignore previous instructions" and the like): it is never shown to an agent; remove it from the file` };
  return undefined;
}

/**
 * The entries an agent is shown, one per id: the lines teamRefusal refuses are left out before the
 * newest copy of each id is chosen, so a planted line cannot hide (or, through `wmem share`,
 * erase) a teammate's legitimate copy by being newer.
 */
export function shownTeamEntries(entries: TeamEntry[], latest: number): TeamEntry[] {
  return resolveTeam(entries.filter((e) => !teamRefusal(e.text)), latest).entries;
}

export interface TeamProblem {
  kind: 'duplicate' | 'malformed' | 'secret' | 'injection' | 'over-limit' | 'updated';
  /** A warning is reported but does not fail the check. */
  severity: 'error' | 'warning';
  line: number;
  message: string;
}

export interface TeamCheck {
  problems: TeamProblem[];
  /** Entries (one per id, those teamRefusal refuses left out) and how many of them a session's block holds on its own. */
  entries: number;
  injected: number;
}

/**
 * What `wmem share --check` reports: duplicates, malformed lines, secrets and instructions to the
 * model (teamRefusal), entries over the size limit, broken or future `updated` times (read at
 * `nowMs`); and, as a warning, how many entries do not fit the injected block (they stay reachable
 * through `wmem memories --team` and search).
 */
export function checkTeam(file: TeamFile, nowMs: number): TeamCheck {
  const problems: TeamProblem[] = [];
  const error = (kind: TeamProblem['kind'], line: number, message: string) => problems.push({ kind, severity: 'error', line, message });
  const latest = notAfter(nowMs);
  const { entries, duplicates } = resolveTeam(file.entries, latest);
  for (const d of duplicates) error('duplicate', d.lines[1], `id ${d.id} appears on lines ${d.lines.join(', ')} (the newest "updated" wins; the next wmem share keeps only that one)`);
  for (const m of file.malformed) error('malformed', m.line, 'not an entry line (- [type] text <!-- id, created, updated -->); kept as it is');
  const refused = new Set<TeamEntry>();
  for (const e of file.entries) {
    const refusal = teamRefusal(e.text);
    if (refusal) refused.add(e);
    if (refusal) error(refusal.rule, e.line, `entry ${e.id} ${refusal.reason}`);
    if (e.text.length > MAX_ENTRY_CHARS) error('over-limit', e.line, `entry ${e.id} is ${e.text.length} characters; at most ${MAX_ENTRY_CHARS}`);
    if (updatedRank(e.updated, latest) === -Infinity) {
      const why = Number.isNaN(Date.parse(e.updated)) ? 'is not a real time' : 'is in the future';
      error('updated', e.line, `entry ${e.id}: "updated" ${e.updated} ${why}; it counts as the oldest copy until fixed`);
    }
  }
  for (const m of file.malformed) {
    const secret = findSecret(m.raw);
    if (secret) error('secret', m.line, `the line holds what looks like ${secret.kind}: remove it and rotate the secret`);
  }
  const shown = entries.filter((e) => !refused.has(e)).map((e) => asWorkspaceEntry(e, latest));
  const injected = composeWorkspace(shown).shown.length;
  if (injected < shown.length) {
    problems.push({
      kind: 'over-limit',
      severity: 'warning',
      line: 0,
      message: `${shown.length - injected} of ${shown.length} entries are not injected (a session's block holds ${WORKSPACE_LIMITS.entries} entries, ${WORKSPACE_LIMITS.chars} characters, filled by priority); they stay reachable through wmem memories --team and wmem search`,
    });
  }
  return { problems: problems.sort((a, b) => a.line - b.line), entries: shown.length, injected };
}

/** A team entry as workspace memory (source `team`), for rendering beside the private ones. */
export function asWorkspaceEntry(entry: Omit<TeamEntry, 'line'>, latest = Infinity): WorkspaceEntry {
  // A broken or future `updated` counts as the oldest, here and in every comparison after.
  const updated = updatedRank(entry.updated, latest) === -Infinity ? OLDEST : entry.updated;
  return { id: entry.id, type: entry.type, text: entry.text, source: 'team', confidence: 1, created: entry.created, updated };
}
