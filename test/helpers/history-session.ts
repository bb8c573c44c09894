// In-process sessions for history tests: a temp home and project with a real session tree
// (made by the same code as `wmem init`), and helpers to read what compaction left behind.
import { mkdtemp, mkdir, readFile, readdir, rm, realpath, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ensureSessionTree } from '../../src/store/session-tree.js';
import { locateProject } from '../../src/store/project.js';
import { sessionPaths } from '../../src/store/paths.js';
import { readTemplate } from '../../src/store/templates.js';
import type { Session } from '../../src/store/session.js';
import { parseMarker } from '../../src/history/model/marker.js';

export interface TestSession {
  session: Session;
  root: string;
  cleanup(): Promise<void>;
}

export async function makeSession(id = 'test-session'): Promise<TestSession> {
  const root = await realpath(await mkdtemp(path.join(os.tmpdir(), 'wmem-hist-')));
  const home = path.join(root, 'home');
  const cwd = path.join(root, 'project');
  await mkdir(home, { recursive: true });
  await mkdir(cwd, { recursive: true });
  const now = new Date('2026-03-01T10:00:00Z');
  const project = (await locateProject(home, cwd, { create: true, now }))!;
  await ensureSessionTree(project, id, { overviewTemplate: readTemplate('overview.md'), now });
  return { session: { id, project, paths: sessionPaths(project.dir, id), source: 'flag' }, root, cleanup: () => rm(root, { recursive: true, force: true }) };
}

export async function setMessages(session: Session, content: string | Buffer): Promise<void> {
  await writeFile(session.paths.messages, content);
}

export async function archives(session: Session): Promise<string[]> {
  return (await readdir(session.paths.archiveDir)).filter((n) => !n.startsWith('.')).sort();
}

/** Splits bytes into lines, each with its terminator (a last line without one kept as is). */
export function splitLines(bytes: Buffer): Buffer[] {
  const out: Buffer[] = [];
  let from = 0;
  for (let nl = bytes.indexOf(10); nl !== -1; nl = bytes.indexOf(10, from)) {
    out.push(bytes.subarray(from, nl + 1));
    from = nl + 1;
  }
  if (from < bytes.length) out.push(bytes.subarray(from));
  return out;
}

/**
 * What a plain cut left: the archive's bytes followed by messages.jsonl without its leading
 * marker must be the original file (for --target conversation).
 */
export async function unionAfterCut(session: Session): Promise<Buffer> {
  const current = await readFile(session.paths.messages);
  const lines = splitLines(current);
  const marker = parseMarker(lines[0]?.toString('utf8') ?? '');
  if (!marker) return current;
  const archive = await readFile(path.join(session.paths.workingMemory, marker.archive));
  return Buffer.concat([archive, current.subarray(lines[0]!.length + marker.replacedBytes)]);
}
