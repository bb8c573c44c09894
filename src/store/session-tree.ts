// A session's tree on disk (overview.md, scratch.md, messages.jsonl, meta.json and the folders),
// created from templates/ and never overwritten: shared by `wmem init`, the hooks (a session an
// agent names is created on its first hook) and the migrations.
import path from 'node:path';
import { assertStaysInside, createExclusive, ensureDir, withLock } from './fsx.js';
import { sessionPaths } from './paths.js';
import type { ProjectRef } from './project.js';
import { readMeta, writeMeta, type SessionMeta } from './session.js';
import { readTemplate } from './templates.js';

/** Creates (never overwrites) a session's tree; returns the files it created. Shared with hooks and migrations. */
export async function ensureSessionTree(
  project: ProjectRef,
  id: string,
  input: { overviewTemplate: string; tokensMax?: number; lang?: string; now: Date; extraMeta?: Record<string, unknown> },
): Promise<string[]> {
  const paths = sessionPaths(project.dir, id);
  // A session folder (or one inside it) that is a link to elsewhere would take memory out of the home.
  for (const dir of [paths.dir, paths.workingMemory, paths.detailDir, paths.archiveDir, paths.stateDir]) assertStaysInside(project.dir, dir, 'the session folder');
  for (const dir of [paths.dir, paths.workingMemory, paths.detailDir, paths.archiveDir, paths.stateDir]) await ensureDir(dir, true);
  const created: string[] = [];
  const create = async (file: string, text: string) => {
    if (await createExclusive(file, text)) created.push(path.relative(project.dir, file));
  };
  await create(paths.overview, input.overviewTemplate);
  await create(paths.scratch, readTemplate('scratch.md'));
  await create(paths.messages, '');
  await withLock(paths.dir, async () => {
    const existing = await readMeta(paths);
    const stamp = input.now.toISOString();
    if (!existing) {
      const meta: SessionMeta = {
        version: 1,
        id,
        cwd: project.cwd,
        createdAt: stamp,
        updatedAt: stamp,
        ...(input.tokensMax !== undefined ? { tokensMax: input.tokensMax } : {}),
        lang: input.lang ?? 'en',
        ...input.extraMeta,
      };
      await writeMeta(paths, meta);
      created.push(path.relative(project.dir, paths.meta));
    } else if (input.tokensMax !== undefined && existing.tokensMax !== input.tokensMax) {
      await writeMeta(paths, { ...existing, tokensMax: input.tokensMax, updatedAt: stamp });
    }
  });
  return created;
}
