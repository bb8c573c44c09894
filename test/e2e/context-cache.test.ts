// `wmem context` answered by the first stage from the session's answer cache (dist/fast/first.cjs,
// src/store/answers.ts) must print exactly what the full path prints, after any edit: over random
// sequences of edits (a note, an overview section, workspace and team memory, the history, hot
// state, `wmem off`/`on`, a new current session), each answer is compared to the same command run
// with an environment no entry was written for (so the full path computes it), and a repeat with
// nothing changed in between must come from the cache (answers.json left as it was).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { appendFile, cp, mkdir, readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { sandbox, type Sandbox } from '../helpers/cli.js';

let box: Sandbox;
// Edits in these tests always change a file's size or inode: no need to wait for the clock tick.
const ENV = { WMEM_SETTLE_MS: '0' };
let probe = 0;

beforeAll(async () => {
  box = await sandbox();
  await mkdir(path.join(box.project, '.git'));
  expect((await box.run(['init'], { env: ENV })).exitCode).toBe(0);
  await box.run(['note', 'the first note'], { env: ENV });
});
afterAll(() => box.cleanup());

async function sessionDir(): Promise<string> {
  const projects = await readdir(path.join(box.home, 'sessions'));
  const project = path.join(box.home, 'sessions', projects[0]!);
  const { readFile } = await import('node:fs/promises');
  return path.join(project, (await readFile(path.join(project, 'current'), 'utf8')).trim());
}

/** The answers file's identity (inode, size, change time), or '-': unchanged across a call = answered from the cache. */
async function answersId(): Promise<string> {
  const s = await stat(path.join(await sessionDir(), 'state', 'answers.json'), { bigint: true }).catch(() => undefined);
  return s ? `${s.ino}:${s.size}:${s.ctimeNs}` : '-';
}

type Edit = (n: number) => Promise<unknown>;
const edits: Record<string, Edit> = {
  note: (n) => box.run(['note', `note ${n} about the cache`], { env: ENV }),
  // Edits by hand (an agent's own file tools): the one file changes, nothing else does.
  scratchByHand: async (n) => appendFile(path.join(await sessionDir(), 'working-memory', 'scratch.md'), `- [2026-11-26T10:00:00Z] (importance: 0.5) a hand-written note ${n}\n`),
  overviewByHand: async (n) => appendFile(path.join(await sessionDir(), 'working-memory', 'overview.md'), `\n- a hand-written line ${n}\n`),
  overview: (n) => box.run(['set', 'progress', `- step ${n} done`], { env: ENV }),
  remember: (n) => box.run(['remember', `fact ${n}: the cache keys on file identities`], { env: ENV }),
  share: () => box.run(['share'], { env: ENV }),
  history: async (n) => appendFile(path.join(await sessionDir(), 'messages.jsonl'), JSON.stringify({ role: 'user', content: `message ${n} `.repeat(n % 7 + 1) }) + '\n'),
  track: (n) => box.run(['track'], { env: ENV, input: JSON.stringify({ tool_name: 'Edit', tool_input: { file_path: path.join(box.project, `f${n % 3}.ts`) } }) }),
  off: () => box.run(['off'], { env: ENV }),
  on: () => box.run(['on'], { env: ENV }),
  session: (n) => box.run(['init', '--session', `s-${n % 2}`], { env: ENV }),
  nothing: async () => undefined,
};
const commands = [['context'], ['context', '--part', 'memory'], ['context', '--format', 'json'], ['context', '--format', 'claude']];

describe('wmem context from the answer cache', () => {
  it('prints what the full path prints after any sequence of edits, and answers a repeat from the cache', { timeout: 600_000 }, async () => {
    let off = false;
    await fc.assert(
      // Every kind of edit in each run, in a random order, each followed by a random form of the command.
      fc.asyncProperty(fc.shuffledSubarray(Object.keys(edits), { minLength: Object.keys(edits).length }).chain((order) => fc.tuple(...order.map((edit) => fc.tuple(fc.constant(edit), fc.constantFrom(...commands))))), async (steps) => {
        for (const [edit, args] of steps) {
          // The entry for this command is fresh before the edit (a run may refresh a derived cache
          // it reads, the team block's: the second run finds it settled), and a repeat comes from it.
          await box.run(args, { env: ENV });
          const kept = await box.run(args, { env: ENV });
          const before = await answersId();
          const repeat = await box.run(args, { env: ENV });
          // Switched off, nothing is printed and nothing kept; otherwise the repeat never reached the full path.
          if (!off) expect(before !== '-' && before === (await answersId())).toBe(true);
          expect(String(repeat.stdout)).toBe(String(kept.stdout));
          await edits[edit]!(++probe);
          if (edit === 'off' || edit === 'on') off = edit === 'off';
          // Right after the edit: what the full path prints (an environment no entry was kept for).
          const after = await box.run(args, { env: ENV });
          const full = await box.run(args, { env: { ...ENV, WMEM_TEST_PROBE: String(++probe) } });
          expect(after.exitCode).toBe(0);
          expect(String(after.stdout)).toBe(String(full.stdout));
          expect(String(after.stderr)).toBe(String(full.stderr));
        }
      }),
      { numRuns: 2 },
    );
  });

  it("a copy of the session's folder (cp -a) never answers with the original's entry", { timeout: 120_000 }, async () => {
    // A sandbox of its own: the property above leaves its box switched off or on another session.
    const own = await sandbox();
    try {
      expect((await own.run(['init', '--session', 'original'], { env: ENV })).exitCode).toBe(0);
      await own.run(['context'], { env: ENV });
      const projects = await readdir(path.join(own.home, 'sessions'));
      const original = path.join(own.home, 'sessions', projects[0]!, 'original');
      expect(String((await own.run(['context'], { env: ENV })).stdout)).toContain(original);
      const copy = path.join(path.dirname(original), 'copied-session');
      await cp(original, copy, { recursive: true, preserveTimestamps: true });
      expect((await own.run(['init', '--session', 'copied-session'], { env: ENV })).exitCode).toBe(0);
      const answer = await own.run(['context'], { env: ENV });
      const full = await own.run(['context'], { env: { ...ENV, WMEM_TEST_PROBE: String(++probe) } });
      expect(String(answer.stdout)).toBe(String(full.stdout));
      expect(String(answer.stdout)).toContain(copy);
    } finally {
      await own.cleanup();
    }
  });
});
