// <project dir>/workspace-memory.json: read (upgraded from older shapes on load), and changed
// under the project folder's lock with an atomic replace. Every addition goes through the gate.
import path from 'node:path';
import { atomicWrite, withLock } from './fsx.js';
import { workspaceFilePath } from './paths.js';
import { jsonBreak, usageError } from '../ui/errors.js';
import {
  addEntry,
  emptyWorkspace,
  extractCandidates,
  migrateWorkspace,
  removeEntry,
  type EntryInput,
  type WorkspaceEntry,
  type WorkspaceFile,
} from '../memory/workspace.js';
import { readRegularSync } from './regular-file.js';

export { workspaceFilePath };

/** Synchronous and light: `wmem context` reads it on every prompt. */
export function readWorkspaceSync(projectDir: string): WorkspaceFile {
  const file = workspaceFilePath(projectDir);
  let text: string;
  try {
    text = readRegularSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return emptyWorkspace();
    throw usageError(`cannot read ${file}: ${(err as Error).message}`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw usageError(`${file} is not valid JSON (${jsonBreak(err, text)})`, 'fix that file, or move it away to start workspace memory afresh');
  }
  return migrateWorkspace(raw).file;
}

async function save(projectDir: string, file: WorkspaceFile): Promise<void> {
  await atomicWrite(workspaceFilePath(projectDir), JSON.stringify(file, null, 2) + '\n');
}

export interface AddResult {
  entry: WorkspaceEntry;
  status: 'added' | 'merged' | 'unchanged';
  evicted: WorkspaceEntry[];
}

/**
 * Adds one entry to the project's workspace memory through the gate. Throws a `WmemError`
 * (exit 2) naming the rule when the gate refuses; nothing is written then.
 */
export async function addWorkspaceEntry(projectDir: string, input: EntryInput, now: Date): Promise<AddResult> {
  return withLock(projectDir, async () => {
    const current = readWorkspaceSync(projectDir);
    const outcome = addEntry(current, input, now);
    if (!outcome.ok) throw usageError(`refused (${outcome.refusal.rule}): ${outcome.refusal.reason}`);
    if (outcome.status !== 'unchanged' || JSON.stringify(outcome.file) !== JSON.stringify(current)) await save(projectDir, outcome.file);
    return { entry: outcome.entry, status: outcome.status, evicted: outcome.evicted };
  });
}

export interface BatchResult {
  added: number;
  merged: number;
  refused: { text: string; reason: string }[];
  evicted: WorkspaceEntry[];
}

/** Many entries in one locked write; refusals are reported, not thrown. */
export async function addWorkspaceEntries(projectDir: string, inputs: EntryInput[], now: Date): Promise<BatchResult> {
  const result: BatchResult = { added: 0, merged: 0, refused: [], evicted: [] };
  if (!inputs.length) return result;
  await withLock(projectDir, async () => {
    let file = readWorkspaceSync(projectDir);
    const before = JSON.stringify(file);
    for (const input of inputs) {
      const outcome = addEntry(file, input, now);
      if (!outcome.ok) {
        result.refused.push({ text: input.text, reason: `${outcome.refusal.rule}: ${outcome.refusal.reason}` });
        continue;
      }
      file = outcome.file;
      if (outcome.status === 'added') result.added++;
      else if (outcome.status === 'merged') result.merged++;
      result.evicted.push(...outcome.evicted);
    }
    if (JSON.stringify(file) !== before) await save(projectDir, file);
  });
  return result;
}

/**
 * Promotes the candidates of every `<workspace_memory_candidates>` block in `text` (a compaction
 * summary, say) through the gate with source `compaction` (confidence 0.75).
 */
export async function promoteCandidates(projectDir: string, text: string, now: Date): Promise<BatchResult> {
  const candidates = extractCandidates(text).map((c) => ({ type: c.type, text: c.text, source: 'compaction' }));
  return addWorkspaceEntries(projectDir, candidates, now);
}

export async function removeWorkspaceEntry(projectDir: string, id: string): Promise<WorkspaceEntry> {
  return withLock(projectDir, async () => {
    const current = readWorkspaceSync(projectDir);
    const { file, removed } = removeEntry(current, id);
    if (!removed) {
      throw usageError(`no workspace memory entry ${JSON.stringify(id)} in ${workspaceFilePath(projectDir)}`, "run 'wmem memories' to list the ids");
    }
    await save(projectDir, file);
    return removed;
  });
}

/**
 * Brings the project's own copies of entries up to the team's newer ones (same id; the rule is
 * newerCopy's), keeping each entry's source: after `wmem share`, the local copy says what the team
 * file says. Returns the entries as they now are.
 */
export async function refreshFromTeam(projectDir: string, team: Map<string, Pick<WorkspaceEntry, 'type' | 'text' | 'created' | 'updated'>>, latest: number): Promise<WorkspaceEntry[]> {
  const { newerCopy } = await import('../memory/workspace-block.js');
  const stale = (e: WorkspaceEntry) => {
    const theirs = team.get(e.id);
    return theirs !== undefined && newerCopy(e, { ...e, ...theirs }, latest) !== e;
  };
  if (!readWorkspaceSync(projectDir).entries.some(stale)) return [];
  return withLock(projectDir, async () => {
    const current = readWorkspaceSync(projectDir);
    const refreshed: WorkspaceEntry[] = [];
    const entries = current.entries.map((e) => {
      if (!stale(e)) return e;
      const { type, text, created, updated } = team.get(e.id)!;
      const next = { ...e, type, text, created, updated };
      refreshed.push(next);
      return next;
    });
    if (refreshed.length) await save(projectDir, { version: 1, entries });
    return refreshed;
  });
}
