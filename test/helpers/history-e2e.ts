// For e2e history tests: a sandbox session holding a given messages.jsonl, and readers for what
// compaction left (marker, archive, kept lines), using the same parsers as wmem.
import { copyFile, readFile, readdir, writeFile } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import path from 'node:path';
import { runJson, type Sandbox } from './cli.js';
import { parseMarker, type CompactionMarker } from '../../src/history/model/marker.js';
import { lineFacts } from '../../src/history/model/messages.js';
import { splitLines } from './history-session.js';

export interface SessionFiles {
  dir: string;
  messages: string;
  workingMemory: string;
}

export async function sessionWith(box: Sandbox, content: Buffer | string | { fixture: string }): Promise<SessionFiles> {
  await runJson(box, ['init']);
  const messages = (await runJson<{ file: string }>(box, ['show', 'messages'])).file;
  const dir = path.dirname(messages);
  if (typeof content === 'object' && 'fixture' in content) await copyFile(content.fixture, messages);
  else await writeFile(messages, content);
  return { dir, messages, workingMemory: path.join(dir, 'working-memory') };
}

/**
 * The marker leading messages.jsonl, the bytes that stand in for archived lines right after it
 * (rewritten tool outputs, or the repeated opening message of a cut inside a turn), and the rest:
 * the kept lines as they were.
 */
export async function leadingMarker(files: SessionFiles): Promise<{ marker: CompactionMarker; replaced: Buffer; rest: Buffer } | undefined> {
  const bytes = await readFile(files.messages);
  const first = splitLines(bytes)[0];
  const marker = first && parseMarker(first.toString('utf8'));
  if (!marker) return undefined;
  const after = first.length + marker.replacedBytes;
  return { marker, replaced: bytes.subarray(first.length, after), rest: bytes.subarray(after) };
}

/** Link ids (tool calls, message.id) of a chunk of history. */
export function linkIds(bytes: Buffer): Set<string> {
  const ids = new Set<string>();
  for (const line of splitLines(bytes)) for (const link of lineFacts(line.toString('utf8')).links) ids.add(link.id);
  return ids;
}

/**
 * Every file under a folder with its sha256 (to prove that nothing changed), but the folders
 * `skip` names (relative to `dir`): a background run may be writing there (a compaction's
 * finishing indexes state/search, its temporary files come and go) while the walk reads.
 */
export async function treeSnapshot(dir: string, skip: string[] = []): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const walk = async (d: string) => {
    for (const entry of await readdir(d, { withFileTypes: true })) {
      const p = path.join(d, entry.name);
      // The lock (a folder, or a file in older layouts) comes and goes with any run: not state.
      if (entry.name === '.lock') continue;
      if (entry.isDirectory()) {
        if (!skip.includes(path.relative(dir, p))) await walk(p);
      } else out[path.relative(dir, p)] = createHash('sha256').update(await readFile(p)).digest('hex');
    }
  };
  await walk(dir);
  return out;
}

/** A Claude Code-shaped history of `turns` turns, each with a Bash call whose output has `outputLines` lines. */
export function generatedHistory(turns: number, outputLines = 5): string {
  const J = (v: unknown) => JSON.stringify(v);
  const lines: string[] = [];
  for (let t = 0; t < turns; t++) {
    const output = Array.from({ length: outputLines }, (_, i) => `src/dir${t}/file${i}.ts`).join('\n');
    lines.push(J({ type: 'user', uuid: `u${t}`, message: { role: 'user', content: `Turn ${t}: list the files of src/dir${t} and fix what fails` } }));
    lines.push(J({ type: 'assistant', uuid: `a${t}`, message: { id: `msg_${t}`, role: 'assistant', content: [{ type: 'tool_use', id: `toolu_${t}`, name: 'Bash', input: { command: `ls src/dir${t}` } }] } }));
    lines.push(J({ type: 'user', uuid: `r${t}`, message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: `toolu_${t}`, content: output }] }, toolUseResult: { stdout: output, stderr: '' } }));
    lines.push(J({ type: 'assistant', uuid: `b${t}`, message: { id: `msg_${t}b`, role: 'assistant', content: [{ type: 'text', text: `Done with turn ${t}. I decided to keep the API stable.` }] } }));
  }
  return lines.join('\n') + '\n';
}

/**
 * Waits until no `wmem compact --finish` of this home is running (Linux: read from /proc). A
 * quick cut leaves its finishing to its link check's child, whatever the check says, so a run that
 * stepped aside for the full way, or was killed, may leave one at work after it returned.
 */
export async function finishingsDone(home: string, timeoutMs = 90_000): Promise<void> {
  const running = async (): Promise<boolean> => {
    for (const pid of (await readdir('/proc')).filter((n) => /^\d+$/.test(n))) {
      const argv = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
      if (argv.includes('\0--finish\0') && argv.includes(`\0${home}\0`)) return true;
    }
    return false;
  };
  for (const started = Date.now(); await running(); ) {
    if (Date.now() - started > timeoutMs) throw new Error(`a wmem compact --finish of ${home} still runs after ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
