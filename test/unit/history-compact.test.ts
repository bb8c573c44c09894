import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { appendFile, copyFile, readFile, readdir, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { createHash } from 'node:crypto';
import path from 'node:path';
import { compactSession, recoverCompaction, archiveTranscript } from '../../src/history/compaction/compact.js';
import { parseMarker } from '../../src/history/model/marker.js';
import { nameHash } from '../../src/memory/name-hash.js';
import { FIXTURES } from '../helpers/cli.js';
import { makeSession, setMessages, type TestSession } from '../helpers/history-session.js';
import { generatedHistory } from '../helpers/history-e2e.js';

let ts: TestSession;
const warnings: string[] = [];
const env = { now: () => new Date('2026-03-02T12:00:00Z'), warn: (m: string) => warnings.push(m) };
beforeEach(async () => {
  ts = await makeSession();
  warnings.length = 0;
});
afterEach(async () => {
  await ts.cleanup();
});

describe('recovery of an interrupted compaction', () => {
  it('finishes one that committed (overview lines added once, journal removed)', async () => {
    await setMessages(ts.session, generatedHistory(8));
    const result = await compactSession(ts.session, { target: 'conversation', strategy: 'archive', keepRecent: 2 }, env);
    const marker = parseMarker((await readFile(ts.session.paths.messages, 'utf8')).split('\n')[0]!)!;
    const messages = await readFile(ts.session.paths.messages);
    const journal = { version: 1, id: marker.id, pid: 1, startedAt: '', temps: [path.join(ts.session.paths.dir, '.leftover.tmp')], finals: [path.join(ts.session.paths.workingMemory, result.archive!)], indexLines: ['- detail/late.md — added by recovery'], recentLine: 'Recovered line' };
    await writeFile(journal.temps[0]!, 'temp');
    await writeFile(path.join(ts.session.paths.stateDir, 'compaction.json'), JSON.stringify(journal));
    expect(await recoverCompaction(ts.session, env)).toMatch(/finished compaction/);
    const overview = await readFile(ts.session.paths.overview, 'utf8');
    expect(overview).toContain('- detail/late.md — added by recovery');
    expect(overview).toContain('Recovered line');
    expect(existsSync(journal.temps[0]!)).toBe(false);
    expect(existsSync(journal.finals[0]!)).toBe(true);
    expect(await readFile(ts.session.paths.messages)).toEqual(messages);
    expect(existsSync(path.join(ts.session.paths.stateDir, 'compaction.json'))).toBe(false);
    // A second recovery has nothing to do.
    expect(await recoverCompaction(ts.session, env)).toBeUndefined();
  });

  it('rolls back one that never committed: its files go, messages.jsonl is untouched', async () => {
    const original = generatedHistory(8);
    await setMessages(ts.session, original);
    const orphan = path.join(ts.session.paths.archiveDir, 'messages-orphan.jsonl');
    await writeFile(orphan, 'partial');
    await writeFile(path.join(ts.session.paths.stateDir, 'compaction.json'), JSON.stringify({ version: 1, id: 'never-committed', pid: 1, startedAt: '', temps: [], finals: [orphan], indexLines: ['- x'], recentLine: 'r' }));
    const result = await compactSession(ts.session, { target: 'conversation', strategy: 'archive', keepRecent: 2 }, env);
    expect(result.recovered).toMatch(/rolled back compaction never-committed/);
    expect(existsSync(orphan)).toBe(false);
    expect(result.compacted).toBe(true);
    expect(warnings.join('\n')).toMatch(/rolled back/);
  });
});

describe('archiveTranscript (PreCompact)', () => {
  it('archives only new complete lines, byte for byte, without touching the transcript', async () => {
    const fixture = path.join(FIXTURES, 'claude-reliability/hello-world-script/transcript.jsonl');
    const transcript = path.join(ts.root, 'agent.jsonl');
    await copyFile(fixture, transcript);
    const original = await readFile(transcript);
    const first = await archiveTranscript(ts.session, transcript, env);
    expect(first.lines).toBe(9);
    expect(await readFile(path.join(ts.session.paths.workingMemory, first.archive))).toEqual(original);
    expect(await readFile(transcript)).toEqual(original);
    const detail = await readFile(path.join(ts.session.paths.workingMemory, first.detail), 'utf8');
    expect(detail).toMatch(/kind: "transcript"[\s\S]*lines: "1-9"/);
    expect(await readFile(ts.session.paths.overview, 'utf8')).toContain(`- ${first.detail} — agent transcript lines 1-9`);

    // Nothing new: nothing archived.
    expect(await archiveTranscript(ts.session, transcript, env)).toEqual({ archive: '', detail: '', lines: 0 });
    // Appended lines, the last one still being written: only the complete one is taken.
    await appendFile(transcript, '{"type":"user","message":{"role":"user","content":"more"}}\n{"type":"assist');
    const second = await archiveTranscript(ts.session, transcript, env);
    expect(second.lines).toBe(1);
    expect(await readFile(path.join(ts.session.paths.workingMemory, second.archive), 'utf8')).toBe('{"type":"user","message":{"role":"user","content":"more"}}\n');
    expect(await readFile(path.join(ts.session.paths.workingMemory, second.detail), 'utf8')).toMatch(/lines: "10-10"/);
    // A state written before it kept line counts: the archived lines are counted instead.
    const stateFile = path.join(ts.session.paths.stateDir, 'transcripts.json');
    const state = JSON.parse(await readFile(stateFile, 'utf8'));
    expect(Object.values(state.files as Record<string, { lines?: number }>)[0]!.lines).toBe(10);
    for (const entry of Object.values(state.files as Record<string, { lines?: number }>)) delete entry.lines;
    await writeFile(stateFile, JSON.stringify(state));
    await appendFile(transcript, 'ant"}\n');
    const older = await archiveTranscript(ts.session, transcript, env);
    expect(await readFile(path.join(ts.session.paths.workingMemory, older.detail), 'utf8')).toMatch(/lines: "11-11"/);
    // The state keeps a fingerprint of the transcript's first bytes (never the bytes: a secret in
    // the first prompt stays out of state/); one written before that kept their sha256.
    type Mark = { offset: number; print?: string; head?: string };
    const marks = () => readFile(stateFile, 'utf8').then((t) => Object.values(JSON.parse(t).files as Record<string, Mark>));
    const [mark] = await marks();
    expect(mark!.print).toMatch(/^w\d+:[0-9a-f]{16}$/);
    expect(await readFile(stateFile, 'utf8')).not.toContain(Buffer.from((await readFile(transcript)).subarray(0, 48)).toString('base64'));
    // One written before the fingerprint went a word at a time: `<length>:<nameHash>` of the bytes as latin1.
    const older2 = JSON.parse(await readFile(stateFile, 'utf8'));
    for (const entry of Object.values(older2.files as Record<string, Mark>)) {
      const head = (await readFile(transcript)).subarray(0, Math.min(entry.offset, 4096));
      entry.print = `${head.length}:${nameHash(head.toString('latin1'))}`;
    }
    await writeFile(stateFile, JSON.stringify(older2));
    await appendFile(transcript, '{"type":"user","message":{"role":"user","content":"once more"}}\n');
    const printed = await archiveTranscript(ts.session, transcript, env);
    expect(await readFile(path.join(ts.session.paths.workingMemory, printed.detail), 'utf8')).toMatch(/lines: "12-12"/);
    expect((await marks())[0]!.print).toMatch(/^w\d+:/);
    const hashed = JSON.parse(await readFile(stateFile, 'utf8'));
    for (const entry of Object.values(hashed.files as Record<string, Mark>)) {
      entry.head = createHash('sha256').update((await readFile(transcript)).subarray(0, Math.min(entry.offset, 4096))).digest('hex');
      delete entry.print;
    }
    await writeFile(stateFile, JSON.stringify(hashed));
    await appendFile(transcript, '{"type":"user","message":{"role":"user","content":"again"}}\n');
    const hashedToo = await archiveTranscript(ts.session, transcript, env);
    expect(await readFile(path.join(ts.session.paths.workingMemory, hashedToo.detail), 'utf8')).toMatch(/lines: "13-13"/);
    expect((await marks())[0]!.print).toBeDefined();
    // Its first byte changed, its length not: another transcript, archived from its start.
    const bytes = await readFile(transcript);
    bytes[0] = bytes[0] === 0x20 ? 0x09 : 0x20;
    await writeFile(transcript, Buffer.concat([bytes, Buffer.from('{"type":"user","message":{"role":"user","content":"rewritten"}}\n')]));
    expect((await archiveTranscript(ts.session, transcript, env)).lines).toBe(14);
    // A rewritten transcript starts over.
    await writeFile(transcript, '{"role":"user","content":"new file"}\n');
    const third = await archiveTranscript(ts.session, transcript, env);
    expect(third.lines).toBe(1);
    expect((await readdir(ts.session.paths.archiveDir)).length).toBe(7);
  });

  it('writes the readable copy of a long transcript through a scratch file, in order, and leaves none behind', async () => {
    // Past 4 Mi characters the rendered body goes to a temp file beside the detail file (a first
    // archive of a long session); the copy is the same bytes as one held in memory would give.
    const transcript = path.join(ts.root, 'long.jsonl');
    const text = (i: number) => `step ${i}: ${'the parser keeps every byte '.repeat(60)}`;
    const count = 3_000;
    await writeFile(transcript, Array.from({ length: count }, (_, i) => JSON.stringify({ type: 'user', message: { role: 'user', content: text(i) } }) + '\n').join(''));
    const result = await archiveTranscript(ts.session, transcript, env);
    expect(result.lines).toBe(count);
    // Buffer.equals: toEqual walks 5 MB byte by byte for a minute.
    expect((await readFile(path.join(ts.session.paths.workingMemory, result.archive))).equals(await readFile(transcript))).toBe(true);
    const detail = await readFile(path.join(ts.session.paths.workingMemory, result.detail), 'utf8');
    expect(detail.length).toBeGreaterThan(4 << 20);
    const headings = [...detail.matchAll(/^### (\d+)\. user · line (\d+)$/gm)].map((m) => [Number(m[1]), Number(m[2])]);
    expect(headings).toEqual(Array.from({ length: count }, (_, i) => [i + 1, i + 1]));
    expect(detail.indexOf('step 2999:')).toBeGreaterThan(detail.indexOf('step 0:'));
    expect((await readdir(ts.session.paths.detailDir)).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });
});
