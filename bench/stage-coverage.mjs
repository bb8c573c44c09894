// What a Claude Code session's prompts and starts run of the hook stage they load (issue 27): for
// each module bundled in a stage, its bytes beside the bytes of the functions a run called (V8's
// precise coverage, NODE_V8_COVERAGE), for a prompt with nothing changed (hit), the prompt after
// a tool call (after), the prompt after an overview edit (`**`) and a resume. A stage's source is read
// and kept whole by every hook that loads it (~0.4 page faults per KB: bench/README.md, hit20):
// the bytes no usual run calls are what a smaller stage could spare, and the modules no run
// calls at all are the ones a build could leave out of it. Not a timing: no baseline, no JSON.
//   node bench/stage-coverage.mjs [rounds] [bin/wmem.js]   (2 rounds, this tree's build)
//   TOP=N rows per table (25)
import './node-start.mjs';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchSession, fillMemory } from './hook-rounds.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const rounds = Number(process.argv[2] ?? 2);
const bin = path.resolve(process.argv[3] ?? path.join(root, 'bin', 'wmem.js'));
const top = Number(process.env.TOP ?? 25);
const work = path.join(root, 'bench', '.work', 'stage-coverage');
const covDir = path.join(work, 'coverage');
rmSync(work, { recursive: true, force: true });
mkdirSync(covDir, { recursive: true });

// The same environment for every run (the hook state and the render cache are keyed by it), and
// no settle time: a prompt right after the one that rendered is then a hit, as a later one is.
const SID = 'bench-4f1d2c3b-aaaa-4bbb-8ccc-0123456789ab';
const session = benchSession({ work, tag: 'world', bin, agent: 'claude', sid: SID, env: () => ({ NODE_V8_COVERAGE: covDir, WMEM_SETTLE_MS: '0' }) });
const { dir, project, home, hook } = session;
const transcript = path.join(dir, 'transcript.jsonl');
copyFileSync(path.join(root, 'test', 'fixtures', 'transcripts', 'claude-code-log', 'ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl'), transcript);
const payload = (event, extra = {}) => JSON.stringify({ session_id: SID, transcript_path: transcript, cwd: project, permission_mode: 'default', hook_event_name: event, ...extra });
const overview = path.join(home, 'sessions', `--${project.slice(1).replace(/[/\\:]/g, '-')}--`, SID, 'working-memory', 'overview.md');

/** The coverage files written since the last call, moved under `moment` (undefined: dropped). */
const runs = {};
function taken(moment) {
  for (const file of readdirSync(covDir)) {
    if (moment) (runs[moment] ??= []).push(JSON.parse(readFileSync(path.join(covDir, file), 'utf8')));
    rmSync(path.join(covDir, file));
  }
}

hook('SessionStart', payload('SessionStart', { source: 'startup' }));
fillMemory(session, SID);
hook('UserPromptSubmit', payload('UserPromptSubmit', { prompt: 'warm' }));
hook('UserPromptSubmit', payload('UserPromptSubmit', { prompt: 'warm' }));
taken();
for (let r = 0; r < rounds; r++) {
  hook('UserPromptSubmit', payload('UserPromptSubmit', { prompt: 'next step' }));
  taken('hit');
  hook('PostToolUseFailure', payload('PostToolUseFailure', { tool_name: 'Bash', tool_input: { command: 'npm run lint' }, tool_use_id: 'u', error: 'Exit code 2\nlint: 3 problems', is_interrupt: false }));
  taken();
  hook('UserPromptSubmit', payload('UserPromptSubmit', { prompt: 'after a tool call' }));
  taken('after');
  writeFileSync(overview, readFileSync(overview, 'utf8').replace('## Open Questions\n', `## Open Questions\n- question ${r}: does the edit survive?\n`));
  hook('PostToolUse', payload('PostToolUse', { tool_name: 'Edit', tool_input: { file_path: overview, old_string: 'a', new_string: 'b' }, tool_response: { success: true }, tool_use_id: 't' }));
  taken();
  hook('UserPromptSubmit', payload('UserPromptSubmit', { prompt: 'after an overview edit' }));
  taken('**');
  hook('SessionStart', payload('SessionStart', { source: 'resume' }));
  taken('resume');
}

/**
 * Marks in `run` (one byte per source byte) what the functions a run called span, the innermost
 * function deciding, and in `inner` the same without the stage's top level (every module's
 * statements run there as the stage loads: a module none of whose functions is called has none).
 */
function markRun(script, source, run, inner) {
  // A stage compiled through node:vm (bin/wmem.js, from its code cache) is Module.wrap's text: its
  // offsets count the wrapper's head; one loaded by require() starts at the file's first byte.
  const whole = script.functions[0].ranges[0];
  const shift = whole.endOffset > source.length ? whole.endOffset - source.length - '\n});'.length : 0;
  const ranges = script.functions.map((fn) => fn.ranges[0]).sort((a, b) => b.endOffset - b.startOffset - (a.endOffset - a.startOffset));
  const mine = new Uint8Array(source.length);
  // The top level: the script's, and under node:vm the wrapper function's, each spanning the whole file.
  const topLevel = (r) => r.endOffset - r.startOffset >= source.length;
  for (const r of ranges) mine.fill(r.count > 0 ? (topLevel(r) ? 1 : 3) : 0, Math.max(0, r.startOffset - shift), Math.max(0, r.endOffset - shift));
  for (let i = 0; i < source.length; i++) {
    run[i] |= mine[i] & 1;
    inner[i] |= mine[i] >> 1;
  }
}

/** Each stage a moment loaded (dist/…): its source and what the moment's runs called of it. */
const stages = {};
for (const [moment, list] of Object.entries(runs)) {
  for (const script of list.flatMap((c) => c.result)) {
    const file = script.url.startsWith('file:') ? fileURLToPath(script.url) : script.url;
    if (!file.includes(`${path.sep}dist${path.sep}`) || !script.functions.length) continue;
    // Read from the build run: V8 names a script compiled from a code cache as the build that made
    // the cache named it (another folder when dist/ was copied).
    const name = file.slice(file.lastIndexOf(`${path.sep}dist${path.sep}`) + 6);
    const stage = (stages[name] ??= { source: readFileSync(path.join(path.dirname(bin), '..', 'dist', name), 'utf8'), moments: {} });
    stage.inner ??= new Uint8Array(stage.source.length);
    markRun(script, stage.source, (stage.moments[moment] ??= new Uint8Array(stage.source.length)), stage.inner);
  }
}

/** The stage's modules (esbuild's `// src/…` lines) as [name, start, end]. */
const modules = (source) => {
  const marks = [...source.matchAll(/^\/\/ (\S+\.(?:ts|js|cjs|mjs)|first-stage-\S+)$/gm)].map((m) => [m[1], m.index]);
  return marks.map(([name, at], i) => [name, at, i + 1 < marks.length ? marks[i + 1][1] : source.length]);
};
const count = (run, a, b) => run.subarray(a, b).reduce((n, x) => n + x, 0);
const kb = (n) => (n / 1024).toFixed(1).padStart(6);

console.log(`bin ${bin}; ${rounds} rounds; KB of each module, and of it the functions each moment's runs called`);
for (const [name, { source, moments, inner }] of Object.entries(stages)) {
  const names = Object.keys(moments);
  const union = new Uint8Array(source.length);
  for (const run of Object.values(moments)) for (let i = 0; i < source.length; i++) union[i] |= run[i];
  const rows = modules(source).map(([mod, a, b]) => ({ mod, size: b - a, runs: names.map((m) => count(moments[m], a, b)), any: count(union, a, b), called: count(inner, a, b) }));
  const never = rows.filter((r) => r.called === 0);
  console.log(`\n${name}: ${kb(source.length)} KB; called: ${names.map((m) => `${m} ${kb(count(moments[m], 0, source.length))} KB`).join(', ')}; by any of them ${kb(count(union, 0, source.length))} KB`);
  console.log(`  modules none of whose functions any of them calls: ${never.length}, ${kb(never.reduce((n, r) => n + r.size, 0))} KB${never.length ? ` (by size: ${never.sort((x, y) => y.size - x.size).map((r) => `${r.mod} ${kb(r.size).trim()}`).join(', ')})` : ''}`);
  console.log(`  ${'module'.padEnd(44)} ${'KB'.padStart(6)} ${names.map((m) => m.slice(0, 8).padStart(8)).join(' ')}  uncalled by any`);
  for (const r of rows.sort((x, y) => y.size - y.any - (x.size - x.any)).slice(0, top)) {
    console.log(`  ${r.mod.padEnd(44)} ${kb(r.size)} ${r.runs.map((n) => kb(n).padStart(8)).join(' ')}  ${kb(r.size - r.any)}`);
  }
}
rmSync(work, { recursive: true, force: true });
