// SIGKILL at random instants (seeded, so every run tries the same ones): `wmem note` processes
// racing each other and a consolidation, and consolidations of a large scratch.md. Afterwards
// every acknowledged note (exit 0) is in scratch.md or a scratch archive, none is doubled in
// scratch.md, no line of scratch.md is torn, the overview still parses, and a rerun completes.
import { afterAll, expect, it } from 'vitest';
import { execa, type ResultPromise } from 'execa';
import { readFile, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { BIN, runJson } from '../helpers/cli.js';
import { seeded, withSession } from './helpers.js';

const tally = { acknowledged: 0, found: 0, lost: [] as string[], kills: 0, torn: 0 };
afterAll(() => {
  console.log(`kills: ${tally.kills} processes killed at random instants; notes acknowledged ${tally.acknowledged}, found ${tally.found}, lost ${tally.lost.length}; torn lines ${tally.torn}`);
});

const NOTE_LINE = /^- \[\d{4}-\d\d-\d\dT[\d:.]+Z\] \(importance: [0-9.]+\) /;

async function archivedNotes(wm: string): Promise<string> {
  const names = (await readdir(path.join(wm, 'archive'))).filter((n) => n.startsWith('scratch-') && n.endsWith('.md'));
  return (await Promise.all(names.map((n) => readFile(path.join(wm, 'archive', n), 'utf8')))).join('\n');
}

/** Every line of scratch.md is a note, blank, or wmem's header: nothing torn. */
function tornLines(scratch: string): string[] {
  return scratch.split('\n').filter((l) => l.trim() && !NOTE_LINE.test(l) && !l.startsWith('<!--'));
}

it('notes racing consolidations, both killed at random: every acknowledged note is kept', async () => {
  const random = seeded(13);
  const { box, wm } = await withSession();
  const env = { PATH: process.env.PATH ?? '', HOME: box.home, WMEM_HOME: box.home, NO_COLOR: '1' };
  const spawn = (args: string[]) => execa('node', [BIN, ...args], { cwd: box.project, env, extendEnv: false, reject: false, timeout: 60_000 });
  try {
    for (let round = 0; round < 4; round++) {
      const running: { text?: string; child: ResultPromise }[] = [];
      for (let i = 0; i < 24; i++) {
        const text = `round ${round} note ${i} about the build cache`;
        running.push({ text, child: spawn(['note', text]) });
        if (i % 8 === 0) running.push({ child: spawn(['consolidate']) });
      }
      // Kill a third of them, each after a random delay within a note's usual lifetime.
      const kills = running.filter(() => random() < 0.33).map(async ({ child }) => {
        await new Promise((resolve) => setTimeout(resolve, Math.floor(random() * 600)));
        if (child.kill('SIGKILL')) tally.kills++;
      });
      const results = await Promise.all(running.map(async (r) => ({ ...r, result: await r.child })));
      await Promise.all(kills);
      const scratch = await readFile(wm('scratch.md'), 'utf8');
      const everywhere = scratch + '\n' + (await archivedNotes(wm('')));
      tally.torn += tornLines(scratch).length;
      expect(tornLines(scratch)).toEqual([]);
      for (const { text, result } of results) {
        if (!text || result.exitCode !== 0) continue;
        tally.acknowledged++;
        if (everywhere.includes(`) ${text}`)) tally.found++;
        else tally.lost.push(text);
        expect(scratch.split(`) ${text}\n`).length - 1).toBeLessThanOrEqual(1);
      }
      expect(tally.lost).toEqual([]);
    }
    // The state is sound: a consolidation completes, and the overview renders.
    expect((await box.run(['consolidate'])).exitCode).toBe(0);
    expect((await box.run(['context'])).exitCode).toBe(0);
  } finally {
    await box.cleanup();
  }
});

it('a consolidation of 60,000 notes killed at random instants loses none, and a rerun completes', async () => {
  const random = seeded(29);
  const count = 60_000;
  const lines = Array.from({ length: count }, (_, i) => `- [2026-03-01T00:00:${String(i % 60).padStart(2, '0')}Z] (importance: ${(i % 10) / 10}) kill-note ${i} the queue ${i % 50} retries${i % 3 ? '' : ' #progress'}`);
  for (let k = 0; k < 6; k++) {
    const { box, wm } = await withSession();
    try {
      await writeFile(wm('scratch.md'), lines.join('\n') + '\n');
      const env = { PATH: process.env.PATH ?? '', HOME: box.home, WMEM_HOME: box.home, NO_COLOR: '1' };
      const child = execa('node', [BIN, 'consolidate'], { cwd: box.project, env, extendEnv: false, reject: false, timeout: 60_000 });
      await new Promise((resolve) => setTimeout(resolve, 150 + Math.floor(random() * 1500)));
      if (child.kill('SIGKILL')) tally.kills++;
      await child;
      const rerun = await runJson(box, ['consolidate'], { timeout: 60_000 });
      expect(rerun.unparsed).toEqual([]);
      const overview = await readFile(wm('overview.md'), 'utf8');
      const details = (await readdir(wm('detail'))).filter((n) => n.endsWith('.md'));
      const kept = overview + (await Promise.all(details.map((n) => readFile(wm('detail', n), 'utf8')))).join('\n');
      const archived = await archivedNotes(wm(''));
      const numbers = (text: string) => new Set([...text.matchAll(/kill-note (\d+) /g)].map((m) => Number(m[1])));
      const inArchive = numbers(archived);
      const inMemory = numbers(kept);
      const missing = lines.filter((_, i) => !inArchive.has(i));
      const unplaced = lines.filter((_, i) => !inMemory.has(i));
      tally.acknowledged += count;
      tally.found += count - missing.length;
      tally.lost.push(...missing.slice(0, 3));
      expect(missing.length).toBe(0);
      expect(unplaced.length).toBe(0);
      expect(tornLines(await readFile(wm('scratch.md'), 'utf8'))).toEqual([]);
    } finally {
      await box.cleanup();
    }
  }
});
