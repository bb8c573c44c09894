// Makes the V8 code caches of the default agent's (Claude Code's) hook first stages,
// dist/code-cache/<stage>.v8, which bin/wmem.js compiles them from (loadStage): the bytecode of
// the functions a usual run of each stage compiles, taken as that run exits. Parsing and compiling
// is most of what a first stage adds to Node's own start (a prompt with its memory unchanged:
// ~30 M of ~68 M instructions). Each is made by running the built hook, as the agent would, in a
// session of a temporary home: a prompt after a tool call (first-prompt.cjs: what a prompt with
// the memory unchanged runs, and the hot state's re-render), a tool call (first-tool.cjs), a
// resumed session's start (first-start.cjs). The rest of the stages (the other
// agents', the compactions') load as before. Run by `npm run build` (build:cache), after the
// stamp (the render cache's code signature is the build's).
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const caches = path.join(root, 'dist', 'code-cache');
try {
  makeCaches();
} catch (err) {
  // An install must not fail for a speed-up: without the caches every stage loads as before
  // (test/e2e/hook-code-cache.test.ts fails instead, where the build is tested).
  rmSync(caches, { recursive: true, force: true });
  process.stderr.write(`wmem build: no code cache for the hook stages (${err.message}); they compile as before\n`);
}

/** Runs the hooks that write the caches, in a temporary home, then checks each cached stage routes its import()s. */
function makeCaches() {
  const work = mkdtempSync(path.join(os.tmpdir(), 'wmem-code-cache-'));
  try {
    const home = path.join(work, 'home');
    const project = path.join(work, 'project');
    mkdirSync(project, { recursive: true });
    const transcript = path.join(work, 'transcript.jsonl');
    const usage = (i) => ({ type: 'assistant', uuid: `u${i}`, message: { id: `m${i}`, model: 'claude-opus-4', role: 'assistant', content: [{ type: 'text', text: 'working on it' }], usage: { input_tokens: 3, cache_read_input_tokens: 60000 + i, output_tokens: 100 } } });
    writeFileSync(transcript, [0, 1, 2].map((i) => JSON.stringify(usage(i)) + '\n').join(''));
    const sid = 'code-cache-0000-4000-8000-000000000000';
    const payload = (event, extra) => JSON.stringify({ session_id: sid, transcript_path: transcript, cwd: project, hook_event_name: event, ...extra });
    const tool = { tool_name: 'Edit', tool_input: { file_path: path.join(project, 'a.ts'), old_string: 'a', new_string: 'b' }, tool_response: { success: true }, tool_use_id: 't' };
    // [event, input, whether this run writes its stage's cache]: each stage's own run after one that
    // set the session up as it usually is then (rendered, its render cache written).
    const runs = [
      ['SessionStart', payload('SessionStart', { source: 'startup' }), false],
      ['UserPromptSubmit', payload('UserPromptSubmit', { prompt: 'first' }), false],
      ['UserPromptSubmit', payload('UserPromptSubmit', { prompt: 'next' }), false],
      ['PostToolUse', payload('PostToolUse', tool), false],
      ['PostToolUse', payload('PostToolUse', tool), true],
      // The prompt the user meets most: after a tool call (the hot state changed alone). It runs
      // what a prompt with nothing changed runs, and context-hot's re-render (bundled in the stage).
      ['UserPromptSubmit', payload('UserPromptSubmit', { prompt: 'after a tool call' }), true],
      // The resume after a tool call, as before the prompt's run moved here.
      ['PostToolUse', payload('PostToolUse', tool), false],
      ['SessionStart', payload('SessionStart', { source: 'resume' }), true],
    ];
    // Only what a hook needs: none of the builder's WMEM_* (WMEM_DISABLED would cache the off
    // path), CLAUDE_PROJECT_DIR or NODE_OPTIONS (V8 flags there make every cache one V8 refuses).
    const env = { PATH: process.env.PATH ?? '', HOME: work, WMEM_HOME: home, NO_COLOR: '1', ...(process.env.TMPDIR ? { TMPDIR: process.env.TMPDIR } : {}) };
    for (const [event, input, write] of runs) {
      const run = spawnSync(process.execPath, [path.join(root, 'bin', 'wmem.js'), 'hook', '--agent', 'claude', event], { cwd: project, input, encoding: 'utf8', timeout: 60_000, env: write ? { ...env, WMEM_CODE_CACHE_WRITE: '1' } : env });
      if (run.status !== 0 || run.stderr) throw new Error(`the code cache's run of ${event} failed (${run.status ?? run.signal}): ${run.stderr}`);
      // A hook fails silently by design: a prompt or a start that printed nothing did not run its stage whole.
      if (event !== 'PostToolUse' && !run.stdout.includes('"additionalContext"')) throw new Error(`the code cache's run of ${event} answered nothing`);
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  // A stage compiled through node:vm must route its import()s (build-first-hook.mjs CODE_CACHED).
  for (const cache of readdirSync(caches)) {
    const stage = cache.replace(/\.v8$/, '');
    if (!readFileSync(path.join(root, 'dist', 'fast', stage), 'utf8').includes('\nconst __wmemImport =')) throw new Error(`dist/fast/${stage} has a code cache but calls import() itself: add its kind to CODE_CACHED`);
  }
}
