// The first search after a compaction reads an archive's raw bytes, then the text of the lines it
// shortlists, from the same file, later. The compaction's finishing cuts that archive (a hard link
// of the old messages.jsonl) to its length meanwhile: the lines read after the cut must not come
// back blank (one hit with an empty snippet, the others folded into it as "the same text"). The
// search sees the file changed and runs once more on the file as it is now. An archive that is a
// link inside the session (the listing allows one) is searched as the full scan searches it.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const hook: { beforeRank?: () => void } = {};
vi.mock('../../src/memory/search.js', async (original) => {
  const real = await original<typeof import('../../src/memory/search.js')>();
  return {
    ...real,
    rank: (...args: Parameters<typeof real.rank>) => {
      hook.beforeRank?.();
      hook.beforeRank = undefined;
      return real.rank(...args);
    },
  };
});
const { searchMemory } = await import('../../src/store/search-corpus.js');

const user = (text: string) => JSON.stringify({ type: 'user', timestamp: '2026-01-01T10:00:00.000Z', message: { role: 'user', content: text } });
const filler = Array.from({ length: 40 }, (_, i) => user(`filler line ${i} about the build`));
const kept = [user('kept turn: flamingo migration'), user('kept turn two: flamingo flamingo flamingo migration')];

let root: string;
let n = 0;
beforeAll(() => {
  root = mkdtempSync(path.join(tmpdir(), 'wmem-raw-cut-'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

function archiveOf(lines: string[]): { scope: { projectDir: string; sessions: string[]; nowMs: number }; file: string; cutAt: number } {
  const projectDir = path.join(root, `p${n++}`);
  const dir = path.join(projectDir, 's', 'working-memory', 'archive');
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, 'messages-20260101T000000000Z.jsonl');
  writeFileSync(file, lines.join('\n') + '\n');
  return { scope: { projectDir, sessions: ['s'], nowMs: 0 }, file, cutAt: Buffer.byteLength(filler.join('\n') + '\n') };
}

describe('raw-byte search of an archive that changes under it or is a link', () => {
  it('answers what a scan of the file as it is now answers, with no blank hit', async () => {
    const { scope, file, cutAt } = archiveOf([...filler, ...kept]);
    const before = await searchMemory(scope, 'flamingo migration', { limit: 4, rawMessages: { sampleShare: 1 } });
    expect(before.hits.map((h) => h.line)).toEqual([42, 41]);
    expect(before.hits.every((h) => h.snippet.includes('flamingo'))).toBe(true);

    hook.beforeRank = () => truncateSync(file, cutAt);
    const during = await searchMemory(scope, 'flamingo migration', { limit: 4, rawMessages: { sampleShare: 1 } });
    const scanNow = await searchMemory(scope, 'flamingo migration', { limit: 4, noIndex: true });
    expect(during.hits).toEqual(scanNow.hits);
    expect(during.hits.some((h) => h.snippet === '')).toBe(false);
  });

  it('reads the same file throughout: a file put in its place after the pass is not read', async () => {
    const { scope, file } = archiveOf([...filler, ...kept]);
    hook.beforeRank = () => {
      rmSync(file);
      writeFileSync(file, [...filler, user('another text entirely'), user('and another one')].join('\n') + '\n');
    };
    const hits = (await searchMemory(scope, 'flamingo migration', { limit: 4, rawMessages: { sampleShare: 1 } })).hits;
    expect(hits.map((h) => h.line)).toEqual([42, 41]);
    expect(hits[0].snippet).toContain('flamingo flamingo flamingo');
  });

  it('searches an archive that is a link to a file inside the session (read as the full scan reads it)', async () => {
    const { scope, file } = archiveOf([...filler, ...kept]);
    const real = path.join(path.dirname(file), '..', 'kept-history.jsonl');
    renameSync(file, real);
    symlinkSync(real, file);
    const raw = await searchMemory(scope, 'flamingo migration', { limit: 4, rawMessages: { sampleShare: 1 } });
    const scanned = await searchMemory(scope, 'flamingo migration', { limit: 4, noIndex: true });
    expect(raw.hits.map((h) => h.line)).toEqual([42, 41]);
    expect(raw.hits).toEqual(scanned.hits);
  });
});
