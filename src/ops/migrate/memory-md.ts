// `wmem migrate memory-md FILE`: seeds a session from a hand-written MEMORY.md (or CLAUDE.md).
// The file is backed up to FILE.seed-backup and left in place; its text goes into detail/ in
// 400-token chunks with 80 tokens of overlap (where search finds it), indexed in overview.md;
// meta.json records `seededFrom`, so the next consolidation appends below the existing text
// rather than rewriting it. Chunk names come from the file's hash: a rerun (after a kill, or on
// the same file) finishes what is missing and never duplicates.
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { atomicWrite, exists, readTextIfExists, withLock } from '../../store/fsx.js';
import { appendToSection, detailIndexLine, writeDetail } from '../../store/detail.js';
import { readMeta, writeMeta, type Session } from '../../store/session.js';
import { fsError, refusedError } from '../../ui/errors.js';
import { chunkText, loadTokenizer } from './chunk.js';

export interface MemoryMdResult {
  file: string;
  backup: string;
  session: string;
  tokens: number;
  chunks: { file: string; start: number; end: number; existed: boolean }[];
  alreadySeeded: boolean;
  dryRun: boolean;
}

export async function migrateMemoryMd(session: Session, fileArg: string, options: { cwd: string; dryRun: boolean; now: Date }): Promise<MemoryMdResult> {
  const file = path.resolve(options.cwd, fileArg);
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (err) {
    throw fsError(err, 'read', file);
  }
  const hash = createHash('sha256').update(text).digest('hex');
  const tag = hash.slice(0, 10);
  const backup = `${file}.seed-backup`;
  const existingBackup = await readTextIfExists(backup);
  if (existingBackup !== undefined && existingBackup !== text) {
    throw refusedError(`${backup} exists and holds different text than ${file}`, 'a seed from an earlier version of the file; move the backup away to seed again');
  }
  const tokenizer = await loadTokenizer();
  const pieces = chunkText(text, tokenizer, 400, 80);
  const total = pieces.length;
  const width = String(total).length;
  const names = pieces.map((_, i) => `memory-md-${tag}-${String(i + 1).padStart(width, '0')}`);
  const chunks: MemoryMdResult['chunks'] = [];
  const result = (alreadySeeded: boolean): MemoryMdResult => ({
    file,
    backup,
    session: session.id,
    tokens: pieces.at(-1)?.end ?? 0,
    chunks,
    alreadySeeded,
    dryRun: options.dryRun,
  });
  const meta = await readMeta(session.paths);
  const seeded = meta?.seededFrom === file && meta?.seedHash === hash;
  for (const [i, piece] of pieces.entries()) {
    const rel = `detail/${names[i]}.md`;
    chunks.push({ file: rel, start: piece.start, end: piece.end, existed: await exists(path.join(session.paths.workingMemory, rel)) });
  }
  if (options.dryRun || (seeded && chunks.every((c) => c.existed))) return result(seeded);

  if (existingBackup === undefined) await atomicWrite(backup, text, { userFolder: true });
  // A run killed while writing a chunk leaves the atomic write's temp file beside it: ours to remove.
  const temp = new RegExp(`^memory-md-${tag}-\\d+\\.md\\.\\d+$`);
  for (const name of await fs.readdir(session.paths.detailDir).catch(() => [] as string[])) {
    if (temp.test(name)) await fs.unlink(path.join(session.paths.detailDir, name)).catch(() => {});
  }
  const index: string[] = [];
  for (const [i, piece] of pieces.entries()) {
    const title = `${path.basename(file)} part ${i + 1}/${total} (tokens ${piece.start}–${piece.end})`;
    if (!chunks[i].existed) {
      await writeDetail(session, {
        stem: names[i],
        kind: 'memory-md',
        source: file,
        title,
        body: piece.text,
        created: options.now,
        extra: { chunk: i + 1, chunks: total, tokens: `${piece.start}-${piece.end}`, seedHash: hash },
      });
    }
    index.push(detailIndexLine(chunks[i].file, title));
  }
  // Index lines not there yet (a rerun after a kill adds only the missing ones).
  const overview = (await readTextIfExists(session.paths.overview)) ?? '';
  const missing = index.filter((_, i) => !overview.includes(chunks[i].file));
  if (missing.length) await appendToSection(session, 'details', missing);
  await withLock(session.paths.dir, async () => {
    const current = await readMeta(session.paths);
    if (!current) return;
    const next = { ...current, seededFrom: file, seedHash: hash, seedChunks: total, seededAt: options.now.toISOString(), updatedAt: options.now.toISOString() };
    delete (next as Record<string, unknown>).seedConsolidated;
    await writeMeta(session.paths, next);
  });
  return result(false);
}
