// Pure: the team memory file, `.wmem/memory.md` at a repository's root (docs/team.md). One entry a
// line, `- [type] text <!-- id, created, updated -->`, sorted by id, so that two branches that
// each add entries merge line by line (git's union merge driver). After such a merge an id may
// appear twice: the newest `updated` wins, then the greater text, so every machine resolves it
// the same way. Lines that are not entries are kept where they can be and reported, never dropped.
import { findSecret } from './gate.js';
import { MAX_ENTRIES, MAX_ENTRY_CHARS, MAX_RENDERED_CHARS, WORKSPACE_TYPES, renderEntry, type WorkspaceEntry, type WorkspaceType } from './workspace.js';

export const TEAM_FILE = '.wmem/memory.md';
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

/** Of two entries with one id, the one every machine keeps: newest `updated`, then greater text. */
function newer(a: TeamEntry, b: TeamEntry): TeamEntry {
  if (a.updated !== b.updated) return a.updated > b.updated ? a : b;
  return a.text >= b.text ? a : b;
}

/** One entry per id (the winner), sorted by id; and the ids that appeared more than once. */
export function resolveTeam(entries: TeamEntry[]): { entries: TeamEntry[]; duplicates: { id: string; lines: number[] }[] } {
  const byId = new Map<string, TeamEntry>();
  const lines = new Map<string, number[]>();
  for (const entry of entries) {
    const seen = byId.get(entry.id);
    byId.set(entry.id, seen ? newer(seen, entry) : entry);
    lines.set(entry.id, [...(lines.get(entry.id) ?? []), entry.line]);
  }
  const duplicates = [...lines].filter(([, at]) => at.length > 1).map(([id, at]) => ({ id, lines: at }));
  return { entries: [...byId.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)), duplicates };
}

/** The file's text: the preamble (the default one for a new file), entries by id, then kept malformed lines. */
export function formatTeam(file: TeamFile): string {
  const preamble = file.preamble.length ? file.preamble : TEAM_PREAMBLE;
  const body = resolveTeam(file.entries).entries.map(formatEntry);
  return [...preamble, ...body, ...file.malformed.map((m) => m.raw)].join('\n') + '\n';
}

/** `file` with `entries` put in (replacing those of the same id). */
export function upsertTeam(file: TeamFile, entries: Omit<TeamEntry, 'line'>[]): TeamFile {
  const ids = new Set(entries.map((e) => e.id));
  return { ...file, entries: [...file.entries.filter((e) => !ids.has(e.id)), ...entries.map((e) => ({ ...e, line: 0 }))] };
}

export function removeFromTeam(file: TeamFile, id: string): { file: TeamFile; removed: number } {
  const kept = file.entries.filter((e) => e.id !== id);
  return { file: { ...file, entries: kept }, removed: file.entries.length - kept.length };
}

export interface TeamProblem {
  kind: 'duplicate' | 'malformed' | 'secret' | 'over-limit';
  line: number;
  message: string;
}

/** What `wmem share --check` reports: duplicates, malformed lines, secrets, sizes over the limits. */
export function checkTeam(file: TeamFile): TeamProblem[] {
  const problems: TeamProblem[] = [];
  const { entries, duplicates } = resolveTeam(file.entries);
  for (const d of duplicates) problems.push({ kind: 'duplicate', line: d.lines[1], message: `id ${d.id} appears on lines ${d.lines.join(', ')} (the newest "updated" wins; the next wmem share keeps only that one)` });
  for (const m of file.malformed) problems.push({ kind: 'malformed', line: m.line, message: 'not an entry line (- [type] text <!-- id, created, updated -->); kept as it is' });
  for (const e of file.entries) {
    const secret = findSecret(e.text);
    if (secret) problems.push({ kind: 'secret', line: e.line, message: `entry ${e.id} holds what looks like ${secret.kind}: remove it from the file and rotate the secret` });
    if (e.text.length > MAX_ENTRY_CHARS) problems.push({ kind: 'over-limit', line: e.line, message: `entry ${e.id} is ${e.text.length} characters; at most ${MAX_ENTRY_CHARS}` });
  }
  for (const m of file.malformed) {
    const secret = findSecret(m.raw);
    if (secret) problems.push({ kind: 'secret', line: m.line, message: `the line holds what looks like ${secret.kind}: remove it and rotate the secret` });
  }
  if (entries.length > MAX_ENTRIES) problems.push({ kind: 'over-limit', line: 0, message: `${entries.length} entries; at most ${MAX_ENTRIES}` });
  const size = entries.reduce((n, e) => n + renderEntry(asWorkspaceEntry(e)).length + 1, 0);
  if (size > MAX_RENDERED_CHARS) problems.push({ kind: 'over-limit', line: 0, message: `${size} characters as injected; at most ${MAX_RENDERED_CHARS}` });
  return problems.sort((a, b) => a.line - b.line);
}

/** A team entry as workspace memory (source `team`), for rendering beside the private ones. */
export function asWorkspaceEntry(entry: Omit<TeamEntry, 'line'>): WorkspaceEntry {
  return { id: entry.id, type: entry.type, text: entry.text, source: 'team', confidence: 1, created: entry.created, updated: entry.updated };
}
