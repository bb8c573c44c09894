// The default agent's prompt, tool call and session start first stages (and the prompt and start
// stages of Droid, Qwen Code, Copilot CLI, Kilo Code, Codex CLI and OpenCode) are compiled from the V8 code cache the
// build made of each (dist/code-cache/<stage>.v8, src/entries/build-code-cache.mjs;
// bin/wmem.js loadStage) when it was made from that very file: the cache's first line holds the
// checksums of the stage's bytes and of the cache's data. A cache of other bytes (the stage
// rebuilt or edited) or damaged data is not given to V8 (V8 would deserialize damaged data
// unchecked and die); one V8 refuses (another Node) is compiled past; no cache at all is the
// plain require(). Whichever way, every hook answers the same bytes. Each case runs a copy of the
// package (new file times, as an npm install gives), so that the shared dist/ is never touched.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execa } from 'execa';
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync, readdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { FIXTURES, ROOT } from '../helpers/cli.js';
import { codeCacheHeader as header } from '../helpers/code-cache.js';

const SID = 'code-cache-5d1c9e2a';
const STAGES = ['first-prompt.cjs', 'first-tool.cjs', 'first-start.cjs'];
// The other agents' prompt, start and tool stages (each tool stage's cache holds what its run
// compiled, src/entries/build-code-cache.mjs AGENTS). Gemini CLI's prompt and start, their top level
// alone (which needs no run of theirs); Codex CLI's and OpenCode's prompt and start from their own
// runs, as Droid's.
const OTHER_STAGES = ['droid', 'qwen', 'copilot', 'kilo', 'codex', 'gemini', 'opencode'].flatMap((agent) => [`first-prompt-${agent}.cjs`, `first-start-${agent}.cjs`, `first-tool-${agent}.cjs`]);
// The re-render after a tool call, beside the other agents' prompt and start stages, and the render
// after the overview changed, beside every agent's: loaded, from a stage bin/wmem.js compiled
// through node:vm, through the same checked loader (bin/wmem.js __wmemLoad).
const BESIDE_CACHED = ['context-hot.cjs', 'context-memory.cjs'];
// The compact entry's, made by a compaction's run (test/e2e/compact-code-cache.test.ts).
const COMPACT_CACHED = ['fast-compact.cjs'];
// The compaction hooks' stages (before: first-archive; after, and a session's end: first-end):
// Claude Code's, Codex CLI's, OpenCode's and Kilo Code's from their own runs, every other agent's
// from its top level alone.
const COMPACTION_STAGES = ['', ...['droid', 'qwen', 'copilot', 'kilo', 'codex', 'gemini', 'opencode'].map((agent) => `-${agent}`)].flatMap((agent) => [`first-archive${agent}.cjs`, `first-end${agent}.cjs`]);
// The search entry's, made by a search's run (test/e2e/search-code-cache.test.ts).
const SEARCH_CACHED = ['fast-search.cjs'];
// Records, as the process exits, each script bin/wmem.js compiled through node:vm: whether it was
// given cached data and whether V8 refused it; the builtins loaded; and how often Date#toISOString
// was called (its first call sets up V8's time-zone data: /etc/localtime read, ~11 page faults).
const PROBE = `const vm = require('node:vm'); const seen = []; const Script = vm.Script; let iso = 0; const toISO = Date.prototype.toISOString;
Date.prototype.toISOString = function () { iso++; return toISO.call(this); };
vm.Script = class extends Script { constructor(source, options) { super(source, options); seen.push({ file: require('node:path').basename(options.filename), given: Boolean(options.cachedData), rejected: this.cachedDataRejected === true }); } };
process.on('exit', () => { require('node:fs').writeFileSync(process.env.WMEM_TEST_SCRIPTS, JSON.stringify(seen)); require('node:fs').writeFileSync(process.env.WMEM_TEST_SCRIPTS + '.modules', JSON.stringify({ zlib: process.moduleLoadList.includes('NativeModule zlib'), os: process.moduleLoadList.includes('NativeModule os'), signals: process.moduleLoadList.includes('Internal Binding signal_wrap'), iso })); });`;

let work: string;
beforeAll(() => {
  work = mkdtempSync(path.join(os.tmpdir(), 'wmem-code-cache-test-'));
  writeFileSync(path.join(work, 'probe.cjs'), PROBE);
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A copy of the built package (its files' times kept: the render cache's code signature is the build's while no bundle is newer than its stamp). */
function copyPackage(name: string): string {
  const dir = path.join(work, name);
  for (const part of ['bin', 'dist', 'templates', 'package.json']) cpSync(path.join(ROOT, part), path.join(dir, part), { recursive: true, preserveTimestamps: true });
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'));
  return dir;
}

const cacheOf = (dir: string, stage: string) => path.join(dir, 'dist', 'code-cache', `${stage}.v8`);
const dataOf = (cache: Buffer) => cache.subarray(cache.indexOf(10) + 1);

/** A session's hooks through the package at `dir`: each hook's stdout (paths as `<root>`) and the scripts compiled through node:vm. */
async function session(dir: string, nodeOptions = '', agent?: string) {
  const root = path.join(dir, 'session');
  const [home, project] = [path.join(root, 'home'), path.join(root, 'project')];
  cpSync(path.join(FIXTURES, 'claude-code-log', 'ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl'), path.join(root, 'transcript.jsonl'));
  cpSync(path.join(ROOT, 'package.json'), path.join(project, 'package.json'));
  const scripts = path.join(root, 'scripts.json');
  const run = async (event: string, fields: Record<string, unknown>) => {
    const input = JSON.stringify({ session_id: SID, transcript_path: path.join(root, 'transcript.jsonl'), cwd: project, hook_event_name: event, ...fields });
    const env = { PATH: process.env.PATH ?? '', HOME: home, NO_COLOR: '1', WMEM_HOME: home, WMEM_TEST_SCRIPTS: scripts, NODE_OPTIONS: `--require ${path.join(work, 'probe.cjs')} ${nodeOptions}`.trim() };
    const r = await execa('node', [path.join(dir, 'bin', 'wmem.js'), 'hook', ...(agent ? ['--agent', agent] : []), event], { cwd: project, input, reject: false, extendEnv: false, timeout: 60_000, env });
    expect({ event, exitCode: r.exitCode, stderr: r.stderr }).toEqual({ event, exitCode: 0, stderr: '' });
    return { stdout: String(r.stdout).split(root).join('<root>').split(root.slice(1).replace(/[/\\:]/g, '-')).join('<root>'), scripts: JSON.parse(readFileSync(scripts, 'utf8')) as { file: string; given: boolean; rejected: boolean }[], ...(JSON.parse(readFileSync(`${scripts}.modules`, 'utf8')) as { zlib: boolean; os: boolean; signals: boolean; iso: number }) };
  };
  const tool = { tool_name: 'Bash', tool_input: { command: 'npm test' }, tool_response: { stdout: 'ok' }, tool_use_id: 't' };
  const runs = [];
  runs.push(await run('SessionStart', { source: 'startup' }));
  runs.push(await run('UserPromptSubmit', { prompt: 'first' }));
  runs.push(await run('UserPromptSubmit', { prompt: 'unchanged' }));
  runs.push(await run('PostToolUse', tool));
  runs.push(await run('UserPromptSubmit', { prompt: 'after a tool call' }));
  // The agent edits its overview: the next prompt reads and renders it (context-memory.cjs beside its stage).
  const sessions = path.join(home, 'sessions');
  const overview = path.join(sessions, readdirSync(sessions).find((d) => d.startsWith('--'))!, SID, 'working-memory', 'overview.md');
  writeFileSync(overview, readFileSync(overview, 'utf8') + '\n- the agent added this line\n');
  runs.push(await run('UserPromptSubmit', { prompt: 'after an overview edit' }));
  runs.push(await run('SessionStart', { source: 'resume' }));
  return runs;
}

describe('the first stages compiled from their code cache', () => {
  let plain: Awaited<ReturnType<typeof session>>;
  let plainDroid: Awaited<ReturnType<typeof session>>;
  let plainCodex: Awaited<ReturnType<typeof session>>;
  beforeAll(async () => {
    const dir = copyPackage('plain');
    rmSync(path.join(dir, 'dist', 'code-cache'), { recursive: true });
    plain = await session(dir);
    rmSync(path.join(dir, 'session'), { recursive: true });
    plainDroid = await session(dir, '', 'droid');
    rmSync(path.join(dir, 'session'), { recursive: true });
    plainCodex = await session(dir, '', 'codex');
  }, 180_000);

  /**
   * A Claude session, a Droid one and a Codex one through the package at `dir`, each checked to
   * answer as without the caches; the scripts all three compiled through node:vm. Droid's prompt
   * after its tool call loads context-hot.cjs beside its stage (Claude's stages bundle it): a case
   * that spoils that cache is seen to reach it. Codex's and Droid's tool stages hold the caches of
   * their runs, made by the build's runs of their own tool calls.
   */
  async function bothAgents(dir: string) {
    const claude = await session(dir);
    expect(claude.map((r) => r.stdout)).toEqual(plain.map((r) => r.stdout));
    rmSync(path.join(dir, 'session'), { recursive: true });
    const droid = await session(dir, '', 'droid');
    expect(droid.map((r) => r.stdout)).toEqual(plainDroid.map((r) => r.stdout));
    rmSync(path.join(dir, 'session'), { recursive: true });
    const codex = await session(dir, '', 'codex');
    expect(codex.map((r) => r.stdout)).toEqual(plainCodex.map((r) => r.stdout));
    const scripts = [...claude, ...droid, ...codex].flatMap((r) => r.scripts);
    expect(scripts.map((s) => s.file)).toEqual(expect.arrayContaining(['context-hot.cjs', 'first-start-codex.cjs', 'first-tool-codex.cjs', 'first-tool-droid.cjs']));
    return scripts;
  }

  it('the build made one for each of them, stamped with its stage', () => {
    const all = [...STAGES, ...OTHER_STAGES, ...BESIDE_CACHED, ...COMPACT_CACHED, ...COMPACTION_STAGES, ...SEARCH_CACHED];
    expect(readdirSync(path.join(ROOT, 'dist', 'code-cache')).sort()).toEqual(all.map((s) => `${s}.v8`).sort());
    for (const stage of all) {
      const cache = readFileSync(cacheOf(ROOT, stage));
      expect(cache.toString('latin1', 0, cache.indexOf(10) + 1)).toBe(header(readFileSync(path.join(ROOT, 'dist', 'fast', stage)), dataOf(cache)));
      // The data at an offset V8 takes in place (unaligned, it copies the whole cache first).
      expect((cache.indexOf(10) + 1) % 16).toBe(0);
    }
  });

  it('without the caches, no stage goes through node:vm', () => {
    expect(plain.flatMap((r) => r.scripts)).toEqual([]);
    // Every start and prompt answered (a hook that failed would answer nothing, the same way with the caches or without).
    expect(plain.filter((r) => r.stdout.includes('"additionalContext"')).length).toBe(6);
  });

  it('a cache made from its stage is taken, and every hook answers as without it', async () => {
    const cached = await session(copyPackage('cached'));
    expect(cached.map((r) => r.stdout)).toEqual(plain.map((r) => r.stdout));
    // SessionStart, each prompt, the tool call, the resume: each its stage, from its cache; the new
    // session's first render and the prompt after the overview edit context-memory.cjs beside it, from its own.
    const stages = [['first-start.cjs', 'context-memory.cjs'], ['first-prompt.cjs'], ['first-prompt.cjs'], ['first-tool.cjs'], ['first-prompt.cjs'], ['first-prompt.cjs', 'context-memory.cjs'], ['first-start.cjs']];
    expect(cached.map((r) => r.scripts)).toEqual(stages.map((files) => files.map((file) => ({ file, given: true, rejected: false }))));
    // None loads node:os (~10 page faults a hook): the home is named by $WMEM_HOME, and the stages
    // load node:os on first use alone (build-first-hook.mjs builtinDefaults). Nor without a cache.
    expect([...plain, ...cached].map((r) => r.os)).toEqual([...plain, ...cached].map(() => false));
    // The tool call's lock is brief (hot state's read, change, replace): no signal listener is armed
    // (lock.ts; the heartbeat's timer neither), for any agent: its hook loads no signal_wrap.
    expect([plain[3], cached[3], plainDroid[3], plainCodex[3]].map((r) => r.signals)).toEqual([false, false, false, false]);
    // Nor does a prompt or a tool call set up the time zone: the records of when it fired and of
    // the tool's outcome are written in UTC without toISOString (ui/time.ts isoTime), with the
    // caches or without.
    const stamped = (runs: typeof cached) => runs.filter((_, i) => i >= 1 && i <= 5).map((r) => r.iso);
    expect([...stamped(plain), ...stamped(cached)]).toEqual(Array(10).fill(0));
  }, 120_000);

  it("another agent's prompt, start and tool stages, and context-hot.cjs beside them, are taken from their caches, answering as without them", async () => {
    const cached = await session(copyPackage('droid'), '', 'droid');
    expect(cached.map((r) => r.stdout)).toEqual(plainDroid.map((r) => r.stdout));
    expect(plainDroid.flatMap((r) => r.scripts)).toEqual([]);
    expect(plainDroid.filter((r) => r.stdout.includes('"additionalContext"')).length).toBe(6);
    // The prompt after the tool call re-renders the session state: context-hot.cjs from its cache too.
    const stages = [['first-start-droid.cjs', 'context-memory.cjs'], ['first-prompt-droid.cjs'], ['first-prompt-droid.cjs'], ['first-tool-droid.cjs'], ['first-prompt-droid.cjs', 'context-hot.cjs'], ['first-prompt-droid.cjs', 'context-memory.cjs'], ['first-start-droid.cjs']];
    expect(cached.map((r) => r.scripts)).toEqual(stages.map((files) => files.map((file) => ({ file, given: true, rejected: false }))));
  }, 120_000);

  it("Codex CLI's stages (its prompt, start and tool call cached by its own runs) are taken, answering as without them", async () => {
    const cached = await session(copyPackage('codex'), '', 'codex');
    expect(cached.map((r) => r.stdout)).toEqual(plainCodex.map((r) => r.stdout));
    // The prompt after the tool call re-renders the session state: context-hot.cjs from its cache too.
    const stages = [['first-start-codex.cjs', 'context-memory.cjs'], ['first-prompt-codex.cjs'], ['first-prompt-codex.cjs'], ['first-tool-codex.cjs'], ['first-prompt-codex.cjs', 'context-hot.cjs'], ['first-prompt-codex.cjs', 'context-memory.cjs'], ['first-start-codex.cjs']];
    expect(cached.map((r) => r.scripts)).toEqual(stages.map((files) => files.map((file) => ({ file, given: true, rejected: false }))));
  }, 120_000);

  it("checks a cache with zlib's crc32 without loading node:zlib's module (node:stream and ~25 more), silent under every spelling of --pending-deprecation, --throw-deprecation too", async () => {
    const dir = copyPackage('binding');
    const quiet = await session(dir);
    expect(quiet.map((r) => r.zlib)).toEqual(quiet.map(() => false));
    // process.binding warns there (and throws with --throw-deprecation, on the next tick, past any
    // try): the call is made muted. run() expects exit 0 and an empty stderr from every hook.
    for (const options of ['--pending-deprecation', '--pending_deprecation --throw-deprecation']) {
      rmSync(path.join(dir, 'session'), { recursive: true });
      const pending = await session(dir, options);
      expect(pending.map((r) => r.stdout)).toEqual(plain.map((r) => r.stdout));
      expect(pending.map((r) => r.zlib)).toEqual(pending.map(() => false));
      expect(pending.flatMap((r) => r.scripts).every((s) => s.given && !s.rejected)).toBe(true);
    }
  }, 120_000);

  it('a cache of other bytes (the stage edited or rebuilt since, same length) is not given to V8', async () => {
    const dir = copyPackage('stale');
    for (const stage of [...STAGES, ...OTHER_STAGES, ...BESIDE_CACHED]) {
      const file = path.join(dir, 'dist', 'fast', stage);
      const source = readFileSync(file, 'latin1');
      expect(source).toContain('// src/');
      writeFileSync(file, source.replace('// src/', '// Src/'), 'latin1');
    }
    expect((await bothAgents(dir)).every((s) => !s.given)).toBe(true);
  }, 120_000);

  it('damaged data is never given to V8 (it would die deserializing it)', async () => {
    const dir = copyPackage('damaged');
    for (const stage of [...STAGES, ...OTHER_STAGES, ...BESIDE_CACHED]) {
      const cache = readFileSync(cacheOf(dir, stage));
      // Bytes past V8's own header changed: V8 would take them and fail in the middle.
      for (let at = cache.length - 4000; at < cache.length - 3960; at++) cache[at] ^= 0x5a;
      writeFileSync(cacheOf(dir, stage), cache);
    }
    expect((await bothAgents(dir)).every((s) => !s.given)).toBe(true);
  }, 120_000);

  it('a FIFO planted in place of a cache is no cache (its open would block the hook for ever)', async () => {
    const dir = copyPackage('fifo');
    for (const stage of [...STAGES, ...OTHER_STAGES, ...BESIDE_CACHED]) {
      rmSync(cacheOf(dir, stage));
      execFileSync('mkfifo', [cacheOf(dir, stage)]);
    }
    // Loaded as without a cache (plain require(): nothing through node:vm), answering the same.
    const runs = await session(dir);
    expect(runs.map((r) => r.stdout)).toEqual(plain.map((r) => r.stdout));
    expect(runs.flatMap((r) => r.scripts)).toEqual([]);
  }, 180_000);

  it('a cache V8 refuses (made by another Node, say) is compiled past', async () => {
    const dir = copyPackage('refused');
    for (const stage of [...STAGES, ...OTHER_STAGES, ...BESIDE_CACHED]) {
      const data = Buffer.alloc(dataOf(readFileSync(cacheOf(dir, stage))).length, 7);
      writeFileSync(cacheOf(dir, stage), Buffer.concat([Buffer.from(header(readFileSync(path.join(dir, 'dist', 'fast', stage)), data), 'latin1'), data]));
    }
    expect((await bothAgents(dir)).every((s) => s.given && s.rejected)).toBe(true);
  }, 120_000);

  it("every agent's tool stage is cached from its run, not from its top level alone (a tool call then compiles little of what it runs)", () => {
    // The cache of the top level alone, as topLevelCaches would make it, in a copy: the build's
    // holds the bytecode of the tool call's functions besides (about twice the bytes); one of the
    // top level alone made every function the hook runs compile lazily (~+11-13 M instructions).
    const dir = copyPackage('top-level');
    const tools = { claude: 'PostToolUse', droid: 'PostToolUse', qwen: 'PostToolUse', copilot: 'postToolUse', kilo: 'tool.execute.after', opencode: 'tool.execute.after', codex: 'PostToolUse', gemini: 'AfterTool' };
    const sizes = Object.entries(tools).map(([agent, event]) => {
      const stage = agent === 'claude' ? 'first-tool.cjs' : `first-tool-${agent}.cjs`;
      const home = path.join(dir, `home-${agent}`);
      execFileSync('node', [path.join(dir, 'bin', 'wmem.js'), 'hook', '--agent', agent, event], { cwd: dir, input: '{}', env: { PATH: process.env.PATH ?? '', HOME: home, WMEM_HOME: home, WMEM_CODE_CACHE_WRITE: 'load' } });
      return { stage, built: dataOf(readFileSync(cacheOf(ROOT, stage))).length, topLevel: dataOf(readFileSync(cacheOf(dir, stage))).length };
    });
    expect(sizes.filter((s) => s.built < 1.5 * s.topLevel)).toEqual([]);
  }, 120_000);
});

/**
 * Each agent's compaction as it comes to wmem: its hooks in order, each [event, its fields, what the
 * agent does first]. Claude Code passes its transcript and the summary; Codex CLI its rollout,
 * whose `compacted` line (the summary) it writes between PreCompact and PostCompact (the fixture's
 * lines before it, then the rest); OpenCode the session's messages, its summary among them after.
 */
type Step = [string, Record<string, unknown>, (() => void)?];
const COMPACTIONS: Record<string, (root: string) => { input: (event: string, fields: Record<string, unknown>) => Record<string, unknown>; start: Step; prompt: (text: string) => Step; steps: Step[]; end: Step }> = {
  claude: (root) => ({
    input: (event, fields) => ({ session_id: SID, transcript_path: path.join(root, 'transcript.jsonl'), hook_event_name: event, ...fields }),
    start: ['SessionStart', { source: 'startup' }, () => cpSync(path.join(FIXTURES, 'claude-code-log', 'ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl'), path.join(root, 'transcript.jsonl'))],
    prompt: (prompt) => ['UserPromptSubmit', { prompt }],
    steps: [
      ['PreCompact', { trigger: 'auto', custom_instructions: '' }],
      ['PostCompact', { trigger: 'auto', compact_summary: 'Summary: the user is shipping the compaction path. '.repeat(20) }],
      ['SessionStart', { source: 'compact' }],
    ],
    end: ['SessionEnd', { reason: 'other' }],
  }),
  codex: (root) => {
    const rollout = path.join(root, 'rollout.jsonl');
    const lines = readFileSync(path.join(FIXTURES, '..', 'codex', 'rollout-auto-compacted.jsonl'), 'utf8').split(/(?<=\n)/);
    const at = lines.findIndex((line) => line.includes('"type":"compacted"'));
    return {
      input: (event, fields) => ({ session_id: SID, transcript_path: rollout, hook_event_name: event, model: 'gpt-5.1', permission_mode: 'bypassPermissions', ...fields }),
      start: ['SessionStart', { source: 'startup' }, () => writeFileSync(rollout, lines.slice(0, at).join(''))],
      prompt: (prompt) => ['UserPromptSubmit', { turn_id: 't', prompt }],
      steps: [
        ['PreCompact', { turn_id: 't', trigger: 'auto' }],
        ['PostCompact', { turn_id: 't', trigger: 'auto' }, () => writeFileSync(rollout, lines.join(''))],
      ],
      end: ['SessionEnd', { reason: 'other' }],
    };
  },
  opencode: () => {
    const message = (i: number, role: string, text: string, extra = {}) => ({ info: { id: `msg_${String(i).padStart(6, '0')}`, sessionID: SID, role, time: { created: i }, ...extra }, parts: [{ type: 'text', text }] });
    const tokens = { total: 60000, input: 9000, output: 100, reasoning: 0, cache: { read: 50900, write: 0 } };
    const messages = Array.from({ length: 20 }, (_, i) => (i % 2 ? message(i, 'assistant', `done with step ${i}`, { modelID: 'claude-sonnet-4-5', providerID: 'anthropic', tokens }) : message(i, 'user', `step ${i}: go on with the parser`)));
    const summary = message(20, 'assistant', 'Summary: the user is shipping the compaction path. '.repeat(20), { summary: true, modelID: 'claude-sonnet-4-5', providerID: 'anthropic', tokens: { ...tokens, total: 0, output: 1800 } });
    const infos = (list: typeof messages) => list.map((m) => ({ info: m.info }));
    return {
      input: (event, fields) => ({ event, sessionID: SID, model: { providerID: 'anthropic', modelID: 'claude-sonnet-4-5', limit: { context: 200000, output: 64000 } }, ...fields }),
      start: ['system.transform', {}],
      prompt: () => ['chat.message', { messages: infos(messages) }],
      steps: [
        ['session.compacting', { messages }],
        ['session.compacted', { messages: [...messages, summary] }],
        ['system.transform', {}],
      ],
      end: ['session.idle', { messages: infos([...messages, summary]) }],
    };
  },
};

/**
 * A session of `agent` through its compaction and end, through the package at `dir`: each
 * hook's stdout, the scripts compiled through node:vm, and the memory it left (the working-memory
 * folder's files, their text with times and the session's root as placeholders). The overview
 * holds a long section, cut to the memory part's budget as the hooks render it. Each package's
 * folder name has the same length: the paths are in the memory part, whose cut they move.
 */
async function compactionSession(dir: string, agent = 'claude') {
  const root = path.join(dir, 'compaction');
  const [home, project] = [path.join(root, 'home'), path.join(root, 'project')];
  cpSync(path.join(ROOT, 'package.json'), path.join(project, 'package.json'));
  const scripts = path.join(root, 'scripts.json');
  const env = { PATH: process.env.PATH ?? '', HOME: home, NO_COLOR: '1', WMEM_HOME: home, WMEM_TEST_SCRIPTS: scripts, NODE_OPTIONS: `--require ${path.join(work, 'probe.cjs')}` };
  const placeholders = (text: string) => text.split(root).join('<root>').split(root.slice(1).replace(/[/\\:]/g, '-')).join('<root>').replace(/\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?Z/g, '<time>').replace(/\d{8}T\d{6,9}Z?/g, '<stamp>');
  const compaction = COMPACTIONS[agent](root);
  const run = async ([event, fields, before]: Step) => {
    before?.();
    const input = JSON.stringify({ ...compaction.input(event, fields), ...(agent === 'opencode' ? { directory: project } : { cwd: project }) });
    const r = await execa('node', [path.join(dir, 'bin', 'wmem.js'), 'hook', '--agent', agent, event], { cwd: project, input, reject: false, extendEnv: false, timeout: 60_000, env });
    expect({ event, exitCode: r.exitCode, stderr: r.stderr }).toEqual({ event, exitCode: 0, stderr: '' });
    return { stdout: placeholders(String(r.stdout)), scripts: (JSON.parse(readFileSync(scripts, 'utf8')) as { file: string; given: boolean; rejected: boolean }[]).map((s) => s.file + (s.given ? '' : ' (no cache)') + (s.rejected ? ' (refused)' : '')) };
  };
  const runs = [await run(compaction.start)];
  const memory = path.join(home, 'sessions', `--${project.slice(1).replace(/[/\\:]/g, '-')}--`, SID, 'working-memory');
  const overview = path.join(memory, 'overview.md');
  const facts = Array.from({ length: 1200 }, (_, i) => `- fact ${i}: the build step ${i % 37} writes dist/part-${i}.js before the tests run`).join('\n');
  writeFileSync(overview, readFileSync(overview, 'utf8').replace('## Known Context\n', `## Known Context\n${facts}\n`));
  runs.push(await run(compaction.prompt('first')));
  for (const step of compaction.steps) runs.push(await run(step));
  runs.push(await run(compaction.prompt('after the compaction')));
  runs.push(await run(compaction.end));
  const files = (readdirSync(memory, { recursive: true }) as string[]).sort();
  const texts = files.filter((f) => /\.(md|jsonl)$/.test(f)).map((f) => [placeholders(f), placeholders(readFileSync(path.join(memory, f), 'utf8'))]);
  return { stdout: runs.map((r) => r.stdout), scripts: runs.map((r) => r.scripts), files: files.map(placeholders), texts };
}

describe("the compaction hooks' stages compiled from their code cache", () => {
  let plain: Awaited<ReturnType<typeof compactionSession>>;
  beforeAll(async () => {
    const dir = copyPackage('cmp-plain');
    rmSync(path.join(dir, 'dist', 'code-cache'), { recursive: true });
    plain = await compactionSession(dir);
  }, 180_000);

  it('before and after a compaction, and at the end, each stage is taken from its cache, answering and archiving as without it', async () => {
    expect(plain.scripts.flat()).toEqual([]);
    expect(plain.stdout.filter((out) => out.includes('"additionalContext"')).length).toBeGreaterThanOrEqual(3);
    const cached = await compactionSession(copyPackage('cmp-cache'));
    expect(cached.stdout).toEqual(plain.stdout);
    expect(cached.files).toEqual(plain.files);
    expect(cached.texts).toEqual(plain.texts);
    // Each hook through its stage, from that stage's cache (SessionEnd's is first-end's, made by
    // PostCompact's run); a render of changed files with context-memory.cjs, from its own.
    const render = 'context-memory.cjs';
    expect(cached.scripts).toEqual([['first-start.cjs', render], ['first-prompt.cjs', render], ['first-archive.cjs'], ['first-end.cjs'], ['first-start.cjs', render], ['first-prompt.cjs', render], ['first-end.cjs']]);
  }, 180_000);

  // Codex CLI's and OpenCode's compaction stages are cached from their own runs, on their own input
  // (src/entries/build-code-cache.mjs AGENTS), as Claude Code's: each cache holds the bytecode of
  // what archived the transcript (its note's words) and kept the summary (Recent Actions' line;
  // Codex's from its rollout's `compacted` line), not its stage's top level alone.
  it.each([
    ['codex', 'use the information in this summary'],
    ['opencode', ' compacted the conversation ('],
  ])("%s's compaction: each stage from a cache its own run made, answering and archiving as without it", async (agent, own) => {
    const held = (stage: string, text: string) => dataOf(readFileSync(cacheOf(ROOT, stage))).includes(text);
    expect([held(`first-archive-${agent}.cjs`, ' lines to '), held(`first-end-${agent}.cjs`, ' compacted the conversation ('), held(`first-end-${agent}.cjs`, own)]).toEqual([true, true, true]);
    const dir = copyPackage(`cmp-${agent}`);
    rmSync(path.join(dir, 'dist', 'code-cache'), { recursive: true });
    const without = await compactionSession(dir, agent);
    expect(without.scripts.flat()).toEqual([]);
    // The summary kept, and the transcript archived before it, as Recent Actions says.
    expect(without.files.filter((f) => /compact-summary\.md$|^archive[/\\]transcript-/.test(f)).length).toBe(2);
    rmSync(path.join(dir, 'compaction'), { recursive: true });
    cpSync(path.join(ROOT, 'dist', 'code-cache'), path.join(dir, 'dist', 'code-cache'), { recursive: true });
    const cached = await compactionSession(dir, agent);
    expect(cached.stdout).toEqual(without.stdout);
    expect(cached.files).toEqual(without.files);
    expect(cached.texts).toEqual(without.texts);
    const stage = (kind: string) => [`first-${kind}-${agent}.cjs`];
    // A start or prompt that renders changed memory takes context-memory.cjs beside its stage, from its cache too.
    const render = (kind: string) => [...stage(kind), 'context-memory.cjs'];
    expect(cached.scripts.map((files) => files.filter((f) => f !== 'context-hot.cjs'))).toEqual([render('start'), render('prompt'), stage('archive'), stage('end'), ...(agent === 'opencode' ? [render('start')] : []), render('prompt'), stage('end')]);
  }, 180_000);

  it('damaged data in those caches is never given to V8, and the hooks answer the same', async () => {
    const dir = copyPackage('cmp-broke');
    for (const stage of ['first-archive.cjs', 'first-end.cjs']) {
      const cache = readFileSync(cacheOf(dir, stage));
      for (let at = cache.length - 4000; at < cache.length - 3960; at++) cache[at] ^= 0x5a;
      writeFileSync(cacheOf(dir, stage), cache);
    }
    const damaged = await compactionSession(dir);
    expect(damaged.stdout).toEqual(plain.stdout);
    expect(damaged.texts).toEqual(plain.texts);
    expect(damaged.scripts[2]).toEqual(['first-archive.cjs (no cache)']);
    expect(damaged.scripts[3]).toEqual(['first-end.cjs (no cache)']);
  }, 180_000);
});
