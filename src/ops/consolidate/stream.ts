// The deterministic consolidation, streamed: scratch.md is read once, a chunk at a time, so a
// million notes take seconds and a bounded amount of memory. Each note goes to the scratch
// archive (a temp file) and through the merger; lines a section pushes out go to one temp file
// per section; every other line of scratch.md goes to the temp that becomes the new scratch.md.
// Nothing is committed until the pass is complete; then, in the order that loses nothing at any
// crash point: the archive, the detail files, overview.md, and scratch.md last (keeping what was
// appended meanwhile). A signal before the commits leaves every file as it was.
import { promises as fs, statSync } from 'node:fs';
import path from 'node:path';
import { assertLocksHeld } from '../../store/fsx.js';
import { detailHeader, detailIndexLine, freeDetailName } from '../../store/detail.js';
import { fileStamp } from '../../store/paths.js';
import type { Session } from '../../store/session.js';
import { ioError, fsError } from '../../ui/errors.js';
import { StringDecoder } from 'node:string_decoder';
import { DurableFile, linkInto, readChunks, readLineBatches, replaceKeepingAppends, tempFor } from '../../history/stream/index.js';
import { isScratchHeader, parseNoteLine } from '../../memory/scratch.js';
import { sha256, type Sha256 } from '../../memory/hash.js';
import { NoteMerger, type Eviction, type MergePlan } from '../../memory/consolidate.js';
import type { Interruptible } from './interrupt.js';

export interface StreamInput {
  overview: string;
  newDetails: { rel: string; title: string }[];
  appendOnly: boolean;
}

export interface StreamPass {
  plan: MergePlan;
  notes: number;
  unparsed: { line: number; raw: string }[];
  /** scratch.md as the pass read it; its sha256 is computed only if asked (a cold sha256 in JavaScript costs 10-20 ms). */
  scratch: ScratchStat & { sha256(): string };
  files?: PassFiles;
}

/** The temp files a pass wrote (none on a dry run). */
interface PassFiles {
  archive: DurableFile;
  rest: DurableFile;
  /** Per section, the lines it pushed out. */
  bodies: Map<string, DurableFile>;
  /** Bodies made since the last flush (a section's first push happens inside a synchronous merge). */
  unopened: DurableFile[];
  /** The writes of the last chunk, still running, and the first error any of them met. */
  inflight?: Promise<void>;
  failed?: unknown;
}

const ARCHIVE_HEADER = (now: Date) => `<!-- wmem scratch archive v1: notes consolidated into overview.md at ${now.toISOString()} -->\n`;

interface ScratchStat {
  size: number;
  ino: number;
  mtimeMs: number;
}

function scratchStat(file: string): ScratchStat {
  try {
    const st = statSync(file);
    return { size: st.size, ino: st.ino, mtimeMs: st.mtimeMs };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { size: 0, ino: -1, mtimeMs: 0 };
    throw fsError(err, 'read', file);
  }
}

/** Reads scratch.md once and merges its notes; with `write`, into temp files ready to commit. */
export async function streamScratch(session: Session, input: StreamInput, options: { write: boolean; now: Date; guard: Interruptible }): Promise<StreamPass> {
  const file = session.paths.scratch;
  const scratch = scratchStat(file);
  const files = options.write ? await openPassFiles(session, options.now) : undefined;
  const evict = files ? (sectionId: string, line: string) => void bodyFor(files, session, sectionId).push(line + '\n') : () => {};
  const merger = new NoteMerger({ overviewText: input.overview, file: session.paths.overview, newDetails: input.newDetails, appendOnly: input.appendOnly }, evict);
  const unparsed: StreamPass['unparsed'] = [];
  const hash = sha256();
  let notes = 0;
  let lineNo = 0;
  try {
    for await (const lines of scratchLines(file, scratch.size, hash)) {
      for (const text of lines) {
        lineNo++;
        const clean = text.endsWith('\r') ? text.slice(0, -1) : text;
        const blank = BLANK.test(clean);
        const note = blank || isScratchHeader(clean) ? undefined : parseNoteLine(clean, lineNo);
        if (note) {
          notes++;
          merger.add(note);
          files?.archive.push(clean);
          files?.archive.push('\n');
        } else {
          if (!blank && !isScratchHeader(clean)) unparsed.push({ line: lineNo, raw: clean });
          files?.rest.push(text);
          files?.rest.push(lineNo === lines.lastNumber && !lines.endsWithNewline ? '' : '\n');
        }
      }
      if (files) await flushAll(files);
      options.guard.check();
    }
    let digest: string | undefined;
    return { plan: merger.finish(), notes, unparsed, scratch: { ...scratch, sha256: () => (digest ??= hash.digest('hex')) }, files };
  } catch (err) {
    if (files) await discardPass(files);
    throw err;
  }
}

const BLANK = /^\s*$/;

type LineBatch = string[] & { lastNumber?: number; endsWithNewline?: boolean };

/**
 * The lines of bytes [0, size) of `file` (without their "\n"), a chunk's worth at a time: one
 * decode and one split per chunk. The last batch says whether the file ended with a newline.
 */
async function* scratchLines(file: string, size: number, hash: Sha256): AsyncGenerator<LineBatch> {
  const decoder = new StringDecoder('utf8');
  let carry = '';
  let seen = 0;
  for await (const chunk of readChunks(file, 0, size)) {
    hash.update(chunk);
    const parts = (carry + decoder.write(chunk)).split('\n');
    carry = parts.pop()!;
    seen += parts.length;
    if (parts.length) yield parts;
  }
  const last = carry + decoder.end();
  if (last) yield Object.assign([last], { lastNumber: seen + 1, endsWithNewline: false });
}

async function openPassFiles(session: Session, now: Date): Promise<PassFiles> {
  const archive = await new DurableFile(tempFor(path.join(session.paths.archiveDir, 'scratch.md'), 'consolidate')).open();
  archive.push(ARCHIVE_HEADER(now));
  // The archive's temp goes if the second open fails: its file is not closed by the collector (the MCP server runs on).
  const rest = await new DurableFile(tempFor(session.paths.scratch, 'consolidate')).open().catch(async (err) => {
    await archive.discard();
    throw err;
  });
  return { archive, rest, bodies: new Map(), unopened: [] };
}

function bodyFor(files: PassFiles, session: Session, sectionId: string): DurableFile {
  let body = files.bodies.get(sectionId);
  if (!body) {
    const safe = sectionId.replace(/[^A-Za-z0-9._-]/g, '-').slice(0, 40) || 'section';
    body = new DurableFile(tempFor(path.join(session.paths.detailDir, `past-${safe}.md`), 'consolidate'));
    files.bodies.set(sectionId, body);
    files.unopened.push(body);
  }
  return body;
}

/**
 * Writes out what a chunk produced while the next one is read and merged: the writes of one
 * chunk run in the background and are awaited before the next chunk's (each file's writes stay
 * in order). The strings die young, so the heap stays small whatever the size of scratch.md.
 */
async function flushAll(files: PassFiles, options: { wait?: boolean } = {}): Promise<void> {
  await files.inflight;
  if (files.failed) throw files.failed;
  for (const f of files.unopened.splice(0)) await f.open();
  const writes = Promise.all([files.archive, files.rest, ...files.bodies.values()].map((f) => f.flushDue({ all: true })));
  // A failure is kept (so it is never an unhandled rejection) and thrown at the next flush.
  files.inflight = writes.then(
    () => undefined,
    (err: unknown) => {
      files.failed = err;
    },
  );
  if (options.wait) {
    await files.inflight;
    if (files.failed) throw files.failed;
  }
}

export async function discardPass(files: PassFiles): Promise<void> {
  await files.inflight;
  for (const f of [files.archive, files.rest, ...files.bodies.values()]) await f.discard();
}

/** Throws unless scratch.md is the file the pass read, or that file with lines appended. */
async function assertScratchUnchanged(file: string, read: StreamPass['scratch']): Promise<void> {
  const now = scratchStat(file);
  if (now.ino === read.ino && now.size === read.size && now.mtimeMs === read.mtimeMs) return;
  if (now.ino === read.ino && now.size >= read.size) {
    const hash = sha256();
    const batches = readLineBatches(file, { end: read.size, hash });
    while (read.size && !(await batches.next()).done);
    if (hash.digest('hex') === read.sha256()) return;
  }
  throw ioError(`${file} was rewritten while the consolidation read it (not only appended to): nothing was written`, undefined, 'run wmem consolidate again');
}

export interface Committed {
  archive?: string;
  details: string[];
  index: string[];
  leftInScratch: number;
}

/**
 * Commits a pass, archive first and scratch.md last. `writeOverview` puts the new overview in
 * place (given the index lines of the new detail files).
 */
export async function commitPass(session: Session, pass: StreamPass, now: Date, writeOverview: (index: string[]) => Promise<void>): Promise<Committed> {
  const files = pass.files!;
  try {
    await flushAll(files, { wait: true });
    await assertScratchUnchanged(session.paths.scratch, pass.scratch);
    assertLocksHeld();
    const archive = pass.notes ? await commitArchive(session, files.archive, now) : undefined;
    const details: string[] = [];
    const index: string[] = [];
    for (const eviction of pass.plan.evictions) {
      const { rel, title } = await commitEviction(session, eviction, files.bodies.get(eviction.sectionId), now);
      details.push(rel);
      index.push(detailIndexLine(rel, title));
    }
    await writeOverview(index);
    const leftInScratch = pass.notes ? await commitScratch(session, files.rest, pass.scratch.size) : 0;
    return { archive, details, index, leftInScratch };
  } finally {
    await discardPass(files);
  }
}

async function uniqueArchive(session: Session, stem: string): Promise<string> {
  for (let n = 1; ; n++) {
    const full = path.join(session.paths.archiveDir, `${stem}${n === 1 ? '' : `-${n}`}.md`);
    try {
      statSync(full);
    } catch {
      return full;
    }
  }
}

async function commitArchive(session: Session, archive: DurableFile, now: Date): Promise<string> {
  await archive.close();
  const final = await uniqueArchive(session, `scratch-${fileStamp(now)}`);
  await linkInto(archive.temp, final);
  return final;
}

async function commitEviction(session: Session, ev: Eviction, body: DurableFile | undefined, now: Date): Promise<{ rel: string; title: string }> {
  const title = `Past: ${ev.topic}`;
  const name = await freeDetailName(session, `${fileStamp(now)}-past-${ev.sectionId.replace(/[^A-Za-z0-9._-]/g, '-').slice(0, 40) || 'section'}`);
  const final = path.join(session.paths.detailDir, name);
  // The pointer itself stays in the front matter only, so a search for its keywords ranks the
  // replaced lines here, not a copy of the pointer.
  const front = detailHeader(session, {
    kind: 'consolidation',
    source: 'wmem consolidate',
    title,
    created: now,
    extra: { section: ev.sectionId, pointer: ev.pointer, keywords: ev.keywords.join(' '), lines: ev.count },
  });
  const out = await new DurableFile(tempFor(final, 'consolidate')).open();
  try {
    out.push(`${front}\n# ${title}\n\nPushed out of the "${ev.sectionTitle}" section of overview.md by a consolidation.\n\n`);
    if (body) {
      await body.close({ sync: false });
      await out.copyRange(body.temp, 0, body.bytes);
    } else {
      out.push(ev.lines.map((l) => l + '\n').join(''));
    }
    await out.close();
    await linkInto(out.temp, final);
  } catch (err) {
    await out.discard();
    throw err;
  }
  return { rel: `detail/${name}`, title };
}

/** scratch.md becomes the pass's rest plus whatever was appended since; returns the notes left in it. */
async function commitScratch(session: Session, rest: DurableFile, readTo: number): Promise<number> {
  const file = session.paths.scratch;
  await rest.close();
  const held = rest.bytes;
  let old: fs.FileHandle;
  try {
    old = await fs.open(file, 'r');
  } catch (err) {
    throw fsError(err, 'read', file);
  }
  try {
    await replaceKeepingAppends(rest.temp, file, old, readTo);
  } finally {
    await old.close().catch(() => {});
  }
  let left = 0;
  for await (const batch of readLineBatches(file, { start: held })) {
    for (const line of batch) if (parseNoteLine(line.bytes.toString('utf8').replace(/\r?\n$/, ''), 0)) left++;
  }
  return left;
}
