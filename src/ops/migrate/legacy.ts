// `wmem migrate legacy`: the older flat layout (`<id>.jsonl` + `<id>.meta.json` beside each other
// in a project folder) becomes `<id>/messages.jsonl`, `<id>/meta.json` (every field kept) and a
// fresh working-memory/. Each step is atomic and checks what a previous run did, so a migration
// killed at any point is finished by running it again; the old files go only once the new ones
// are durable and byte-identical.
import { createHash } from 'node:crypto';
import { createReadStream, promises as fs, constants as fsc } from 'node:fs';
import path from 'node:path';
import { assertLocksHeld, ensureDir, exists, fsyncDir, readTextIfExists } from '../../store/fsx.js';
import { isValidSessionId, projectFilePath, sessionPaths } from '../../store/paths.js';
import { listProjectDirs } from '../../store/project.js';
import { upgradeMeta, writeMeta, type SessionMeta } from '../../store/session.js';
import type { ProjectRef } from '../../store/project.js';
import { removeAtomicLeftovers, removeStaleTemps } from '../../history/stream/index.js';

export interface LegacyItem {
  project: string;
  id: string;
  messages?: string;
  meta?: string;
}

export interface LegacyOutcome extends LegacyItem {
  status: 'migrated' | 'would migrate' | 'conflict' | 'error';
  actions: string[];
  error?: string;
}

/** Pure: the legacy sessions among a project folder's file names. */
export function findLegacy(names: string[]): { id: string; messages: boolean; meta: boolean }[] {
  const found = new Map<string, { id: string; messages: boolean; meta: boolean }>();
  for (const name of names) {
    if (name.startsWith('workspace-memory') || name.startsWith('.')) continue;
    const m = /^(.+?)(\.meta\.json|\.jsonl)$/.exec(name);
    if (!m || !isValidSessionId(m[1])) continue;
    const item = found.get(m[1]) ?? { id: m[1], messages: false, meta: false };
    if (m[2] === '.jsonl') item.messages = true;
    else item.meta = true;
    found.set(m[1], item);
  }
  return [...found.values()].sort((a, b) => (a.id < b.id ? -1 : 1));
}

async function fileHash(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

async function sameBytes(a: string, b: string): Promise<boolean> {
  const [sa, sb] = await Promise.all([fs.stat(a), fs.stat(b)]);
  if (sa.size !== sb.size) return false;
  return (await fileHash(a)) === (await fileHash(b));
}

/** Copies `from` to `to` atomically: a temp file, fsync, rename, fsync of the folder. */
async function copyDurably(from: string, to: string): Promise<void> {
  // Hidden and ending in the pid: the shape sweeps recognise as a temp of a dead process.
  const temp = path.join(path.dirname(to), `.${path.basename(to)}.${Date.now()}.${process.pid}.tmp`);
  try {
    await fs.copyFile(from, temp, fsc.COPYFILE_EXCL);
    await fs.chmod(temp, 0o600);
    const handle = await fs.open(temp, 'r+');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
    assertLocksHeld();
    await fs.rename(temp, to);
  } finally {
    await fs.unlink(temp).catch(() => {});
  }
  await fsyncDir(path.dirname(to));
}

async function projectRefFor(dir: string): Promise<ProjectRef> {
  const text = await readTextIfExists(projectFilePath(dir));
  let cwd = '';
  try {
    cwd = text ? String((JSON.parse(text) as { cwd?: unknown }).cwd ?? '') : '';
  } catch {
    /* an unreadable project.json: the meta keeps its own cwd */
  }
  return { dir, cwd };
}

async function migrateOne(project: ProjectRef, item: { id: string; messages: boolean; meta: boolean }, dryRun: boolean, now: Date, overviewTemplate: () => string): Promise<LegacyOutcome> {
  const paths = sessionPaths(project.dir, item.id);
  const oldMessages = item.messages ? path.join(project.dir, `${item.id}.jsonl`) : undefined;
  const oldMeta = item.meta ? path.join(project.dir, `${item.id}.meta.json`) : undefined;
  const outcome: LegacyOutcome = { project: project.dir, id: item.id, messages: oldMessages, meta: oldMeta, status: dryRun ? 'would migrate' : 'migrated', actions: [] };
  const act = (what: string) => outcome.actions.push(what);

  let metaRaw: Record<string, unknown> = {};
  if (oldMeta) {
    try {
      const parsed = JSON.parse((await readTextIfExists(oldMeta)) ?? '{}');
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('not a JSON object');
      metaRaw = parsed as Record<string, unknown>;
    } catch (err) {
      return { ...outcome, status: 'error', error: `${oldMeta} is not valid JSON (${(err as Error).message}); fix it and run the migration again` };
    }
  }
  if (oldMessages && (await exists(paths.messages)) && !(await sameBytes(oldMessages, paths.messages))) {
    const target = await fs.stat(paths.messages);
    if (target.size > 0) {
      return { ...outcome, status: 'conflict', error: `${paths.messages} already exists and differs from ${oldMessages}; both kept, move one away and run again` };
    }
  }
  if (dryRun) {
    if (oldMessages) act(`copy ${oldMessages} → ${paths.messages}`);
    act(`write ${paths.meta}${oldMeta ? ` (every field of ${oldMeta})` : ''}`);
    act(`create ${paths.workingMemory}/`);
    for (const f of [oldMessages, oldMeta]) if (f) act(`remove ${f}`);
    return outcome;
  }

  await ensureDir(paths.dir, true);
  // A run killed while copying or writing meta.json leaves a temp file: the copy's goes once its
  // process is gone; meta.json's, of any age, as this run writes meta.json itself.
  await removeStaleTemps([paths.dir]);
  await removeAtomicLeftovers([paths.dir], paths.stateDir, 0);
  if (oldMessages) {
    const present = await exists(paths.messages);
    if (!present || (await fs.stat(paths.messages)).size === 0) {
      if (present) await fs.unlink(paths.messages);
      await copyDurably(oldMessages, paths.messages);
      act(`copied ${oldMessages} → ${paths.messages}`);
    }
  }
  if (!(await exists(paths.meta))) {
    const stat = await fs.stat(oldMeta ?? oldMessages!);
    const meta: SessionMeta = upgradeMeta({
      ...metaRaw,
      ...(metaRaw.id !== undefined && metaRaw.id !== item.id ? { legacyId: metaRaw.id } : {}),
      id: item.id,
      cwd: typeof metaRaw.cwd === 'string' && metaRaw.cwd ? metaRaw.cwd : project.cwd,
      createdAt: typeof metaRaw.createdAt === 'string' ? metaRaw.createdAt : stat.mtime.toISOString(),
      migratedFrom: 'legacy',
      migratedAt: now.toISOString(),
    });
    await writeMeta(paths, meta);
    act(`wrote ${paths.meta}`);
  }
  const { ensureSessionTree } = await import('../../store/session-tree.js');
  const created = await ensureSessionTree(project, item.id, { overviewTemplate: overviewTemplate(), now });
  if (created.length) act(`created ${created.join(', ')}`);
  // The old files go last, each only once its replacement is durable and identical.
  if (oldMessages) {
    if (!(await sameBytes(oldMessages, paths.messages))) {
      return { ...outcome, status: 'conflict', error: `${paths.messages} differs from ${oldMessages}; both kept` };
    }
    await fs.unlink(oldMessages);
    act(`removed ${oldMessages}`);
  }
  if (oldMeta) {
    await fs.unlink(oldMeta);
    act(`removed ${oldMeta}`);
  }
  return outcome;
}

export async function migrateLegacy(home: string, options: { dryRun: boolean; now: Date; overviewTemplate: () => string }): Promise<LegacyOutcome[]> {
  const outcomes: LegacyOutcome[] = [];
  for (const dir of await listProjectDirs(home)) {
    const names = (await fs.readdir(dir, { withFileTypes: true })).filter((e) => e.isFile()).map((e) => e.name);
    const items = findLegacy(names);
    if (!items.length) continue;
    const project = await projectRefFor(dir);
    for (const item of items) {
      try {
        outcomes.push(await migrateOne(project, item, options.dryRun, options.now, options.overviewTemplate));
      } catch (err) {
        outcomes.push({ project: dir, id: item.id, status: 'error', actions: [], error: (err as Error).message });
      }
    }
  }
  return outcomes;
}
