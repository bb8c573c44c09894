// The finishing of a quick cut (journal.ts, on real files in a temp session): whatever state the
// compacting run left the archive in (the old file not yet cut to length, as the run leaves it,
// lines appended to it and carried over or not, with or without the run's note of how far it
// carried, lines a program wrote through a descriptor it held across the compaction),
// finishing cuts it to length, drops nothing and duplicates nothing, then writes the transcript.
import { afterEach, beforeEach, expect, it } from 'vitest';
import { appendFile, link, open, readFile, stat, truncate, unlink, utimes, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { compactSession, recoverCompaction } from '../../src/history/compaction/compact.js';
import { restoreArchive } from '../../src/history/compaction/restore.js';
import { journalPath, type Journal } from '../../src/history/compaction/journal.js';
import { withLock } from '../../src/store/fsx.js';
import { removeAtomicLeftovers } from '../../src/history/stream/index.js';
import { makeSession, setMessages, type TestSession } from '../helpers/history-session.js';

const J = (v: unknown) => JSON.stringify(v);
const history = Array.from({ length: 30 }, (_, t) => [
  J({ type: 'user', message: { role: 'user', content: `turn ${t}` } }),
  J({ type: 'assistant', message: { id: `msg_${t}`, role: 'assistant', content: [{ type: 'text', text: `answer ${t}` }] } }),
])
  .flat()
  .join('\n')
  .concat('\n');
const late = (tag: string) => J({ type: 'user', message: { role: 'user', content: `written late: ${tag}` } }) + '\n';

let ts: TestSession;
let clock = Date.UTC(2026, 3, 1);
const env = { now: () => new Date((clock += 1000)), warn: () => {} };
beforeEach(async () => {
  ts = await makeSession();
  await setMessages(ts.session, history);
});
afterEach(async () => {
  await ts.cleanup();
});

/** A quick cut whose finishing was left for later (as when a background run will do it). */
async function cutLeavingFinish(): Promise<{ archive: string; journal: Journal }> {
  const result = await compactSession(ts.session, { target: 'conversation', strategy: 'archive', keepRecent: 2, quickFrom: 0 }, { ...env, finishLater: () => true });
  expect(result.finishing).toBe('background');
  const journal = JSON.parse(await readFile(journalPath(ts.session), 'utf8')) as Journal;
  return { archive: result.archivePath!, journal };
}

/** As if the run was killed after its commit, before it noted how far it carried over. */
async function forgetCarried(): Promise<void> {
  await unlink(path.join(ts.session.paths.stateDir, 'compaction-carried.json'));
}

/** As if an earlier finishing cut the archive to length and was killed before the rest. */
async function cutAsFinishingDid(archive: string, journal: Journal): Promise<void> {
  await truncate(archive, journal.quick!.archivedBytes);
}

async function finish(): Promise<void> {
  await withLock(ts.session.paths.dir, () => recoverCompaction(ts.session, env));
  expect(existsSync(journalPath(ts.session))).toBe(false);
}

it('finishes a clean cut: transcript, overview lines, digest; nothing else changes', async () => {
  const { archive, journal } = await cutLeavingFinish();
  const messages = await readFile(ts.session.paths.messages);
  await finish();
  expect(await readFile(ts.session.paths.messages)).toEqual(messages);
  expect((await readFile(archive)).length).toBe(journal.quick!.archivedBytes);
  expect(await readFile(journal.quick!.transcript, 'utf8')).toMatch(/turns: 28 *\n/);
  expect(await readFile(ts.session.paths.overview, 'utf8')).toContain('Compacted 28 turns (56 messages)');
});

it('moves lines written into the archive after its cut (a descriptor held across the compaction) to messages.jsonl', async () => {
  const { archive, journal } = await cutLeavingFinish();
  await cutAsFinishingDid(archive, journal);
  await appendFile(archive, late('a') + late('b'));
  await finish();
  expect((await readFile(archive)).length).toBe(journal.quick!.archivedBytes);
  expect((await readFile(ts.session.paths.messages, 'utf8')).endsWith(late('a') + late('b'))).toBe(true);
  await restoreArchive(ts.session, path.basename(archive), env);
  expect(await readFile(ts.session.paths.messages, 'utf8')).toBe(history + late('a') + late('b'));
});

it('cuts an archive left whole by a run stopped before its cut, carrying over appends it had not carried', async () => {
  const { archive, journal } = await cutLeavingFinish();
  // As if stopped right after the commit: the archive is still the whole old file, and a line
  // appended to it meanwhile was never carried over.
  await writeFile(archive, history + late('uncarried'));
  await finish();
  expect((await readFile(archive)).length).toBe(journal.quick!.archivedBytes);
  await restoreArchive(ts.session, path.basename(archive), env);
  expect(await readFile(ts.session.paths.messages, 'utf8')).toBe(history + late('uncarried'));
});

it('does not carry over twice what the run had carried before it stopped', async () => {
  const { archive } = await cutLeavingFinish();
  await forgetCarried();
  await writeFile(archive, history + late('carried'));
  await appendFile(ts.session.paths.messages, late('carried'));
  await finish();
  await restoreArchive(ts.session, path.basename(archive), env);
  expect(await readFile(ts.session.paths.messages, 'utf8')).toBe(history + late('carried'));
});

it('a cut inside a turn (its opening message repeated after the marker): matches what was carried past the repeat, carries the rest once', async () => {
  const opening = J({ type: 'user', message: { role: 'user', content: 'one long request' } }) + '\n';
  const steps = Array.from({ length: 12 }, (_, i) => [
    J({ type: 'assistant', message: { id: `msg_${i}`, role: 'assistant', content: [{ type: 'tool_use', id: `toolu_${i}`, name: 'Bash', input: {} }] } }),
    J({ type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: `toolu_${i}`, content: 'ok' }] }, toolUseResult: { stdout: 'ok' } }),
  ]);
  const oneTurn = opening + steps.flat().join('\n') + '\n';
  await setMessages(ts.session, oneTurn);
  const result = await compactSession(ts.session, { target: 'conversation', strategy: 'archive', keepRecent: 2, keepSteps: 3, quickFrom: 0 }, { ...env, finishLater: () => true });
  expect(result).toMatchObject({ finishing: 'background', cutInsideTurn: true });
  const journal = JSON.parse(await readFile(journalPath(ts.session), 'utf8')) as Journal;
  expect(journal.quick!.headBytes).toBe(Buffer.byteLength(opening));
  // Stopped right after the commit, its note lost: one line it had carried, one it had not.
  await forgetCarried();
  await writeFile(result.archivePath!, oneTurn + late('carried') + late('uncarried'));
  await appendFile(ts.session.paths.messages, late('carried'));
  await finish();
  expect((await readFile(result.archivePath!)).length).toBe(journal.quick!.archivedBytes);
  expect(await readFile(journal.quick!.transcript, 'utf8')).toMatch(/turns: 1 *\n/);
  await restoreArchive(ts.session, path.basename(result.archivePath!), env);
  expect(await readFile(ts.session.paths.messages, 'utf8')).toBe(oneTurn + late('carried') + late('uncarried'));
});

it('keeps the archive when messages.jsonl was rewritten after the commit (never deletes the only copy)', async () => {
  for (const rewrite of ['truncated', 'removed'] as const) {
    for (const noted of [true, false]) {
      await setMessages(ts.session, history);
      const { archive, journal } = await cutLeavingFinish();
      if (!noted) await forgetCarried();
      // A line written through the old file after the run carried over: the note says so.
      await appendFile(archive, late('straggler'));
      const whole = await readFile(archive);
      if (rewrite === 'truncated') await writeFile(ts.session.paths.messages, '');
      else await unlink(ts.session.paths.messages);
      await finish();
      if (noted) {
        // Cut where the run cut, as it would have been with no rewrite; the straggler carried.
        expect((await readFile(archive)).toString('utf8')).toBe(history.slice(0, journal.quick!.archivedBytes));
        expect(await readFile(ts.session.paths.messages, 'utf8')).toBe(late('straggler'));
      } else {
        // Nothing says what messages.jsonl held: left whole.
        expect((await readFile(archive)).equals(whole)).toBe(true);
      }
      expect(await readFile(journal.quick!.transcript, 'utf8')).toMatch(/turns: 28 *\n/);
      await unlink(archive);
    }
  }
});

it('a finishing killed after appending late lines, before the cut, does not append them again', async () => {
  for (const appended of [true, false]) {
    await setMessages(ts.session, history);
    const { archive, journal } = await cutLeavingFinish();
    const { copiedTo } = journal.quick!;
    await appendFile(archive, late('H'));
    const at = (await stat(ts.session.paths.messages)).size;
    // What that finishing recorded before its append; then the append itself, or not yet.
    await writeFile(path.join(ts.session.paths.stateDir, 'compaction-carried.json'), J({ id: journal.id, carriedTo: copiedTo, pending: { at, length: late('H').length } }));
    if (appended) await appendFile(ts.session.paths.messages, late('H'));
    await finish();
    expect((await readFile(ts.session.paths.messages, 'utf8')).split(late('H')).length - 1).toBe(1);
    await restoreArchive(ts.session, path.basename(archive), env);
    expect(await readFile(ts.session.paths.messages, 'utf8')).toBe(history + late('H'));
  }
});

it('a run stopped after carrying some lines over: carries the rest once, and keeps lines the agent appended since', async () => {
  const { archive } = await cutLeavingFinish();
  await forgetCarried();
  // Carried C before it stopped; then H came through a held descriptor, N from the agent.
  await writeFile(archive, history + late('C') + late('H'));
  await appendFile(ts.session.paths.messages, late('C') + late('N'));
  await finish();
  const text = await readFile(ts.session.paths.messages, 'utf8');
  for (const tag of ['C', 'H', 'N']) expect(text.split(late(tag)).length - 1).toBe(1);
  await restoreArchive(ts.session, path.basename(archive), env);
  expect(await readFile(ts.session.paths.messages, 'utf8')).toBe(history + late('C') + late('N') + late('H'));
});

it('carries what reached the old file after the commit from where the run noted, even a line equal to one the agent appended', async () => {
  const { archive } = await cutLeavingFinish();
  // The same bytes twice: one written through the old file as it was swapped, one appended to the
  // new file by the agent. Matching lines could not tell them apart; the note can.
  await appendFile(archive, late('same'));
  await appendFile(ts.session.paths.messages, late('same'));
  await finish();
  expect((await readFile(ts.session.paths.messages, 'utf8')).split(late('same')).length - 1).toBe(2);
  await restoreArchive(ts.session, path.basename(archive), env);
  expect(await readFile(ts.session.paths.messages, 'utf8')).toBe(history + late('same') + late('same'));
});

it('skips the hole a positioned (not appending) writer leaves after the cut', async () => {
  const { archive, journal } = await cutLeavingFinish();
  await cutAsFinishingDid(archive, journal);
  const handle = await open(archive, 'r+');
  await handle.write(Buffer.from(late('positioned')), 0, Buffer.byteLength(late('positioned')), journal.quick!.archivedBytes + 50);
  await handle.close();
  await finish();
  const text = await readFile(ts.session.paths.messages, 'utf8');
  expect(text.endsWith(late('positioned'))).toBe(true);
  expect(text.includes('\0')).toBe(false);
});

it('holds the transcript name with a placeholder until the finishing replaces it', async () => {
  const { journal } = await cutLeavingFinish();
  expect(await readFile(journal.quick!.transcript, 'utf8')).toMatch(/being written[\s\S]*holds every line byte for byte/);
  await finish();
  expect(await readFile(journal.quick!.transcript, 'utf8')).not.toMatch(/being written/);
});

it('rolling back a run that never committed removes the archive name only while it names messages.jsonl', async () => {
  for (const linked of [true, false]) {
    await setMessages(ts.session, history);
    const archive = path.join(ts.session.paths.archiveDir, `messages-rollback-${linked}.jsonl`);
    if (linked) await link(ts.session.paths.messages, archive);
    else await writeFile(archive, 'some other file\n');
    const st = await stat(ts.session.paths.messages);
    const journal: Journal = {
      version: 1, id: `never-${linked}`, pid: 999_999, startedAt: new Date().toISOString(), temps: [], finals: [archive], indexLines: [], recentLine: '',
      quick: { archive, archivedBytes: 10, copiedTo: history.length, transcript: path.join(ts.session.paths.detailDir, 'x-conversation.md'), created: new Date().toISOString() },
      messagesFile: { dev: st.dev, ino: st.ino },
    };
    await writeFile(journalPath(ts.session), JSON.stringify(journal));
    await finish();
    expect(existsSync(archive)).toBe(!linked);
    expect(await readFile(ts.session.paths.messages, 'utf8')).toBe(history);
  }
});

it('restore carries what was written into the archive after its finishing (a descriptor held on the old file) to the end, once, and says so', async () => {
  const { archive, journal } = await cutLeavingFinish();
  await finish();
  await appendFile(archive, late('after'));
  const warnings: string[] = [];
  const result = await restoreArchive(ts.session, path.basename(archive), { ...env, warn: (msg) => warnings.push(msg) });
  expect(result).toMatchObject({ restoredBytes: journal.quick!.archivedBytes, writtenAfterBytes: Buffer.byteLength(late('after')) });
  expect(await readFile(ts.session.paths.messages, 'utf8')).toBe(history + late('after'));
  expect((await readFile(archive)).length).toBe(journal.quick!.archivedBytes);
  expect(warnings.join('\n')).toMatch(/bytes a program wrote into archive\/.* after the compaction .* at the end of messages\.jsonl/);
});

it('restore ends the carried lines with a newline (a partial last line is not glued to the next), past a hole a positioned write left', async () => {
  const { archive, journal } = await cutLeavingFinish();
  await finish();
  const handle = await open(archive, 'r+');
  const partial = late('partial').trimEnd();
  await handle.write(Buffer.from(partial), 0, Buffer.byteLength(partial), journal.quick!.archivedBytes + 10);
  await handle.close();
  const result = await restoreArchive(ts.session, path.basename(archive), env);
  expect(result.writtenAfterBytes).toBe(Buffer.byteLength(partial));
  expect(await readFile(ts.session.paths.messages, 'utf8')).toBe(history + partial + '\n');
  expect((await readFile(archive)).length).toBe(journal.quick!.archivedBytes);
});

it('restore refuses, and doubles nothing, an archive the finishing left whole (messages.jsonl rewritten, no note of what was carried)', async () => {
  const { archive } = await cutLeavingFinish();
  await forgetCarried();
  // A line put before the marker: the finishing cannot tell what messages.jsonl holds of the tail.
  const current = await readFile(ts.session.paths.messages, 'utf8');
  await writeFile(ts.session.paths.messages, J({ type: 'summary', summary: 'put first' }) + '\n' + current);
  await finish();
  const before = await readFile(ts.session.paths.messages);
  await expect(restoreArchive(ts.session, path.basename(archive), env)).rejects.toThrow(/is not the archive its marker describes/);
  expect(await readFile(ts.session.paths.messages)).toEqual(before);
});

it('restore refuses an archive longer than its archived bytes when no digest was recorded (its first bytes cannot be checked)', async () => {
  const { archive } = await cutLeavingFinish();
  await finish();
  await unlink(path.join(ts.session.paths.stateDir, 'archives.json'));
  await appendFile(archive, late('after'));
  const before = await readFile(ts.session.paths.messages);
  await expect(restoreArchive(ts.session, path.basename(archive), env)).rejects.toThrow(/is not the archive its marker describes/);
  expect(await readFile(ts.session.paths.messages)).toEqual(before);
});

it('restore still refuses an archive whose archived bytes changed, with lines after them or not', async () => {
  const { archive } = await cutLeavingFinish();
  await finish();
  const handle = await open(archive, 'r+');
  await handle.write('X', 5);
  await handle.close();
  const before = await readFile(ts.session.paths.messages);
  await expect(restoreArchive(ts.session, path.basename(archive), env)).rejects.toThrow(/is not the archive its marker describes/);
  await appendFile(archive, late('after'));
  await expect(restoreArchive(ts.session, path.basename(archive), env)).rejects.toThrow(/is not the archive its marker describes/);
  expect(await readFile(ts.session.paths.messages)).toEqual(before);
});

it('status says when a compaction is not finished', async () => {
  await cutLeavingFinish();
  const { run } = await import('../../src/commands/status.js');
  const { PLAIN_STYLE } = await import('../../src/ui/color.js');
  const ctx = { home: path.join(ts.root, 'home'), cwd: path.join(ts.root, 'project'), sessionFlag: ts.session.id, env: {}, json: false, quiet: true, color: false, style: PLAIN_STYLE, now: () => new Date(), stdin: process.stdin, stderrIsTTY: false, warn: () => {} };
  const pending = await run({}, ctx);
  expect(pending.data).toMatchObject({ compactionPending: true });
  expect(pending.text).toMatch(/compaction\s+not finished/);
  await finish();
  expect((await run({}, ctx)).data).toMatchObject({ compactionPending: false });
});

it("sweeps a killed atomic write's leftover once it is stale, and nothing else", async () => {
  const { dir, stateDir, workingMemory } = ts.session.paths;
  const stale = [path.join(stateDir, 'compaction.json.123456789'), path.join(dir, 'meta.json.3456789012'), path.join(workingMemory, 'overview.md.2233445566')];
  const fresh = path.join(stateDir, 'compaction.json.987654321');
  // Backups and archives that only look alike: a user's copies, an archive --archive-to named.
  const kept = [
    path.join(stateDir, 'notes.2024'),
    path.join(dir, 'messages.jsonl.1'),
    path.join(dir, 'messages.jsonl.20261123'),
    path.join(workingMemory, 'before.jsonl.2'),
    path.join(workingMemory, 'before.jsonl.123456789'),
    path.join(workingMemory, 'overview.md.1'),
  ];
  await writeFile(path.join(stateDir, 'compaction.json'), '{}');
  for (const file of [...stale, fresh, ...kept]) await writeFile(file, 'x');
  const old = new Date(Date.now() - 120_000);
  for (const file of [...stale, ...kept]) await utimes(file, old, old);
  expect(await removeAtomicLeftovers([dir, stateDir, workingMemory], stateDir)).toBe(stale.length);
  expect(stale.filter((f) => existsSync(f))).toEqual([]);
  expect([fresh, ...kept].filter((f) => !existsSync(f))).toEqual([]);
});
