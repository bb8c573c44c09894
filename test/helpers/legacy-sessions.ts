// Legacy flat sessions (`<id>.jsonl` + `<id>.meta.json`) built from the real transcripts, and what
// a finished `wmem migrate legacy` leaves of them: shared by migrate.test.ts and migrate-kill.test.ts.
import { expect } from 'vitest';
import { copyFile, readFile, readdir, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { FIXTURES, runJson, type Sandbox } from './cli.js';

const TRANSCRIPTS = [
  'claude-code-log/ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl',
  'claude-code-log/89488521-e2e7-4d97-bc02-38197efdddc8.jsonl',
  'claude-code-log/edge_cases.jsonl',
  'spotter/tool_heavy.jsonl',
  'kimi-cli/pr127-context/531d195b-6436-426e-b010-4bf723a992de.jsonl',
];

/** The project's folder under the home, after `wmem init`. */
export async function projectDir(box: Sandbox): Promise<string> {
  await runJson(box, ['init']);
  const root = path.join(box.home, 'sessions');
  return path.join(root, (await readdir(root))[0]);
}

/** n legacy sessions: `<id>.jsonl` (a real transcript) + `<id>.meta.json` with fields of its own. */
export async function legacySessions(box: Sandbox, dir: string, n: number): Promise<Map<string, Buffer>> {
  const originals = new Map<string, Buffer>();
  for (let i = 0; i < n; i++) {
    const id = `legacy-${String(i).padStart(3, '0')}`;
    const source = path.join(FIXTURES, TRANSCRIPTS[i % TRANSCRIPTS.length]);
    await copyFile(source, path.join(dir, `${id}.jsonl`));
    await writeFile(path.join(dir, `${id}.meta.json`), JSON.stringify({ id, cwd: box.project, createdAt: '2025-01-02T03:04:05Z', tokensMax: 128000, model: 'claude-sonnet', title: `old session ${i}`, custom: { nested: [1, 2, i] } }));
    originals.set(id, await readFile(source));
  }
  return originals;
}

/** Every legacy session moved into a session folder of its own, bytes and fields kept, no temp left. */
export async function expectMigrated(box: Sandbox, dir: string, originals: Map<string, Buffer>) {
  const names = await readdir(dir);
  expect(names.filter((n) => n.endsWith('.jsonl') || n.endsWith('.meta.json'))).toEqual([]);
  expect(names.filter((n) => n.endsWith('.tmp'))).toEqual([]);
  for (const [id, bytes] of originals) {
    expect((await readFile(path.join(dir, id, 'messages.jsonl'))).equals(bytes), id).toBe(true);
    const meta = JSON.parse(await readFile(path.join(dir, id, 'meta.json'), 'utf8'));
    expect(meta).toMatchObject({ version: 1, id, cwd: box.project, createdAt: '2025-01-02T03:04:05Z', tokensMax: 128000, model: 'claude-sonnet', custom: { nested: [1, 2, Number(id.slice(-3))] }, migratedFrom: 'legacy' });
    await stat(path.join(dir, id, 'working-memory', 'overview.md'));
    await stat(path.join(dir, id, 'working-memory', 'scratch.md'));
    expect((await readdir(path.join(dir, id))).filter((n) => n.endsWith('.tmp') || /\.\d+$/.test(n))).toEqual([]);
  }
}
