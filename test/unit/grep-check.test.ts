// grep's output as the quick cut's link check reads it (src/history/stream/grep-check.ts): only
// a match of one of the needles with exit 0, or exit 1 with nothing, is an answer; anything else
// (another grep's output, an error, grep missing) is "unknown", and the check runs in process.
import { chmodSync, closeSync, existsSync, mkdtempSync, openSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, it } from 'vitest';
import { earliest, grepAnswer, startGrepCheck } from '../../src/history/stream/grep-check.js';

const needles = new Set(['"msg_01A"', '\\u0041']);

it('reads the first match, or no match at all', () => {
  expect(grepAnswer('120:"msg_01A"\n130:\\u0041\nexit 0\n', needles)).toBe(120);
  expect(grepAnswer('exit 1\n', needles)).toBe(-1);
});

it('answers nothing it does not recognise', () => {
  for (const text of ['exit 2\n', 'exit 127\n', 'exit 0\n', '', 'exit 1', '5:"msg_01A"\nexit 1\n', 'Binary file (standard input) matches\nexit 0\n', '12:"msg_01B"\nexit 0\n', '"msg_01A"\nexit 0\n', 'x12:"msg_01A"\nexit 0\n']) {
    expect(grepAnswer(text, needles), JSON.stringify(text)).toBeUndefined();
  }
});

it('starts no child for no needles or a needle it cannot pass', () => {
  const answer = path.join(os.tmpdir(), `wmem-grep-answer-${process.pid}`);
  expect(startGrepCheck(0, [], { answer })).toBeUndefined();
  expect(startGrepCheck(0, ['a\nb'], { answer })).toBeUndefined();
  expect(startGrepCheck(0, [''], { answer })).toBeUndefined();
  expect(existsSync(answer)).toBe(false);
});

it('runs the system grep, whatever the user put first on PATH or in GREP_OPTIONS', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'wmem-grep-shim-'));
  const saved = { PATH: process.env.PATH, GREP_OPTIONS: process.env.GREP_OPTIONS };
  try {
    // A wrapper that matches whole lines only would find nothing here and say "none".
    writeFileSync(path.join(dir, 'grep'), '#!/bin/sh\nexec /usr/bin/env -i /bin/false "$@"\n');
    chmodSync(path.join(dir, 'grep'), 0o755);
    const file = path.join(dir, 'messages.jsonl');
    writeFileSync(file, '{"text":"plain"}\n{"id":"msg_01A"}\n');
    process.env.PATH = `${dir}:${saved.PATH}`;
    process.env.GREP_OPTIONS = '-x';
    const fd = openSync(file, 'r');
    try {
      expect(await startGrepCheck(fd, ['msg_01A"'], { answer: path.join(dir, '.answer') })!.firstMatch).toBe(24);
      // The answer's file was removed once open.
      expect(readdirSync(dir).sort()).toEqual(['grep', 'messages.jsonl']);
      // With two groups the first is searched by the system's grep started directly: neither the
      // wrapper nor GREP_OPTIONS reaches it either.
      // (Descriptors of their own: grep read the first to its end.)
      const [first, again] = [openSync(file, 'r'), openSync(file, 'r')];
      try {
        const check = startGrepCheck(first, ['msg_01A"'], { answer: path.join(dir, '.a1'), others: { needles: ['\\u0041'], fd: again, answer: path.join(dir, '.a2') } })!;
        expect(await check.firstMatch).toBe(24);
      } finally {
        closeSync(first);
        closeSync(again);
      }
      expect(readdirSync(dir).sort()).toEqual(['grep', 'messages.jsonl']);
    } finally {
      closeSync(fd);
    }
  } finally {
    process.env.PATH = saved.PATH;
    if (saved.GREP_OPTIONS === undefined) delete process.env.GREP_OPTIONS;
    else process.env.GREP_OPTIONS = saved.GREP_OPTIONS;
    rmSync(dir, { recursive: true, force: true });
  }
});

it('runs a second grep beside the first over its own descriptor, and answers the earlier match of the two', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'wmem-grep-two-'));
  try {
    const file = path.join(dir, 'messages.jsonl');
    writeFileSync(file, '{"text":"plain"}\n{"text":"\\u0041"}\n{"id":"msg_01A"}\n');
    const run = async (ids: string[], escapes: string[]) => {
      const [fd, again] = [openSync(file, 'r'), openSync(file, 'r')];
      try {
        const check = startGrepCheck(fd, ids, { answer: path.join(dir, '.a1'), others: { needles: escapes, fd: again, answer: path.join(dir, '.a2') } })!;
        return await check.firstMatch;
      } finally {
        closeSync(fd);
        closeSync(again);
      }
    };
    // The escape on line 2 comes first; without it, the id on line 3; neither: -1.
    expect(await run(['msg_01A"'], ['\\u0041'])).toBe(26);
    expect(await run(['msg_01A"'], ['\\u0042'])).toBe(42);
    expect(await run(['msg_01B"'], ['\\u0042'])).toBe(-1);
    expect(readdirSync(dir)).toEqual(['messages.jsonl']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

it('takes the earlier of two answers, nothing known when either is unknown, and none when the first found none', () => {
  expect(earliest(10, 5)).toBe(5);
  // The first group (the kept ids) must match: its "nothing" is kept, for the caller to distrust.
  expect(earliest(-1, 5)).toBe(-1);
  expect(earliest(7, -1)).toBe(7);
  expect(earliest(-1, -1)).toBe(-1);
  expect(earliest(undefined, 5)).toBeUndefined();
  expect(earliest(3, undefined)).toBeUndefined();
});

/** What this process's descriptors without close-on-exec point at: every child it starts holds them too. */
function inheritedTargets(): Set<string> {
  const targets = new Set<string>();
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      const flags = /flags:\s*([0-7]+)/.exec(readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8'))?.[1];
      if (flags !== undefined && (parseInt(flags, 8) & 0o2000000) === 0) targets.add(readlinkSync(`/proc/self/fd/${fd}`));
    } catch {
      // closed meanwhile (the listing's own descriptor)
    }
  }
  return targets;
}
const inherited = inheritedTargets();

/** Waits (30 s at most) for the shell that starts `then` (its command line names `marker`) to hold a socket as its fd 5. */
async function waitingShell(marker: string): Promise<boolean> {
  for (let i = 0; i < 600; i++) {
    for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
      try {
        if (readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(marker) && readlinkSync(`/proc/${pid}/fd/5`).startsWith('socket:')) return true;
      } catch {
        // gone, or not ours to read
      }
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return false;
}

it('starts `then` only once this process lets go of its socket, with no polling, and gives it none of the check\'s descriptors', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'wmem-grep-then-'));
  try {
    const file = path.join(dir, 'messages.jsonl');
    writeFileSync(file, '{"text":"\\u0041"}\n{"id":"msg_01A"}\n');
    const marker = path.join(dir, 'started');
    // `then` lists the descriptors it holds (not the socket, the history or the answers).
    const then = { file: '/bin/sh', args: ['-c', `ls -l /proc/$$/fd > "${marker}.tmp"; mv "${marker}.tmp" "${marker}"`] };
    for (const twoGroups of [true, false]) {
      rmSync(marker, { force: true });
      const [fd, again] = [openSync(file, 'r'), openSync(file, 'r')];
      let release: (() => void) | undefined;
      try {
        const others = twoGroups ? { others: { needles: ['\\u0041'], fd: again, answer: path.join(dir, '.a2') } } : {};
        const check = startGrepCheck(fd, ['msg_01A"'], { answer: path.join(dir, '.a1'), then, ...others, letGo: (r) => (release = r) })!;
        expect(check.thenStarted).toBe(true);
        expect(await check.firstMatch).toBe(twoGroups ? 9 : 25);
      } finally {
        closeSync(fd);
        closeSync(again);
      }
      // The check is done and its child gone; `then` waits for the socket (not for a time): the
      // shell that will start it is seen blocked on its fd 5, and `then` has not started.
      expect(await waitingShell(marker)).toBe(true);
      expect(existsSync(marker)).toBe(false);
      expect(release).toBeTypeOf('function');
      release!();
      for (let i = 0; i < 600 && !existsSync(marker); i++) await new Promise((r) => setTimeout(r, 50));
      // No socket, no history, no answer's file (removed once open): only what this test process
      // had and passes to every child (its descriptors without close-on-exec).
      const held = readFileSync(marker, 'utf8').split('\n').map((line) => line.split(' -> ')[1] ?? '').filter((target) => target && !inherited.has(target));
      expect(held.join('\n')).not.toMatch(/socket:|messages\.jsonl|\.a[12]|deleted/);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 60_000);
