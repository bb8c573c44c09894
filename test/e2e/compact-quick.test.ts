// The quick cut of a long history (over 8 MiB before the cut): the archive is the old
// messages.jsonl under a second name, cut to length; the readable transcript, the counts and the
// overview lines are finished from the journal in a background `wmem compact --finish` (or before
// returning with --wait). Lossless, restorable, checked by its recorded digest, and it steps
// aside for the full way when the raw bytes cannot rule out a link across the cut.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, readdir, stat, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { runJson, sandbox, type Sandbox } from '../helpers/cli.js';
import { finishingsDone, generatedHistory, leadingMarker, linkIds, sessionWith, treeSnapshot, type SessionFiles } from '../helpers/history-e2e.js';

const original = generatedHistory(25_000, 3);
const boxes: Sandbox[] = [];

beforeAll(() => {
  expect(Buffer.byteLength(original)).toBeGreaterThan(10_000_000);
});
afterAll(async () => {
  for (const box of boxes) await box.cleanup();
});

async function freshSession(content: string = original): Promise<{ box: Sandbox; files: SessionFiles }> {
  const box = await sandbox();
  boxes.push(box);
  return { box, files: await sessionWith(box, content) };
}

/** Waits for the background finishing to remove the journal. */
async function finished(files: SessionFiles): Promise<void> {
  const journal = path.join(files.dir, 'state', 'compaction.json');
  for (const started = Date.now(); existsSync(journal); ) {
    if (Date.now() - started > 60_000) throw new Error('the background finishing did not end within 60 s');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

describe('wmem compact on a long history (the quick cut)', () => {
  it('returns once the archive is safe, then finishes the transcript and overview in the background; restore gives the original back', async () => {
    const { box, files } = await freshSession();
    const result = await runJson(box, ['compact', '--keep-recent', '5']);
    expect(result).toMatchObject({ compacted: true, finishing: 'background', counts: { turnsKept: 5, turnsArchived: null, linesArchived: null, linesAfter: 21 } });
    // Already when it returns: the archive holds the bytes before the cut (followed, until the
    // finishing cuts it, by the old file's kept tail), and messages.jsonl is the marker plus the
    // kept turns.
    const lead = (await leadingMarker(files))!;
    expect(lead.marker).toMatchObject({ archive: result.archive, archiveSha256: '' });
    expect(lead.marker.archivedLines).toBeUndefined();
    const archivePath = path.join(files.workingMemory, result.archive);
    const whole = await readFile(archivePath);
    // On a busy machine the background finishing may already have cut it to the archived bytes.
    expect(whole.toString('utf8') === original || whole.length === lead.marker.archivedBytes).toBe(true);
    const archive = whole.subarray(0, lead.marker.archivedBytes);
    expect(Buffer.concat([archive, lead.rest]).toString('utf8')).toBe(original);
    expect([...linkIds(archive)].filter((id) => linkIds(lead.rest).has(id))).toEqual([]);

    await finished(files);
    expect((await readFile(archivePath)).equals(archive)).toBe(true);
    expect((await stat(archivePath)).mode & 0o777).toBe(0o600);
    const transcript = await readFile(path.join(files.workingMemory, result.details[0]), 'utf8');
    expect(transcript).toMatch(/^---\n[\s\S]*kind: "conversation"[\s\S]*lines: 1-99980 *\n[\s\S]*messages: 99980 *\n[\s\S]*turns: 24995 *\n/);
    expect(transcript).toContain('Turn 0: list the files of src/dir0');
    expect(transcript).not.toContain('Turn 24995:');
    const overview = await readFile(path.join(files.workingMemory, 'overview.md'), 'utf8');
    expect(overview).toContain(`- ${result.details[0]} — conversation turns 1-24995 (99980 messages, lines 1-99980)`);
    expect(overview).toContain(`Compacted 24995 turns (99980 messages) → ${result.archive}`);
    // The digest the marker lacks, recorded by the finishing, matches the archive.
    const digests = JSON.parse(await readFile(path.join(files.dir, 'state', 'archives.json'), 'utf8'));
    expect(digests.archives[result.archive]).toEqual({ bytes: archive.length, sha256: sha256(archive), lines: 99_980, cut: true });

    await runJson(box, ['restore', result.archive]);
    expect(await readFile(files.messages, 'utf8')).toBe(original);
  }, 120_000);

  it('--wait finishes before returning, with the counts', async () => {
    const { box, files } = await freshSession();
    // Indexing 10 MB before returning takes over 20 s (the runner's default) on a loaded 2-core machine.
    const result = await runJson(box, ['compact', '--keep-recent', '3', '--wait'], { timeout: 110_000 });
    expect(result).toMatchObject({ finishing: 'done', counts: { turnsArchived: 24_997, messagesArchived: 99_988, turnsBefore: 25_000, turnsKept: 3, linesArchived: 99_988, linesBefore: 100_000 } });
    expect(existsSync(path.join(files.dir, 'state', 'compaction.json'))).toBe(false);
    expect(await readFile(path.join(files.workingMemory, result.details[0]), 'utf8')).toMatch(/turns: 24997/);
    const text = await box.run(['compact', '--keep-recent', '1']);
    expect(text.exitCode).toBe(0);
  }, 120_000);

  it('a second compaction waits for the first one\'s finishing and then sees it done', async () => {
    const { box, files } = await freshSession();
    const first = await runJson(box, ['compact', '--keep-recent', '5']);
    const second = await runJson(box, ['compact', '--keep-recent', '5']);
    expect(second.compacted).toBe(false);
    expect(existsSync(path.join(files.dir, 'state', 'compaction.json'))).toBe(false);
    expect(await readFile(path.join(files.workingMemory, 'overview.md'), 'utf8')).toContain(`- ${first.details[0]} — conversation turns 1-24995`);
  }, 120_000);

  it('restore refuses an archive changed after the compaction (checked by the recorded digest)', async () => {
    const { box, files } = await freshSession();
    const result = await runJson(box, ['compact', '--keep-recent', '5']);
    await finished(files);
    const archivePath = path.join(files.workingMemory, result.archive);
    const archive = await readFile(archivePath);
    archive[100] = archive[100] === 0x61 ? 0x62 : 0x61;
    await writeFile(archivePath, archive);
    const restore = await box.run(['restore', result.archive]);
    expect(restore.exitCode).not.toBe(0);
    expect(String(restore.stderr)).toMatch(/not the archive its marker describes/);
    expect((await leadingMarker(files))?.marker.archive).toBe(result.archive);
  }, 120_000);

  // The last turn's answer shares its message.id with a response of turn 10: one response split
  // across the cut, as far as the lines say. Only the exact plan can cut here: inside turn 10, just
  // before that response (every later step is held by it).
  const linked = original + JSON.stringify({ type: 'user', uuid: 'late', message: { role: 'user', content: 'one more thing' } }) + '\n' + JSON.stringify({ type: 'assistant', uuid: 'late-a', message: { id: 'msg_10b', role: 'assistant', content: [{ type: 'text', text: 'done' }] } }) + '\n';

  /** The full way's outcome on `linked`, and nothing of the quick way's files left. */
  async function expectFullWay(result: any, files: SessionFiles): Promise<void> {
    expect(result.finishing).toBeUndefined();
    expect(result).toMatchObject({ cutInsideTurn: true, counts: { turnsArchived: 11 } });
    const lead = (await leadingMarker(files))!;
    const archive = await readFile(path.join(files.workingMemory, result.archive));
    expect(Buffer.concat([archive, lead.rest]).toString('utf8')).toBe(linked);
    expect([...linkIds(archive)].filter((id) => linkIds(lead.rest).has(id))).toEqual([]);
    // The quick way wrote its journal, new file and transcript placeholder while it checked the
    // bytes before the cut; the possible link it found undid them: only the full way's files are left.
    expect(existsSync(path.join(files.dir, 'state', 'compaction.json'))).toBe(false);
    expect(await readdir(path.join(files.workingMemory, 'archive'))).toEqual([path.basename(result.archive)]);
    expect(await readdir(path.join(files.workingMemory, 'detail'))).toEqual(result.details.map((d: string) => path.basename(d)));
    for (const dir of [files.dir, path.join(files.dir, 'state')]) expect((await readdir(dir)).filter((n) => n.endsWith('.tmp'))).toEqual([]);
    expect(await readFile(path.join(files.workingMemory, 'detail', path.basename(result.details[0])), 'utf8')).not.toMatch(/being written/);
  }

  it('takes the full way when a line before the cut may be linked to the kept turns; the finishing the quick way started finds nothing to do', async () => {
    const { box, files } = await freshSession(linked);
    const result = await runJson(box, ['compact', '--keep-recent', '5']);
    // The quick way left its finishing to its check's child whatever the answer: that
    // run waits for the lock, which the full way held until it was done, and finds nothing to
    // finish: it changes nothing (its search index aside).
    const snapshot = async () => {
      const tree = await treeSnapshot(files.dir, [path.join('state', 'search')]);
      return Object.fromEntries(Object.entries(tree).filter(([name]) => !name.startsWith(`state${path.sep}search`) && !name.startsWith('.lock')));
    };
    const returned = await snapshot();
    await finishingsDone(box.home);
    expect(await snapshot()).toEqual(returned);
    await expectFullWay(result, files);
    expect(existsSync(path.join(files.dir, 'state', 'search'))).toBe(true);
    const log = path.join(box.home, 'logs', 'hooks.log');
    expect(existsSync(log) ? await readFile(log, 'utf8') : '').not.toMatch(/compact --finish/);
  }, 240_000);

  it('finds the system grep with a PATH that holds none (the same answers as the check in this process)', async () => {
    // A PATH with node alone: the check's child runs the system's grep all the same (`command -p`,
    // src/history/stream/grep-check.ts), so no PATH of the user's makes it skip or replace it; the
    // in-process check itself is test/unit/quick-cut-check.test.ts's.
    const { box, files } = await freshSession(linked);
    const bin = path.join(box.root, 'bin');
    await mkdir(bin);
    await symlink(process.execPath, path.join(bin, 'node'));
    const env = { PATH: bin };
    await expectFullWay(await runJson(box, ['compact', '--keep-recent', '5'], { env }), files);
    const plain = await freshSession();
    const quick = await runJson(plain.box, ['compact', '--keep-recent', '5'], { env });
    expect(quick).toMatchObject({ compacted: true, finishing: 'background' });
    // The archive may still be whole (its finishing to come): its first bytes.
    const lead = (await leadingMarker(plain.files))!;
    expect(Buffer.concat([(await readFile(path.join(plain.files.workingMemory, quick.archive))).subarray(0, lead.marker.archivedBytes), lead.rest]).toString('utf8')).toBe(original);
  }, 240_000);

  it('--finish with nothing left to finish does nothing, quietly', async () => {
    const { box, files } = await freshSession('');
    const before = await readFile(path.join(files.workingMemory, 'overview.md'), 'utf8');
    const run = await box.run(['compact', '--finish']);
    expect(run).toMatchObject({ exitCode: 0, stdout: '', stderr: '' });
    expect(await readFile(path.join(files.workingMemory, 'overview.md'), 'utf8')).toBe(before);
  });
});
