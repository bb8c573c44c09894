// `wmem migrate opencode DIR`: brings in the OpenCode working-memory plugin's files. Each
// OpenCode session becomes the wmem session of the same id: its core blocks fill the task,
// progress and context sections (a full copy goes to detail/ first, so nothing is lost to a
// section's limit), its working items become hot state and scratch notes; workspace-memory.json
// entries go to workspace memory through the gate. Files already imported (same bytes, recorded
// in meta.json) are skipped, so a rerun after a kill finishes the rest.
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { appendDurably, exists, readTextIfExists, staysInside, withLock } from '../../store/fsx.js';
import { findSecret, redactSecrets } from '../../memory/gate.js';
import { appendToSection, detailIndexLine, writeDetail } from '../../store/detail.js';
import { assertSessionId, fileStamp, sessionPaths } from '../../store/paths.js';
import { locateProject, type ProjectRef } from '../../store/project.js';
import { readMeta, writeMeta, type Session } from '../../store/session.js';
import { usageError } from '../../ui/errors.js';
import { planCore, planWorking, planWorkspace, type NotePlan } from './opencode-files.js';

export interface OpenCodeReport {
  dir: string;
  sessions: { id: string; file: string; kind: 'core' | 'working'; done: string[]; skipped?: string }[];
  workspace?: { file: string; added: number; refused: { text: string; reason: string }[]; skipped?: string };
  warnings: string[];
  dryRun: boolean;
}

async function jsonFiles(dir: string): Promise<string[]> {
  try {
    return (await fs.readdir(dir)).filter((n) => n.endsWith('.json')).sort().map((n) => path.join(dir, n));
  } catch {
    return [];
  }
}

function hashOf(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 16);
}

async function sessionFor(project: ProjectRef, id: string, now: Date): Promise<Session> {
  const { ensureSessionTree } = await import('../../store/session-tree.js');
  const { readTemplate, overviewTemplateName } = await import('../../store/templates.js');
  await ensureSessionTree(project, id, { overviewTemplate: readTemplate(overviewTemplateName('en')), now, extraMeta: { agent: 'opencode' } });
  return { id, project, paths: sessionPaths(project.dir, id), source: 'flag' };
}

async function alreadyImported(session: Session, file: string, hash: string): Promise<boolean> {
  const meta = await readMeta(session.paths);
  const imported = (meta?.opencodeImported ?? {}) as Record<string, string>;
  return imported[file] === hash;
}

async function markImported(session: Session, file: string, hash: string, now: Date): Promise<void> {
  await withLock(session.paths.dir, async () => {
    const meta = await readMeta(session.paths);
    if (!meta) return;
    const imported = { ...((meta.opencodeImported ?? {}) as Record<string, string>), [file]: hash };
    await writeMeta(session.paths, { ...meta, opencodeImported: imported, updatedAt: now.toISOString() });
  });
}

async function appendNotes(session: Session, notes: NotePlan[], now: Date, warnings: string[]): Promise<number> {
  const { formatNote } = await import('../../memory/scratch.js');
  const lines: string[] = [];
  for (const note of notes) {
    const secret = findSecret([note.text, ...(note.tags ?? [])].join(' '));
    if (secret) {
      warnings.push(`left out a note that looks like it holds ${secret.kind}`);
      continue;
    }
    lines.push(formatNote({ time: note.time && !Number.isNaN(note.time.getTime()) ? note.time : now, importance: note.importance, text: note.text, tags: note.tags }));
  }
  if (lines.length) await withLock(session.paths.dir, () => appendDurably(session.paths.scratch, lines.join('\n') + '\n'));
  return lines.length;
}

/** Puts each block in its section: set when empty, appended below otherwise; over a limit, a line pointing at the detail copy. */
async function fillSections(session: Session, sections: { id: string; text: string; from: string }[], detailRel: string): Promise<string[]> {
  const { parseOverview, findSection, replaceSectionContent, joinContent } = await import('../../memory/overview.js');
  const { atomicWrite } = await import('../../store/fsx.js');
  const done: string[] = [];
  await withLock(session.paths.dir, async () => {
    for (const found of sections) {
      // The detail copy is the verbatim record; what goes into the injected overview is redacted.
      const block = { ...found, text: redactSecrets(found.text) };
      const file = session.paths.overview;
      const overview = parseOverview((await readTextIfExists(file)) ?? '', file);
      const section = findSection(overview, block.id, file);
      if (section.content.includes(block.text)) continue;
      let content = joinContent(section.content, block.text);
      if (section.maxChars !== undefined && content.length > section.maxChars) {
        content = joinContent(section.content, `- OpenCode ${block.from} (too long for this section): see ${detailRel}`);
        if (content.length > section.maxChars) continue;
      }
      await atomicWrite(file, replaceSectionContent(overview, section, content));
      done.push(`${block.from} → ${block.id}`);
    }
  });
  return done;
}

/**
 * Plugin 1.2 keeps workspace memory outside the project, under
 * ~/.local/share/opencode-working-memory/workspaces/<key>/: the one whose root is this folder.
 */
async function sharedWorkspaceFile(dir: string): Promise<string | undefined> {
  const { default: os } = await import('node:os');
  const base = path.join(process.env.XDG_DATA_HOME || path.join(os.homedir(), '.local', 'share'), 'opencode-working-memory', 'workspaces');
  let keys: string[];
  try {
    keys = await fs.readdir(base);
  } catch {
    return undefined;
  }
  const real = await fs.realpath(dir).catch(() => dir);
  for (const key of keys) {
    const file = path.join(base, key, 'workspace-memory.json');
    try {
      const parsed = JSON.parse(await fs.readFile(file, 'utf8')) as { workspace?: { root?: unknown } };
      const root = typeof parsed.workspace?.root === 'string' ? parsed.workspace.root : undefined;
      if (root && (root === dir || (await fs.realpath(root).catch(() => root)) === real)) return file;
    } catch {
      /* not this one */
    }
  }
  return undefined;
}

const NOT_JSON = Symbol('not JSON');

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return NOT_JSON;
  }
}

/**
 * Why a file is not JSON, by position only: JSON.parse's own message quotes the file's first
 * bytes, and a file may hold anything (a link to /etc/shadow, a token).
 */
function notJson(text: string): string {
  let depth = 0;
  try {
    JSON.parse(text);
  } catch (err) {
    const at = /position (\d+)/.exec((err as Error).message)?.[1];
    if (at !== undefined) depth = Number(at);
    else return 'not valid JSON';
  }
  const before = text.slice(0, depth);
  const line = before.split('\n').length;
  return `not valid JSON (line ${line}, column ${depth - before.lastIndexOf('\n')})`;
}

/**
 * A source file's text, or why it is refused: a link that leads out of the folder being
 * migrated is never followed (its bytes could end up in memory or in a message).
 */
async function readSource(root: string, file: string): Promise<string | { refused: string }> {
  if (!staysInside(root, file)) return { refused: `a symbolic link that leads outside ${root}; not read` };
  try {
    return await fs.readFile(file, 'utf8');
  } catch (err) {
    return { refused: `cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})` };
  }
}

export async function migrateOpenCode(home: string, cwd: string, dirArg: string, options: { dryRun: boolean; now: Date }): Promise<OpenCodeReport> {
  const dir = path.resolve(cwd, dirArg);
  const base = (await exists(path.join(dir, '.opencode'))) ? path.join(dir, '.opencode') : dir;
  const coreFiles = await jsonFiles(path.join(base, 'memory-core'));
  const workingFiles = await jsonFiles(path.join(base, 'memory-working'));
  let workspaceFile: string | undefined;
  for (const candidate of [path.join(dir, 'workspace-memory.json'), path.join(base, 'workspace-memory.json')]) {
    if (await exists(candidate)) {
      workspaceFile = candidate;
      break;
    }
  }
  workspaceFile ??= await sharedWorkspaceFile(dir);
  if (!coreFiles.length && !workingFiles.length && !workspaceFile) {
    throw usageError(`no OpenCode memory files in ${dir}`, 'give the project folder (with .opencode/memory-core/ or memory-working/) or the folder holding workspace-memory.json');
  }
  const report: OpenCodeReport = { dir, sessions: [], warnings: [], dryRun: options.dryRun };
  const now = options.now;
  const project = options.dryRun ? undefined : await locateProject(home, cwd, { create: true, now });

  const handle = async (file: string, kind: 'core' | 'working') => {
    const text = await readSource(dir, file);
    if (typeof text !== 'string') {
      report.sessions.push({ id: '', file, kind, done: [], skipped: text.refused });
      return;
    }
    const raw = parseJson(text);
    if (raw === NOT_JSON) {
      report.sessions.push({ id: '', file, kind, done: [], skipped: notJson(text) });
      return;
    }
    let plan;
    try {
      plan = kind === 'core' ? planCore(raw) : planWorking(raw);
    } catch (err) {
      report.sessions.push({ id: '', file, kind, done: [], skipped: (err as Error).message });
      return;
    }
    const idText = plan.sessionId ?? path.basename(file, '.json');
    let id: string;
    try {
      id = assertSessionId(idText, file);
    } catch (err) {
      // An id shaped like a secret is never echoed, not even in the report.
      report.sessions.push({ id: findSecret(idText) ? '[refused]' : idText, file, kind, done: [], skipped: (err as Error).message });
      return;
    }
    const entry = { id, file, kind, done: [] as string[] };
    report.sessions.push(entry);
    if (options.dryRun) {
      if (kind === 'core') entry.done.push(...planCore(raw).sections.map((s) => `${s.from} → ${s.id}`));
      else {
        const w = planWorking(raw);
        entry.done.push(`${w.notes.length} notes, ${w.files.length} active files, ${w.errors.length} open errors`);
      }
      return;
    }
    const session = await sessionFor(project!, id, now);
    const hash = hashOf(text);
    if (await alreadyImported(session, file, hash)) {
      (entry as { skipped?: string }).skipped = 'already imported';
      return;
    }
    if (kind === 'core') {
      const core = planCore(raw);
      const body = core.sections.map((s) => `## ${s.from}\n\n${s.text}`).join('\n\n');
      const title = `OpenCode core memory of session ${id}`;
      const rel = await writeDetail(session, { stem: `${fileStamp(now)}-opencode-core`, kind: 'opencode-core', source: file, title, body: body || '(empty)', created: now });
      await appendToSection(session, 'details', [detailIndexLine(rel, title)]);
      entry.done.push(`kept ${rel}`, ...(await fillSections(session, core.sections, rel)));
    } else {
      const working = planWorking(raw);
      const { addHotState } = await import('./opencode-apply.js');
      const hot = await addHotState(session, { files: working.files, errors: working.errors }, now);
      entry.done.push(hot.note);
      const notes = [...working.notes, ...hot.asNotes];
      entry.done.push(`${await appendNotes(session, notes, now, report.warnings)} notes`);
    }
    await markImported(session, file, hash, now);
  };
  for (const file of coreFiles) await handle(file, 'core');
  for (const file of workingFiles) await handle(file, 'working');

  if (workspaceFile) {
    const text = await readSource(path.dirname(workspaceFile), workspaceFile);
    if (typeof text !== 'string') {
      report.workspace = { file: workspaceFile, added: 0, refused: [], skipped: text.refused };
      return report;
    }
    const raw = parseJson(text);
    if (raw === NOT_JSON) {
      report.workspace = { file: workspaceFile, added: 0, refused: [], skipped: notJson(text) };
      return report;
    }
    let entries;
    try {
      entries = planWorkspace(raw);
    } catch (err) {
      report.workspace = { file: workspaceFile, added: 0, refused: [], skipped: (err as Error).message };
      return report;
    }
    if (options.dryRun) {
      report.workspace = { file: workspaceFile, added: entries.length, refused: [] };
    } else {
      const { addWorkspaceEntries } = await import('./opencode-apply.js');
      report.workspace = { file: workspaceFile, ...(await addWorkspaceEntries(project!, entries, now)) };
    }
  }
  return report;
}
