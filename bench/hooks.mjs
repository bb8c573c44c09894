// Each Claude Code hook's latency (`wmem hook EVENT`, the JSON Claude Code sends on stdin)
// against bare `node -e 0`, interleaved round by round so machine noise hits all alike. The
// session is a normal one: a filled overview, 100 scratch notes, and a real 285 KB transcript
// (test fixture, copied) that grows by a few lines before each round, as it would between
// prompts. Prints medians, p90 and the ratio to node; given another build's bin/wmem.js, runs it
// too, interleaved, and prints the ratio of this build to it.
//   node bench/hooks.mjs [rounds] [baseline bin/wmem.js]
import { spawnSync } from 'node:child_process';
import { appendFileSync, copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { emit } from './emit.mjs';
import { cpuNote, lastCpuMs, spawnTimed } from './cpu.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const rounds = Number(process.argv[2] ?? 30);
// A second wmem (another build's bin/wmem.js) runs the same cases in the same rounds, in a home
// of its own: its figures print beside this one's, with the ratio between the two.
const baselineBin = process.argv[3] ? path.resolve(process.argv[3]) : undefined;
const work = path.join(root, 'bench', '.work', 'hooks');
rmSync(work, { recursive: true, force: true });
const SID = 'bench-4f1d2c3b-aaaa-4bbb-8ccc-0123456789ab';
const filler = (topic, n) => Array.from({ length: n }, (_, i) => `- ${topic} item ${i}: decided after measuring, see detail/notes-${i}.md`).join('\n');
const line = (i) =>
  JSON.stringify({ type: 'assistant', isSidechain: false, uuid: `bench-${i}`, message: { id: `msg_bench_${i}`, model: 'claude-opus-4', role: 'assistant', content: [{ type: 'text', text: 'working on it '.repeat(40) }], usage: { input_tokens: 3, cache_read_input_tokens: 60000 + i, output_tokens: 100 } } }) + '\n';

/** A normal session served by the wmem at `bin`, and its hook cases. */
function world(bin, tag) {
  const dir = path.join(work, tag);
  const project = path.join(dir, 'project');
  const home = path.join(dir, 'home');
  mkdirSync(project, { recursive: true });
  const transcript = path.join(dir, 'transcript.jsonl');
  copyFileSync(path.join(root, 'test', 'fixtures', 'transcripts', 'claude-code-log', 'ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl'), transcript);
  const env = { ...process.env, WMEM_HOME: home, NO_COLOR: '1' };
  const payload = (event, extra = {}) => JSON.stringify({ session_id: SID, transcript_path: transcript, cwd: project, permission_mode: 'default', hook_event_name: event, ...extra });
  const hook = (event, input) => {
    const r = spawnTimed(process.execPath, [bin, 'hook', event], { cwd: project, env, input, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`hook ${event} exited ${r.status}: ${r.stderr}`);
    return r.stdout;
  };
  const wmem = (...args) => {
    const r = spawnSync(process.execPath, [bin, ...args, '--session', SID], { cwd: project, env, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`wmem ${args.join(' ')} failed: ${r.stderr}`);
  };
  hook('SessionStart', payload('SessionStart', { source: 'startup' }));
  wmem('set', 'task', 'Ship the compaction path: stream messages.jsonl, archive first, then rewrite; restore must round-trip.');
  wmem('set', 'progress', filler('progress', 15));
  wmem('set', 'decisions', filler('decision', 12));
  wmem('set', 'context', filler('context', 10));
  const notes = Array.from({ length: 100 }, (_, i) => `- [2026-11-23T08:00:00Z] (importance: 0.${i % 10}) note ${i}: the build uses esbuild and the tests use vitest #context`).join('\n');
  const sessionDir = path.join(home, 'sessions', `--${project.slice(1).replace(/[/\\:]/g, '-')}--`, SID, 'working-memory');
  appendFileSync(path.join(sessionDir, 'scratch.md'), notes + '\n');
  hook('UserPromptSubmit', payload('UserPromptSubmit', { prompt: 'warm' }));
  const overview = path.join(sessionDir, 'overview.md');
  const editOverview = (r) => {
    const text = readFileSync(overview, 'utf8');
    writeFileSync(overview, text.replace('## Open Questions\n', `## Open Questions\n- question ${r}: does the edit survive?\n`));
  };
  const grow = (r) => {
    for (let i = 0; i < 5; i++) appendFileSync(transcript, line(r * 5 + i));
  };
  const cases = {
    SessionStart: () => hook('SessionStart', payload('SessionStart', { source: 'resume' })),
    UserPromptSubmit: () => hook('UserPromptSubmit', payload('UserPromptSubmit', { prompt: 'next step' })),
    PostToolUse: () => hook('PostToolUse', payload('PostToolUse', { tool_name: 'Edit', tool_input: { file_path: path.join(project, 'src/a.ts'), old_string: 'a', new_string: 'b' }, tool_response: { success: true }, tool_use_id: 't' })),
    PostToolUseFailure: () => hook('PostToolUseFailure', payload('PostToolUseFailure', { tool_name: 'Bash', tool_input: { command: 'npm test' }, tool_use_id: 't', error: 'Exit code 1\nFAIL src/a.test.ts', is_interrupt: false })),
    SessionEnd: () => hook('SessionEnd', payload('SessionEnd', { reason: 'other' })),
    PreCompact: () => hook('PreCompact', payload('PreCompact', { trigger: 'auto', custom_instructions: '' })),
    PostCompact: () => hook('PostCompact', payload('PostCompact', { trigger: 'auto', compact_summary: 'Summary: the user is shipping the compaction path. '.repeat(20) })),
    // PreCompact and PostCompact each add a line to overview.md: this prompt is the first to render it.
    'UserPromptSubmit*': () => hook('UserPromptSubmit', payload('UserPromptSubmit', { prompt: 'after an overview change' })),
    // The agent edits overview.md with its Edit tool (untimed), then PostToolUse fires for that edit.
    'PostToolUse overview': [
      editOverview,
      () => hook('PostToolUse', payload('PostToolUse', { tool_name: 'Edit', tool_input: { file_path: overview, old_string: 'x', new_string: 'y' }, tool_response: { success: true }, tool_use_id: 'o' })),
    ],
    'UserPromptSubmit**': () => hook('UserPromptSubmit', payload('UserPromptSubmit', { prompt: 'after the agent edited its overview' })),
  };
  return { grow, cases };
}

const worlds = [{ tag: 'this', ...world(path.join(root, 'bin', 'wmem.js'), 'this') }, ...(baselineBin ? [{ tag: 'baseline', ...world(baselineBin, 'baseline') }] : [])];
const cases = { 'node -e 0': () => spawnTimed(process.execPath, ['-e', '0']) };
for (const name of Object.keys(worlds[0].cases)) for (const w of worlds) cases[w.tag === 'this' ? name : `${name} (baseline)`] = w.cases[name];
const times = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
const cpu = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
for (let r = 0; r < rounds; r++) {
  for (const w of worlds) w.grow(r);
  for (const [name, c] of Object.entries(cases)) {
    const [pre, fn] = Array.isArray(c) ? c : [undefined, c];
    pre?.(r);
    const start = process.hrtime.bigint();
    fn();
    times[name].push(Number(process.hrtime.bigint() - start) / 1e6);
    if (lastCpuMs !== undefined) cpu[name].push(lastCpuMs);
  }
}
const pick = (xs, q) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))];
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const base = median(times['node -e 0']);
const baseCpu = cpu['node -e 0'].length ? median(cpu['node -e 0']) : undefined;
const cpuOf = (name) => (baseCpu && cpu[name].length ? `   cpu ${median(cpu[name]).toFixed(0).padStart(4)} ms ${(median(cpu[name]) / baseCpu).toFixed(2)}×` : '');
console.log('UserPromptSubmit* = the first prompt after PostCompact changed overview.md; ** = the prompt after the agent edited overview.md (its PostToolUse re-rendered it).');
console.log(`rounds: ${rounds}, node ${process.version}, ${os.cpus().length} cores; transcript ${Math.round(285514 / 1024)} KB + 5 lines per round`);
if (baselineBin) console.log(`baseline: ${baselineBin}; "vs baseline" = this build's median / the baseline's, same rounds`);
console.log(`load average ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}; ${cpuNote}`);
for (const [name, xs] of Object.entries(times)) {
  const other = times[`${name} (baseline)`];
  const versus = other ? `   vs baseline ${(median(xs) / median(other)).toFixed(2)}×` : '';
  console.log(`${name.padEnd(31)} median ${median(xs).toFixed(1).padStart(6)} ms   p90 ${pick(xs, 0.9).toFixed(1).padStart(6)} ms   ratio ${(median(xs) / base).toFixed(2)}×${versus}${cpuOf(name)}`);
}
rmSync(work, { recursive: true, force: true });
emit('hooks', Object.entries(times).filter(([name]) => name !== 'node -e 0' && !name.endsWith('(baseline)')).map(([what, xs]) => ({ what: `hook ${what}`, ms: median(xs), baseline: 'node -e 0', baselineMs: base })));
