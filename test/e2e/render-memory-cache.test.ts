// The memory part kept in the render cache (state/context-cache.json's `memory`, app/context.ts)
// must be exactly what a fresh render gives, after any edit: over random sequences of edits (notes
// by command and by hand, the overview by command and by hand, workspace and team memory, hot
// state, the history), each `wmem context` and each prompt hook right after the edit is compared
// with the same call once the kept part is removed (so it renders again). The prompt hook changes
// its own state as it answers: the state is put back before the second call.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { appendFile, mkdir, readFile, readdir, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { sandbox, type Sandbox } from '../helpers/cli.js';

let box: Sandbox;
const SID = 'render-cache-3b1f0c2a';
let probe = 0;
// A new environment each call: the answer cache (first.cjs) never answers, the full path does.
const fresh = () => ({ WMEM_TEST_PROBE: String(++probe) });
const prompt = () => JSON.stringify({ session_id: SID, cwd: box.project, hook_event_name: 'UserPromptSubmit', prompt: 'next' });

async function sessionDir(): Promise<string> {
  const [project] = await readdir(path.join(box.home, 'sessions'));
  return path.join(box.home, 'sessions', project!, SID);
}

beforeAll(async () => {
  box = await sandbox();
  await mkdir(path.join(box.project, '.git'));
  // The hook's session is the project's current one: the commands below edit it.
  const start = await box.run(['hook', 'SessionStart'], { input: JSON.stringify({ session_id: SID, cwd: box.project, hook_event_name: 'SessionStart', source: 'startup' }) });
  expect(start.exitCode).toBe(0);
  expect((await box.run(['note', 'the first note'])).exitCode).toBe(0);
});
afterAll(() => box.cleanup());

/** The kept memory part removed (the rest of the render cache stays): the next call renders it. */
async function forgetKeptMemory(): Promise<void> {
  const file = path.join(await sessionDir(), 'state', 'context-cache.json');
  const cache = JSON.parse(await readFile(file, 'utf8'));
  // One copy of the part is kept: its text when it was cut, else its blocks' texts (their join).
  expect(typeof cache.memory?.text === 'string' || Object.values(cache.memory?.blocks ?? {}).every((b) => typeof (b as { text?: unknown }).text === 'string')).toBe(true);
  delete cache.memory;
  await writeFile(file, JSON.stringify(cache));
}

type Edit = (n: number) => Promise<unknown>;
const edits: Record<string, Edit> = {
  note: (n) => box.run(['note', `note ${n} about the render cache`]),
  scratchByHand: async (n) => appendFile(path.join(await sessionDir(), 'working-memory', 'scratch.md'), `- [2026-11-26T10:00:00Z] (importance: 0.5) a hand-written note ${n}\n`),
  overviewByHand: async (n) => appendFile(path.join(await sessionDir(), 'working-memory', 'overview.md'), `\n- a hand-written line ${n}\n`),
  overview: (n) => box.run(['set', 'progress', `- step ${n} done`]),
  remember: (n) => box.run(['remember', `fact ${n}: the render cache keys on its inputs`]),
  share: () => box.run(['share']),
  history: async (n) => appendFile(path.join(await sessionDir(), 'messages.jsonl'), JSON.stringify({ role: 'user', content: `message ${n} `.repeat(n % 7 + 1) }) + '\n'),
  track: (n) => box.run(['track'], { input: JSON.stringify({ tool_name: 'Edit', tool_input: { file_path: path.join(box.project, `f${n % 3}.ts`) } }) }),
  // The session state block is kept under what it is rendered from (hot state, the scratch tail's decisions).
  decision: (n) => box.run(['note', `decided ${n}: keep the render cache by its sources #decisions`]),
  failedTool: (n) => box.run(['hook', 'PostToolUseFailure'], { input: JSON.stringify({ session_id: SID, cwd: box.project, hook_event_name: 'PostToolUseFailure', tool_name: 'Bash', tool_input: { command: 'npm test' }, error: `Exit code 1\nFAIL src/a${n % 2}.test.ts`, is_interrupt: false }) }),
  secret: (n) => box.run(['note', `deploy key ${n}: AKIA${'ABCDEFGHIJKLMNOP'.slice(n % 4)}${'Q'.repeat(n % 4)}`]),
  // Past the budget (the part is cut, its blocks keep their lengths only) and back under it.
  overBudget: (n) => box.run(['set', 'context', Array.from({ length: 300 }, (_, i) => `- context line ${i} of edit ${n}: kept whole in overview.md`).join('\n')]),
  underBudget: (n) => box.run(['set', 'context', `- context ${n}: short again`]),
  nothing: async () => undefined,
};

describe('the memory part kept in the render cache', () => {
  it('is what a fresh render gives after any sequence of edits, for wmem context and the prompt hook', { timeout: 600_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(fc.shuffledSubarray(Object.keys(edits), { minLength: Object.keys(edits).length }), async (order) => {
        for (const edit of order) {
          // The kept part is current before the edit, and a repeat leaves the render cache as it was.
          await box.run(['context'], { env: fresh() });
          const cacheFile = path.join(await sessionDir(), 'state', 'context-cache.json');
          const before = (await stat(cacheFile, { bigint: true })).ctimeNs;
          await box.run(['context', '--part', 'memory'], { env: fresh() });
          expect((await stat(cacheFile, { bigint: true })).ctimeNs).toBe(before);
          await edits[edit]!(++probe);

          const kept = await box.run(['context'], { env: fresh() });
          await forgetKeptMemory();
          const rendered = await box.run(['context'], { env: fresh() });
          expect(kept.exitCode).toBe(0);
          expect(String(kept.stdout)).toBe(String(rendered.stdout));

          // The prompt hook: its state put back between the two calls, so both decide from the same copy.
          const stateFile = path.join(await sessionDir(), 'state', 'claude-hooks.json');
          const state = await readFile(stateFile);
          const hooked = await box.run(['hook', 'UserPromptSubmit'], { input: prompt() });
          await writeFile(stateFile, state);
          await forgetKeptMemory();
          const again = await box.run(['hook', 'UserPromptSubmit'], { input: prompt() });
          expect(hooked.exitCode).toBe(0);
          expect(String(hooked.stdout)).toBe(String(again.stdout));
        }
      }),
      // One run in a fixed order that goes past the budget, edits another block while the part is
      // cut (its blocks keep their lengths only), then comes back under it; one run at random.
      { numRuns: 1, examples: [[['overBudget', 'track', 'note', 'underBudget', ...Object.keys(edits).filter((e) => !['overBudget', 'track', 'note', 'underBudget'].includes(e))]]] },
    );
  });

  it('is not recalled when another build (an older install on the same session) rewrote it beside this build\'s recall record', async () => {
    await box.run(['context'], { env: fresh() });
    const file = path.join(await sessionDir(), 'state', 'context-cache.json');
    const cache = JSON.parse(await readFile(file, 'utf8'));
    // The recall record stays this build's (the file's last field, as this build wrote it); the
    // part is another code's, its texts different, as a build that renders otherwise would leave it.
    expect(Object.keys(cache).at(-1)).toBe('recall');
    // Each key begins with the code that rendered it (the part's and each block's).
    const anotherCode = (key: string) => JSON.stringify(['another build', ...JSON.parse(key).slice(1)]);
    cache.memory.key = anotherCode(cache.memory.key);
    if (typeof cache.memory.text === 'string') cache.memory.text += '\nFROM ANOTHER BUILD';
    for (const block of Object.values(cache.memory.blocks ?? {}) as { key: string; text?: string }[]) {
      block.key = anotherCode(block.key);
      if (typeof block.text === 'string') block.text += '\nFROM ANOTHER BUILD';
    }
    await writeFile(file, JSON.stringify(cache));
    const kept = await box.run(['context', '--part', 'memory'], { env: fresh() });
    expect(kept.exitCode).toBe(0);
    expect(String(kept.stdout)).not.toContain('FROM ANOTHER BUILD');
    await forgetKeptMemory();
    expect(String(kept.stdout)).toBe(String((await box.run(['context', '--part', 'memory'], { env: fresh() })).stdout));
  });
});
