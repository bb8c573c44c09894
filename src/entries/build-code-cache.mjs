// Makes the V8 code caches of the hook first stages, of the compact entry (compactRun) and of the
// search entry (searchRun),
// dist/code-cache/<stage>.v8, which bin/wmem.js compiles them from (loadStage): the bytecode of the functions a usual run of each
// stage compiles, taken as that run exits. Parsing and compiling is most of what a first stage
// adds to Node's own start (a prompt with its memory unchanged: ~30 M of ~68 M instructions). Each
// is made by running the built hook, as the agent would, in a session of a temporary home: a
// prompt after a tool call (first-prompt*.cjs: what a prompt with the memory unchanged runs, and
// the hot state's re-render) and a resumed session's start (first-start*.cjs) of Claude Code,
// Droid, Qwen Code, Copilot CLI, OpenCode, Codex CLI and Kilo Code (AGENTS below); every agent's tool call (first-tool*.cjs:
// what its run compiled, Gemini CLI's too); the compaction's stages
// (first-archive*.cjs, first-end*.cjs: Claude Code's, Codex CLI's, OpenCode's and Kilo Code's from
// their compaction's runs on their own input, the others' their top level alone; ~35-75 M
// instructions of parsing each, bench/README.md lead14, cmp15); and context-hot.cjs,
// the re-render the other agents' prompts and starts load beside their stage (through
// bin/wmem.js's loader, __wmemLoad). Its cache is the last such run's (Kilo's): the re-render's
// functions are the same for every agent. The rest load as before. Run
// by `npm run build` (build:cache), after the stamp (the render cache's code signature is the build's).
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const caches = path.join(root, 'dist', 'code-cache');
/**
 * Each agent whose stages get a cache: its hook input (`input(event, fields, at)`, `at` the session's
 * folders); its start (`start(source)`, source 'startup' or 'resume'), prompt and tool call
 * (`tool(at)`) as [event, fields]; whether its start answers (`startAnswers`: Qwen Code's and
 * Copilot CLI's give the memory part with the first prompt instead); and whether only its tool
 * call's run is cached (`toolOnly`: its start and prompt keep their top level's cache). A cache of
 * the run holds the bytecode of every function the build's run compiled, read and deserialized
 * whole; a cache of the top level alone (made as the stage has loaded, `load` below) spares the
 * parse of the whole file and is small, but every function the hook runs is then compiled
 * lazily. Every tool stage gets its run's: against the top level's, +10..+39 page faults and
 * −11..−13 M instructions on every tool call of OpenCode, Codex CLI and the others since the stages
 * lost their `__esm` wrappers (bench/README.md, tool17; hit10 and hit12 had found the trade a wash
 * or a loss on the larger stages of then). Codex CLI's and OpenCode's prompt and start had the
 * top-level one alone until agents13: their run's cache costs ~+70 page faults but spares
 * ~13-30 M instructions (~1.5-2 ms of CPU a prompt; bench/README.md).
 * `compaction(at)`: its compaction's hooks, each [event, fields, what the agent does before it],
 * run last, each caching its stage's run (first-archive*, first-end*): ~60-100 more page faults
 * than the top level's cache, ~20-40 M fewer instructions (bench/README.md, lead14, cmp15).
 */
const claudeLike = (event, fields, at) => ({ session_id: at.sid, transcript_path: at.transcript, cwd: at.project, hook_event_name: event, ...fields });
const opencodeLike = (event, fields, at) => ({ event, sessionID: at.sid, directory: at.project, model: { providerID: 'anthropic', modelID: 'claude-sonnet-4-5', limit: { context: 200000, output: 64000 } }, ...fields });
const AGENTS = {
  claude: {
    input: claudeLike,
    start: (source) => ['SessionStart', { source }],
    prompt: ['UserPromptSubmit', { prompt: 'next' }],
    tool: (at) => ['PostToolUse', { tool_name: 'Edit', tool_input: { file_path: path.join(at.project, 'a.ts'), old_string: 'a', new_string: 'b' }, tool_response: { success: true }, tool_use_id: 't' }],
    // context-memory.cjs's cache (the render every agent's prompt and start load beside their stage) is made by its runs.
    renderCache: true,
    // Its compaction, each hook's run cached (first-archive.cjs, first-end.cjs: SessionEnd's stage too).
    compaction: () => [
      ['PreCompact', { trigger: 'auto', custom_instructions: '' }],
      ['PostCompact', { trigger: 'auto', compact_summary: SUMMARY }],
    ],
  },
  droid: {
    input: claudeLike,
    start: (source) => ['SessionStart', { source }],
    prompt: ['UserPromptSubmit', { prompt: 'next' }],
    tool: () => ['PostToolUse', { tool_name: 'Execute', tool_input: { command: 'ls' }, tool_response: 'a.ts', tool_use_id: 'c1' }],
  },
  qwen: {
    input: claudeLike,
    // Its start answers nothing: the memory part goes with the first prompt.
    startAnswers: false,
    start: (source) => ['SessionStart', { source }],
    prompt: ['UserPromptSubmit', { prompt: 'next' }],
    tool: () => ['PostToolUse', { tool_name: 'run_shell_command', tool_input: { command: 'ls' }, tool_response: 'Command: ls\nOutput: a.ts\nExit Code: 0' }],
  },
  copilot: {
    startAnswers: false,
    input: (event, fields, at) => ({ sessionId: at.sid, timestamp: 1795712906217, cwd: at.project, ...fields }),
    start: (source) => ['sessionStart', { source: source === 'startup' ? 'new' : 'resume' }],
    prompt: ['userPromptSubmitted', { prompt: 'next' }],
    tool: () => ['postToolUse', { toolName: 'bash', toolArgs: { command: 'ls' }, toolResult: { resultType: 'success', textResultForLlm: 'a.ts\n<shellId: 0 completed with exit code 0>' } }],
  },
  opencode: {
    input: opencodeLike,
    start: () => ['system.transform', {}],
    prompt: ['chat.message', {}],
    tool: () => ['tool.execute.after', { tool: { tool: 'bash', callID: 'call_0', args: { command: 'ls' }, title: 'ls', output: 'a.ts\n', metadata: { exit: 0, truncated: false } } }],
    compaction: opencodeCompaction,
  },
  codex: {
    input: (event, fields, at) => ({ ...claudeLike(event, fields, at), model: 'gpt-5.1', permission_mode: 'bypassPermissions' }),
    start: (source) => ['SessionStart', { source }],
    prompt: ['UserPromptSubmit', { turn_id: 't', prompt: 'next' }],
    tool: () => ['PostToolUse', { turn_id: 't', tool_name: 'Bash', tool_input: { command: 'ls' }, tool_response: 'a.ts', tool_use_id: 'c1' }],
    // Codex passes no summary: PostCompact finds it in the rollout's `compacted` line, which Codex
    // writes between the two hooks; PreCompact archives the rollout as it was before.
    compaction: (at) => [
      ['PreCompact', { turn_id: 't', trigger: 'auto' }, () => writeFileSync(at.transcript, codexRollout(at, false))],
      ['PostCompact', { turn_id: 't', trigger: 'auto' }, () => writeFileSync(at.transcript, codexRollout(at, true))],
    ],
  },
  // Its tool call alone (toolOnly): its start and prompt read a chat file this session does not
  // have, and keep the top level's cache (topLevelCaches).
  gemini: {
    input: (event, fields, at) => ({ ...claudeLike(event, fields, at), timestamp: '2026-11-25T08:00:00.000Z' }),
    toolOnly: true,
    startAnswers: false,
    start: (source) => ['SessionStart', { source }],
    prompt: ['BeforeAgent', { prompt: 'next' }],
    tool: () => ['AfterTool', { tool_name: 'run_shell_command', tool_input: { command: 'ls' }, tool_response: { llmContent: 'Output: a.ts\nProcess Group PGID: 1', returnDisplay: '' } }],
  },
  kilo: {
    input: opencodeLike,
    start: () => ['system.transform', {}],
    prompt: ['chat.message', {}],
    tool: () => ['tool.execute.after', { tool: { tool: 'bash', callID: 'call_0', args: { command: 'ls' }, title: 'ls', output: 'a.ts\n', metadata: { exit: 0, truncated: false } } }],
    compaction: opencodeCompaction,
  },
};

/**
 * The compaction of OpenCode and Kilo Code as their plugin passes it: the session's messages, whole
 * before it (archived: no transcript file), then with OpenCode's summary message (`summary: true`)
 * after it.
 */
function opencodeCompaction(at) {
  const message = (i, role, text, extra = {}) => ({ info: { id: `msg_${String(i).padStart(6, '0')}`, sessionID: at.sid, role, time: { created: i }, ...extra }, parts: [{ type: 'text', text }] });
  const tokens = (i) => ({ total: 60000 + i, input: 9000, output: 100, reasoning: 0, cache: { read: 50900 + i, write: 0 } });
  const messages = Array.from({ length: 6 }, (_, i) => (i % 2 ? message(i, 'assistant', `done with step ${i}`, { modelID: 'claude-sonnet-4-5', providerID: 'anthropic', tokens: tokens(i) }) : message(i, 'user', `step ${i}: go on with the parser`)));
  const summary = message(6, 'assistant', SUMMARY, { summary: true, modelID: 'claude-sonnet-4-5', providerID: 'anthropic', tokens: { total: 0, input: 0, output: 1800, reasoning: 0, cache: { read: 0, write: 0 } } });
  return [
    ['session.compacting', { messages }],
    ['session.compacted', { messages: [...messages, summary] }],
  ];
}

const SUMMARY = 'The user is shipping the compaction path; the tests pass.';

/**
 * A Codex CLI rollout (src/agents/codex/rollout.ts): the session's meta, a turn's context, prompt,
 * finished command and token use, and with `compacted` the compaction's line (its summary) and the
 * estimate Codex writes after it.
 */
function codexRollout(at, compacted) {
  const line = (type, payload) => JSON.stringify({ timestamp: '2026-11-25T08:07:33.489Z', type, payload }) + '\n';
  const usage = (total, input, output) => line('event_msg', { type: 'token_count', info: { last_token_usage: { input_tokens: input, cached_input_tokens: 0, output_tokens: output, total_tokens: total }, model_context_window: 258400 } });
  const turn = [
    line('session_meta', { id: at.sid, cwd: at.project, cli_version: '0.169.0', source: 'exec' }),
    line('event_msg', { type: 'task_started', model_context_window: 258400 }),
    line('turn_context', { turn_id: 't', cwd: at.project, model: 'gpt-5.1' }),
    line('response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Run the tests and fix what fails.' }] }),
    line('response_item', { type: 'function_call', name: 'exec_command', arguments: '{"cmd":"npm test"}', call_id: 'c1' }),
    line('event_msg', { type: 'item_completed', item: { type: 'CommandExecution', id: 'c1', command: ['/bin/bash', '-lc', 'npm test'], status: 'completed', aggregated_output: 'ok\n', exit_code: 0 } }),
    line('response_item', { type: 'function_call_output', call_id: 'c1', output: 'ok' }),
    line('response_item', { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'The tests pass.' }] }),
    usage(60100, 60000, 100),
  ];
  const compaction = [
    line('compacted', { message: `Another language model started to solve this problem and produced a summary of its thinking process. Use the information in this summary to assist with your own analysis: ${SUMMARY}` }),
    line('turn_context', { turn_id: 't', cwd: at.project, model: 'gpt-5.1' }),
    usage(1800, 0, 0),
  ];
  return [...turn, ...(compacted ? compaction : [])].join('');
}

/**
 * Runs the hooks that write the caches, in a temporary home, then checks each cached stage routes
 * its import()s. Every cache is made anew (a cache left from an earlier build of other stage bytes
 * would only be refused at run time). An agent whose runs fail loses the caches its runs wrote (a
 * run that failed half way may have cached an unusual path); its stages may still get the cache of
 * their top level alone through another name routed to them (first-routes.json's aliases, such as
 * `gemini-cli`): a top level that fails fails that run too, which then keeps nothing. The other
 * agents keep their speed-up.
 */
function makeCaches() {
  rmSync(caches, { recursive: true, force: true });
  const work = mkdtempSync(path.join(os.tmpdir(), 'wmem-code-cache-'));
  const failed = [];
  const failedAgents = new Set();
  try {
    for (const [agent, spec] of Object.entries(AGENTS)) {
      if (!undoneOnFailure(() => agentRuns(work, agent, spec), failed)) failedAgents.add(agent);
    }
    topLevelCaches(work, failedAgents, failed);
    if (undoneOnFailure(() => compactRun(work), failed)) undoneOnFailure(() => searchRun(work), failed);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  if (failed.length) process.stderr.write(`wmem build: no code cache for some hook stages (${failed.join('; ')}); they compile as before\n`);
  // A stage compiled through node:vm must route its import()s (build-first-hook.mjs CODE_CACHED).
  for (const cache of readdirSync(caches)) {
    const stage = cache.replace(/\.v8$/, '');
    if (!readFileSync(path.join(root, 'dist', 'fast', stage), 'utf8').includes('\nconst __wmemImport =')) throw new Error(`dist/fast/${stage} has a code cache but calls import() itself: add its kind to CODE_CACHED`);
  }
}

/**
 * Runs `make`; when it throws, removes every cache it wrote or rewrote (none is trusted after a
 * failure) and records why in `failed`. Whether it succeeded.
 */
function undoneOnFailure(make, failed) {
  const before = cacheFiles();
  try {
    make();
    return true;
  } catch (err) {
    for (const [name, id] of cacheFiles()) if (before.get(name) !== id) rmSync(path.join(caches, name), { force: true });
    failed.push(err.message);
    return false;
  }
}

/**
 * The prompt, start, tool and compaction stages the runs above left without a cache (Gemini CLI's start and
 * prompt, its runs being its tool call's alone, and the compaction stages of the agents without a
 * `compaction` in AGENTS): each gets the cache of its top level alone,
 * which the path a run takes cannot change, from one hook of an event routed to it
 * (first-routes.json) in a home of its own. What that hook then does with an empty input is not
 * looked at (a hook ends silently whatever its input), but it must write no other stage's cache
 * (context-hot.cjs's is the one a run made): a run that does, or fails, keeps none of what it
 * wrote, and the next stage is tried all the same.
 */
function topLevelCaches(work, failedAgents, failed) {
  const { agents } = JSON.parse(readFileSync(path.join(root, 'dist', 'fast', 'first-routes.json'), 'utf8'));
  const tried = new Set(cacheFiles().keys());
  for (const [agent, events] of Object.entries(agents)) {
    if (failedAgents.has(agent)) continue;
    for (const [event, stage] of Object.entries(events)) {
      if (!/^first-(tool|prompt|start|end|archive)/.test(stage) || tried.has(`${stage}.v8`)) continue;
      tried.add(`${stage}.v8`);
      undoneOnFailure(() => topLevelRun(work, agent, event, stage), failed);
    }
  }
}

/** One hook of `event`, its stage's top level cached: it must have cached that and nothing else. */
function topLevelRun(work, agent, event, stage) {
  const before = cacheFiles();
  const dir = path.join(work, `top-level-${agent}`);
  mkdirSync(dir, { recursive: true });
  runHook(agent, event, { dir, cwd: dir, input: '{}', write: 'load' });
  if (!cacheFiles().has(`${stage}.v8`)) throw new Error(`the code cache's run of ${agent} ${event} did not load dist/fast/${stage}`);
  const others = [...cacheFiles()].filter(([name, id]) => name !== `${stage}.v8` && before.get(name) !== id);
  if (others.length) throw new Error(`the code cache's run of ${agent} ${event} wrote ${others.map(([name]) => name).join(', ')} besides`);
}

/**
 * One hook run for the caches, in the home under `dir`, `write` the cache it writes (none, '1':
 * what the run compiled, 'load': the top level alone; bin/wmem.js loadStage). Only what a hook
 * needs in its environment: none of the builder's WMEM_* (WMEM_DISABLED would cache the off
 * path), CLAUDE_PROJECT_DIR or NODE_OPTIONS (V8 flags there make every cache one V8 refuses).
 * Throws when the hook failed or wrote to stderr.
 */
function runHook(agent, event, { dir, cwd, input, write }) {
  return runWmem(['hook', '--agent', agent, event], { dir, cwd, input, write }, `${agent} ${event}`);
}

/** `wmem ARGS` for the caches (runHook says which environment); throws when it failed, or wrote to stderr unless `says` (init's note). */
function runWmem(args, { dir, cwd, input, write, says = false }, what) {
  const env = { PATH: process.env.PATH ?? '', HOME: dir, WMEM_HOME: path.join(dir, 'home'), NO_COLOR: '1', ...(process.env.TMPDIR ? { TMPDIR: process.env.TMPDIR } : {}), ...(write ? { WMEM_CODE_CACHE_WRITE: write } : {}) };
  const run = spawnSync(process.execPath, [path.join(root, 'bin', 'wmem.js'), ...args], { cwd, input, encoding: 'utf8', timeout: 120_000, env });
  if (run.status !== 0 || (run.stderr && !says)) throw new Error(`the code cache's run of ${what} failed (${run.status ?? run.signal}): ${run.stderr.trim()}`);
  return run;
}

/**
 * The lean compact entry's cache (dist/fast/fast-compact.cjs, bin/wmem.js loadStage): what a
 * quick cut of a long history compiles; parsing and compiling were ~40 M of the return's ~180 M
 * instructions (bench/README.md, ret13). Made by `compact --wait` on a history past the quick
 * cut's threshold (8 MiB archived: ~10 MB): the return's functions and its finishing's (the cache of the return
 * alone measured the same), and nothing left running in the temporary home afterwards.
 */
function compactRun(work) {
  const dir = path.join(work, 'compact');
  const cwd = path.join(dir, 'project');
  mkdirSync(cwd, { recursive: true });
  runWmem(['init', '--session', 'code-cache'], { dir, cwd, says: true }, 'compact (init)');
  const file = JSON.parse(runWmem(['show', 'messages', '--json'], { dir, cwd }, 'compact (show)').stdout).file;
  writeFileSync(file, longHistory(6_500));
  const run = runWmem(['compact', '--keep-recent', '5', '--json', '--wait'], { dir, cwd, write: '1' }, 'compact');
  // The quick way's result says its finishing is done; the full way's says nothing of one.
  if (JSON.parse(run.stdout).finishing !== 'done') throw new Error("the code cache's run of compact did not take the quick way");
  if (!cacheFiles().has('fast-compact.cjs.v8')) throw new Error("the code cache's run of compact did not load dist/fast/fast-compact.cjs");
}

/**
 * The lean search entry's cache (dist/fast/fast-search.cjs): the bytecode of every function a
 * search of compactRun's home compiled (`1`, written as it exits), so that a search compiles
 * none of its opening (the session, the sources, the indexes opened, the query parsed) and little
 * of its ranking and output lazily. Against the top level's cache alone (`load`, until
 * sstart20): −10..−35 M instructions of a later search's ~620-820 M, page faults level
 * (bench/README.md, sstart20; search14 had found the two level when the opening was smaller).
 * The run keeps V8's default flags (fast-search.ts tuneCompiler leaves them while a cache is
 * written): V8 refuses a cache made under other flags, and every search starts under the defaults.
 */
function searchRun(work) {
  const dir = path.join(work, 'compact');
  const run = runWmem(['search', 'off-by-one in the loop bound', '--json'], { dir, cwd: path.join(dir, 'project'), write: '1' }, 'search');
  if (!JSON.parse(run.stdout).hits?.length) throw new Error("the code cache's run of search found nothing");
  if (!cacheFiles().has('fast-search.cjs.v8')) throw new Error("the code cache's run of search did not load dist/fast/fast-search.cjs");
}

/** A Claude Code-shaped history of `turns` turns (prompt, tool call, its result, answer), ~1.5 KB each. */
function longHistory(turns) {
  const lines = [];
  const id = (prefix, n) => `${prefix}01${String(n).padStart(8, '0')}Cache${(n * 7919).toString(36).padStart(9, 'q')}`;
  for (let t = 0; t < turns; t++) {
    const tool = id('toolu_', t);
    const result = Array.from({ length: 12 }, (_, i) => `line ${t}-${i}: src/module${(t + i) % 97}/file${i}.ts ok`).join('\n');
    lines.push(
      { type: 'user', message: { role: 'user', content: `Turn ${t}: please look at src/module${t % 97} and fix the failing test; keep the public API stable.` } },
      { type: 'assistant', message: { id: id('msg_', t), role: 'assistant', content: [{ type: 'tool_use', id: tool, name: 'Bash', input: { command: `npm test -- src/module${t % 97}` } }] } },
      { type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: tool, content: result }] } },
      { type: 'assistant', message: { id: id('msg_', turns + t), role: 'assistant', content: [{ type: 'text', text: `The test in src/module${t % 97} failed on an off-by-one in a loop bound; fixed, and the suite passes.` }] } },
    );
  }
  return lines.map((line, i) => JSON.stringify({ uuid: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`, timestamp: new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString(), ...line }) + '\n').join('');
}

/** The caches written so far, each as name → identity (a rewrite is a rename: a new inode). */
function cacheFiles() {
  let names = [];
  try {
    names = readdirSync(caches);
  } catch {
    return new Map(); // none yet
  }
  return new Map(names.map((name) => {
    const stat = statSync(path.join(caches, name));
    return [name, `${stat.ino}:${stat.size}:${stat.mtimeMs}`];
  }));
}

/** One agent's session in `work` (a home of its own): the runs that set it up as it usually is, and those that write its stages' caches. */
function agentRuns(work, agent, spec) {
  const dir = path.join(work, agent);
  const at = { sid: `code-cache-${agent}-0000-4000-8000-000000000000`, project: path.join(dir, 'project'), transcript: path.join(dir, 'transcript.jsonl') };
  mkdirSync(at.project, { recursive: true });
  const usage = (i) => ({ type: 'assistant', uuid: `u${i}`, message: { id: `m${i}`, model: 'claude-opus-4', role: 'assistant', content: [{ type: 'text', text: 'working on it' }], usage: { input_tokens: 3, cache_read_input_tokens: 60000 + i, output_tokens: 100 } } });
  writeFileSync(at.transcript, [0, 1, 2].map((i) => JSON.stringify(usage(i)) + '\n').join(''));
  const tool = spec.tool(at);
  // [event, fields, which cache this run writes of its stage (runHook), whether it must answer]: each stage's
  // own run after one that set the session up as it usually is then (rendered, its render cache written).
  const runs = [
    [...spec.start('startup'), undefined, false],
    [spec.prompt[0], { ...spec.prompt[1], prompt: 'first' }, undefined, true],
    [...spec.prompt, undefined, true],
    // A prompt after the overview changed (`wmem set`, as an agent's edit of it): the part read and
    // rendered by context-memory.cjs beside the stage, whose cache is this run's (the prompt
    // stage's is made again below).
    ...(spec.renderCache ? [() => runWmem(['set', 'context', 'The tests pass; the build is green.', '--session', at.sid], { dir, cwd: at.project }, `${agent} set`), [spec.prompt[0], { ...spec.prompt[1], prompt: 'after an overview change' }, '1', true]] : []),
    [...tool, undefined, false],
    [...tool, '1', false],
    // The prompt the user meets most: after a tool call (the hot state changed alone). It runs
    // what a prompt with nothing changed runs, and context-hot's re-render (Claude's: bundled in the stage).
    [spec.prompt[0], { ...spec.prompt[1], prompt: 'after a tool call' }, spec.toolOnly ? undefined : '1', true],
    // The resume after a tool call, as before the prompt's run moved here.
    [...tool, undefined, false],
    [...spec.start('resume'), spec.toolOnly ? undefined : '1', spec.startAnswers !== false],
  ];
  for (const step of runs) {
    if (typeof step === 'function') {
      step();
      continue;
    }
    const [event, fields, write, answers] = step;
    const run = runHook(agent, event, { dir, cwd: at.project, input: JSON.stringify(spec.input(event, fields, at)), write });
    // A hook fails silently by design: a prompt or a resume that printed nothing did not run its stage whole.
    if (answers && !run.stdout.trim()) throw new Error(`the code cache's run of ${agent} ${event} answered nothing`);
  }
  // Last: a compaction changes the overview, which the runs above find as it usually is. Each step
  // first does what the agent does before its hook (Codex writes its rollout). These answer
  // nothing: the hook's own record (logs/hooks-last) says whether it ran to its end, and its note
  // whether it took the path a compaction takes (archived the transcript, kept the summary).
  for (const [event, fields, before] of spec.compaction?.(at) ?? []) {
    before?.();
    runHook(agent, event, { dir, cwd: at.project, input: JSON.stringify(spec.input(event, fields, at)), write: '1' });
    // Named as src/app/hook.ts firedKey names it: the default agent's by the event alone.
    const last = JSON.parse(readFileSync(path.join(dir, 'home', 'logs', 'hooks-last', `${agent === 'claude' ? '' : `${agent}-`}${event}.json`), 'utf8'));
    if (last.ok !== true || !/^(archived|kept) /.test(last.note ?? '')) throw new Error(`the code cache's run of ${agent} ${event} did not archive or keep a summary: ${last.note ?? last.error ?? 'no reason logged'}`);
  }
}

try {
  makeCaches();
} catch (err) {
  // An install must not fail for a speed-up: without the caches every stage loads as before
  // (test/e2e/hook-code-cache.test.ts fails instead, where the build is tested).
  rmSync(caches, { recursive: true, force: true });
  process.stderr.write(`wmem build: no code cache for the hook stages (${err.message}); they compile as before\n`);
}
