// The prompt hook right after whatever an agent's session does between prompts (tool calls that
// move the hot state, failed ones, notes, overview edits by hand and by command, the part going
// past its budget and back): over random sequences, each prompt's answer is the one a fresh full
// render gives (the prompt run again with its hook state put back and the kept memory part
// removed from the render cache). A prompt after a tool call alone puts the part together from the
// render cache and hot.json (app/context-hot.ts); this holds it to the full render, cut or not.
import { afterAll, beforeAll, expect, it } from 'vitest';
import fc from 'fast-check';
import { appendFile, readFile, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { sandbox, type Sandbox } from '../helpers/cli.js';

let box: Sandbox;
const SID = 'prompt-change-6c1d2e3f';
const input = (event: string, fields: Record<string, unknown> = {}) => JSON.stringify({ session_id: SID, cwd: box.project, hook_event_name: event, ...fields });

async function stateDir(): Promise<string> {
  const [project] = await readdir(path.join(box.home, 'sessions'));
  return path.join(box.home, 'sessions', project!, SID, 'state');
}
const workingFile = async (name: string) => path.join(path.dirname(await stateDir()), 'working-memory', name);

beforeAll(async () => {
  box = await sandbox();
  expect((await box.run(['hook', 'SessionStart'], { input: input('SessionStart', { source: 'startup' }) })).exitCode).toBe(0);
});
afterAll(() => box?.cleanup());

const hook = async (event: string, fields: Record<string, unknown>) => {
  const r = await box.run(['hook', event], { input: input(event, fields) });
  expect({ event, exitCode: r.exitCode, stderr: String(r.stderr) }).toEqual({ event, exitCode: 0, stderr: '' });
};

type Step = (n: number) => Promise<unknown>;
const steps: Record<string, Step> = {
  edit: (n) => hook('PostToolUse', { tool_name: 'Edit', tool_input: { file_path: path.join(box.project, `src/f${n % 5}.ts`), old_string: 'a', new_string: 'b' }, tool_response: { success: true }, tool_use_id: `e${n}` }),
  failed: (n) => hook('PostToolUseFailure', { tool_name: 'Bash', tool_input: { command: `npm test -- ${n % 3}` }, error: `Exit code 1\nFAIL src/t${n % 3}.test.ts`, is_interrupt: false, tool_use_id: `f${n}` }),
  // The same failure again: its open error's count goes up, the block's lines keep their lengths
  // (app/context-recall.ts recutState: the kept cut with the session state alone rendered again).
  failedAgain: (n) => hook('PostToolUseFailure', { tool_name: 'Bash', tool_input: { command: 'npm run lint' }, error: 'Exit code 1\nFAIL src/again.test.ts', is_interrupt: false, tool_use_id: `again${n}` }),
  listed: (n) => hook('PostToolUse', { tool_name: 'Bash', tool_input: { command: 'ls' }, tool_response: { stdout: `a\nb${n}` }, tool_use_id: `l${n}` }),
  todo: (n) => hook('PostToolUse', { tool_name: 'TodoWrite', tool_input: { todos: [{ content: `step ${n}`, status: 'in_progress', activeForm: `doing step ${n}` }] }, tool_response: {}, tool_use_id: `t${n}` }),
  note: (n) => box.run(['note', `note ${n}: the prompt after a change`]),
  decision: (n) => box.run(['note', `decided ${n}: render the hot state alone #decisions`]),
  overviewByHand: async (n) => appendFile(await workingFile('overview.md'), `\n- a hand-written line ${n}\n`),
  // By hand: `wmem set` refuses a section past its share, so it could never cut the part.
  overBudget: async (n) => appendFile(await workingFile('overview.md'), `\n${Array.from({ length: 200 }, (_, i) => `- bulk line ${i} of step ${n}: kept whole in overview.md`).join('\n')}\n`),
  underBudget: async (n) => {
    const file = await workingFile('overview.md');
    const text = await readFile(file, 'utf8');
    const at = text.indexOf('\n- bulk line 0 of step');
    if (at >= 0) await writeFile(file, text.slice(0, at + 1));
    return box.run(['set', 'context', `- context ${n}: short again`]);
  },
  // The render cache as the build before the tail's digest wrote it (the session state's key holds
  // scratch.md's end itself), then a tool call: the prompt still answers as a full render does.
  olderCache: async (n) => {
    const file = path.join(await stateDir(), 'context-cache.json');
    const cache = JSON.parse(await readFile(file, 'utf8'));
    const state = cache.memory?.blocks?.session_state;
    if (state) {
      const [code, inputs] = JSON.parse(state.key);
      inputs[3] = (await readFile(await workingFile('scratch.md'), 'utf8')).slice(-4000);
      state.key = JSON.stringify([code, inputs]);
      await writeFile(file, JSON.stringify(cache));
    }
    await steps.failed!(n);
  },
  twoTools: async (n) => {
    await steps.failed!(n);
    await steps.edit!(n + 1);
  },
};

/** The prompt as answered, then again from a fresh full render with the same hook state: the same bytes. */
async function promptLikeAFreshRender(n: number): Promise<void> {
  const dir = await stateDir();
  const hookState = await readFile(path.join(dir, 'claude-hooks.json'));
  const answered = await box.run(['hook', 'UserPromptSubmit'], { input: input('UserPromptSubmit', { prompt: `p${n}` }) });
  const kept = await readFile(path.join(dir, 'context-cache.json'), 'utf8');
  await writeFile(path.join(dir, 'claude-hooks.json'), hookState);
  const cache = JSON.parse(kept);
  delete cache.memory;
  await writeFile(path.join(dir, 'context-cache.json'), JSON.stringify(cache));
  const fresh = await box.run(['hook', 'UserPromptSubmit'], { input: input('UserPromptSubmit', { prompt: `p${n}` }) });
  expect(answered.exitCode).toBe(0);
  expect(String(answered.stdout)).toBe(String(fresh.stdout));
  // The next step starts from what the first answer left (its render cache: the path under test).
  await writeFile(path.join(dir, 'context-cache.json'), kept);
}

it('answers each prompt after any sequence of tool calls, notes and edits as a fresh full render does', { timeout: 900_000 }, async () => {
  let n = 0;
  const names = Object.keys(steps);
  await fc.assert(
    fc.asyncProperty(fc.array(fc.constantFrom(...names), { minLength: 4, maxLength: 8 }), async (sequence) => {
      for (const name of sequence) {
        await steps[name]!(++n);
        await promptLikeAFreshRender(++n);
      }
    }),
    // Cut to the budget, then tool calls alone while cut (the part weighed whole again), and back.
    { numRuns: 2, examples: [[['overBudget', 'failed', 'olderCache', 'edit', 'twoTools', 'listed', 'decision', 'failed', 'underBudget', 'olderCache', 'todo', 'failed']], [['overBudget', 'failedAgain', 'failedAgain', 'failedAgain', 'decision', 'failedAgain', 'underBudget', 'failedAgain', 'failedAgain']]] },
  );
});
