// The prompts' first stage (dist/fast/first-prompt.cjs, the prompt moment of src/entries/first-hook.ts
// built without the memory part's reading and rendering): a prompt whose memory files kept their
// signatures since the part was rendered (app/context.ts memoryPart) is answered there alone; one
// after a change (a note, an overview edit) loads that reading and rendering from its own bundle
// beside it (dist/fast/context-memory.cjs); one after a tool call that moved the hot state alone
// puts the part together again from the render cache and hot.json (app/context-hot.ts, bundled
// in this default agent's stage: its code cache is made on such a prompt; the other agents' stages
// load it beside them, dist/fast/context-hot.cjs); neither loads the agent's first-hook build nor the full entry. Both answer byte for
// byte as the full entry (dist/fast/fast-hook.cjs) does in a sandbox of its own, with the same
// hook state and render cache. Which stage answers does not depend on the clock: a file changed
// within the last 2 s is compared by its text as well as its signature, one that stood still by
// its signature alone, and each prompt here follows a change by less than that or more.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { execa } from 'execa';
import { appendFile, copyFile, readFile, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { BIN, FIXTURES, ROOT, sandbox, type Sandbox } from '../helpers/cli.js';

const FULL = path.join(ROOT, 'dist', 'fast', 'fast-hook.cjs');
const SID = 'first-prompt-2b7e41c0';
let staged: Sandbox;
let full: Sandbox;

// Records, as the process exits, which of dist/fast/'s files the process loaded.
const PROBE = `process.on('exit', () => require('node:fs').writeFileSync(process.env.WMEM_TEST_LOADED, JSON.stringify(Object.keys(require.cache).filter((f) => /[\\\\/]dist[\\\\/]fast[\\\\/][^\\\\/]+\\.cjs$/.test(f)).map((f) => require('node:path').basename(f)).sort())));`;

beforeAll(async () => {
  [staged, full] = await Promise.all([sandbox(), sandbox()]);
  for (const box of [staged, full]) {
    await copyFile(path.join(FIXTURES, 'claude-code-log', 'ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl'), path.join(box.root, 'transcript.jsonl'));
    await writeFile(path.join(box.root, 'probe.cjs'), PROBE);
  }
});
afterAll(async () => Promise.all([staged?.cleanup(), full?.cleanup()]));

/** The root's own path, and as the project's folder name spells it (store/names.ts encodeCwd), as `<root>`. */
const norm = (box: Sandbox, text: string) => text.split(box.root).join('<root>').split(box.root.slice(1).replace(/[/\\:]/g, '-')).join('<root>');

/** One Claude Code hook through `wmem hook` or the full entry alone: its stdout (the root as `<root>`) and the dist/fast/ files loaded. */
async function hook(box: Sandbox, event: string, fields: Record<string, unknown>) {
  const input = JSON.stringify({ session_id: SID, transcript_path: path.join(box.root, 'transcript.jsonl'), cwd: box.project, hook_event_name: event, ...fields });
  const loaded = path.join(box.root, 'loaded.json');
  const env = { PATH: process.env.PATH ?? '', HOME: box.home, NO_COLOR: '1', WMEM_HOME: box.home, WMEM_TEST_LOADED: loaded, NODE_OPTIONS: `--require ${path.join(box.root, 'probe.cjs')}` };
  const command = box === staged ? [BIN, 'hook', event] : ['-e', `require(${JSON.stringify(FULL)}).runFast(['node', 'wmem', 'hook', ...process.argv.slice(1)])`, '--', event];
  const r = await execa('node', command, { cwd: box.project, input, reject: false, extendEnv: false, timeout: 60_000, env });
  expect({ event, exitCode: r.exitCode, stderr: r.stderr }).toEqual({ event, exitCode: 0, stderr: '' });
  return { stdout: norm(box, String(r.stdout)), loaded: JSON.parse(await readFile(loaded, 'utf8')) as string[] };
}

/** The session's hook state, with the sandbox's root as `<root>` (the cursor's file stamps left out). */
async function hookState(box: Sandbox): Promise<unknown> {
  const [project] = await readdir(path.join(box.home, 'sessions'));
  const state = JSON.parse(await readFile(path.join(box.home, 'sessions', project!, SID, 'state', 'claude-hooks.json'), 'utf8'));
  const { mtimeMs: _m, ctimeMs: _c, ino: _i, size: _s, ...cursor } = state.transcript ?? {};
  return JSON.parse(norm(box, JSON.stringify({ ...state, transcript: cursor })));
}

const sessionFile = async (box: Sandbox, name: string) => {
  const [project] = await readdir(path.join(box.home, 'sessions'));
  return path.join(box.home, 'sessions', project!, SID, 'working-memory', name);
};

/** The same hook on both sides: the same answer and hook state; `stages`: the first stages that answered it, in load order. */
async function both(event: string, fields: Record<string, unknown>, stages: string[] | undefined, before?: (box: Sandbox) => Promise<void>) {
  await before?.(staged);
  await before?.(full);
  const a = await hook(staged, event, fields);
  const b = await hook(full, event, fields);
  expect({ event, stdout: a.stdout }).toEqual({ event, stdout: b.stdout });
  expect(await hookState(staged)).toEqual(await hookState(full));
  if (stages) expect({ event, loaded: a.loaded }).toEqual({ event, loaded: stages });
  return a.stdout;
}

const PROMPT_ALONE = ['first-prompt.cjs'];
const RENDERED = ['context-memory.cjs', 'first-prompt.cjs'];
// The hot state's re-render is in the stage itself (src/entries/build-first-hook.mjs BESIDE_CACHED_PROMPTS): nothing rendered beside it.
const HOT_ALONE = ['first-prompt.cjs'];

it('answers a prompt whose memory is unchanged alone, renders a changed one from context-memory.cjs, both as the full path answers', { timeout: 300_000 }, async () => {
  const grow = async (box: Sandbox) => appendFile(path.join(box.root, 'transcript.jsonl'), JSON.stringify({ type: 'assistant', uuid: 'u-grow', message: { id: 'msg_grow', model: 'claude-opus-4', role: 'assistant', content: [{ type: 'text', text: 'more' }], usage: { input_tokens: 3, cache_read_input_tokens: 70000, output_tokens: 10 } } }) + '\n');
  await both('SessionStart', { source: 'startup' }, undefined);
  // The first prompt: the memory part rendered (SessionStart did), its files' signatures kept now.
  await both('UserPromptSubmit', { prompt: 'one' }, undefined);
  // Nothing changed but the transcript: the meta part alone, from the prompts' stage.
  const hit = await both('UserPromptSubmit', { prompt: 'two' }, PROMPT_ALONE, grow);
  expect(hit).toContain('context_meta');
  await both('UserPromptSubmit', { prompt: 'three' }, PROMPT_ALONE);
  // A note added: the part is rendered again, from the bundle beside the stage.
  const note = async (box: Sandbox) => appendFile(await sessionFile(box, 'scratch.md'), '- [2026-11-27T16:00:00Z] a note from another terminal\n');
  const changed = await both('UserPromptSubmit', { prompt: 'four' }, RENDERED, note);
  expect(changed).toContain('a note from another terminal');
  await both('UserPromptSubmit', { prompt: 'five' }, PROMPT_ALONE);
  // A tool call that changes the hot state (the hot state alone: context-memory.cjs not loaded), then the
  // overview edited by hand (rendered).
  await both('PostToolUse', { tool_name: 'Bash', tool_input: { command: 'npm test' }, tool_response: { stdout: 'ok' }, tool_use_id: 't1' }, undefined);
  await both('UserPromptSubmit', { prompt: 'six' }, HOT_ALONE);
  await both('PostToolUseFailure', { tool_name: 'Bash', tool_input: { command: 'npm run lint' }, error: 'Exit code 1\nlint failed', tool_use_id: 't2' }, undefined);
  expect(await both('UserPromptSubmit', { prompt: 'six and a half' }, HOT_ALONE)).toContain('npm run lint');
  const edit = async (box: Sandbox) => appendFile(await sessionFile(box, 'overview.md'), '\n- a line the agent wrote\n');
  expect(await both('UserPromptSubmit', { prompt: 'seven' }, RENDERED, edit)).toContain('a line the agent wrote');
  await both('UserPromptSubmit', { prompt: 'eight' }, PROMPT_ALONE);
  // Nothing went wrong on either side.
  for (const box of [staged, full]) await expect(readFile(path.join(box.home, 'logs', 'hooks.log'), 'utf8')).rejects.toThrow();
});
