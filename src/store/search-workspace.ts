// What `wmem search` reads of workspace memory: the project's workspace-memory.json and the
// repository's team file (.wmem/memory.md), each as lines at their real line numbers, under the
// rule the block follows (memory/workspace-block.ts): one entry per id, the newest copy. A line
// whose entry lost to a newer copy (an older duplicate, an own entry a teammate edited since)
// is blank, and so is a team line never shown to an agent (a secret, an instruction: teamRefusal).
import { workspaceFilePath, readWorkspaceSync } from './workspace.js';
import { asWorkspaceEntry, notAfter, parseTeam, shownTeamEntries } from '../memory/team.js';
import { mergeTeam } from '../memory/workspace-block.js';
import type { WorkspaceEntry } from '../memory/workspace.js';
import { readRegularSync } from './regular-file.js';

export interface WorkspaceSearchText {
  workspace?: string;
  team?: string;
}

function readOrUndefined(file: string): string | undefined {
  try {
    return readRegularSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

/** The searchable text of workspace memory (`teamFile`: the repository's team file, if any). */
export function workspaceSearchText(projectDir: string, teamFile: string | undefined, nowMs: number): WorkspaceSearchText {
  const raw = readOrUndefined(workspaceFilePath(projectDir));
  let own: WorkspaceEntry[] = [];
  try {
    if (raw !== undefined) own = readWorkspaceSync(projectDir).entries;
  } catch {
    /* not JSON: searched as lines below, nothing to merge */
  }
  const teamText = teamFile === undefined ? undefined : readOrUndefined(teamFile);
  if (teamText === undefined) return { workspace: raw === undefined ? undefined : workspaceLines(raw, own, () => true) };
  const latest = notAfter(nowMs);
  const lines = teamText.split('\n');
  const winners = shownTeamEntries(parseTeam(teamText).entries, latest);
  const asEntries = winners.map((e) => asWorkspaceEntry(e, latest));
  const kept = new Set(mergeTeam(own, asEntries));
  const teamLines = new Array<string>(lines.length).fill('');
  winners.forEach((e, i) => {
    if (kept.has(asEntries[i])) teamLines[e.line - 1] = `[${e.type}] ${e.text} (${e.id}, team)`;
  });
  return { workspace: raw === undefined ? undefined : workspaceLines(raw, own, (e) => kept.has(e)), team: teamLines.join('\n') };
}

/**
 * workspace-memory.json as searchable lines at their real line numbers: each entry's `"text"`
 * line holds its text (wmem writes the file indented, one field a line); a file written on one
 * line by someone else is searched entry by entry instead. An entry `shown` refuses is blank.
 */
function workspaceLines(raw: string, own: WorkspaceEntry[], shown: (e: WorkspaceEntry) => boolean): string {
  const lines = raw.split('\n');
  let found = 0;
  const out = lines.map((line) => {
    const m = /^\s*"text":\s*("(?:[^"\\]|\\.)*")\s*,?\s*$/.exec(line);
    if (!m) return '';
    try {
      const text = JSON.parse(m[1]) as string;
      const entry = own[found++];
      // The n-th text line is the n-th entry when the counts agree (entries without text are dropped on load).
      return entry && entry.text !== text.trim() ? text : entry && !shown(entry) ? '' : text;
    } catch {
      return '';
    }
  });
  if (found) return out.join('\n');
  return own
    .filter(shown)
    .map((e) => `[${e.type}] ${e.text} (${e.id})`)
    .join('\n');
}
