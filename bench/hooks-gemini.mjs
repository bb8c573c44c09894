// Each Gemini CLI hook's latency (`wmem hook --agent gemini EVENT`, the JSON Gemini CLI 0.61 sends
// on stdin): the wall time of the hook process, as Gemini waits for it, against bare `node -e 0`,
// interleaved round by round so machine noise hits all alike. The session is a normal one: a
// filled overview, 100 scratch notes, and a real Gemini chat file (test fixture, copied) holding
// one compression, that grows by a few replies with their token figures before each round, as it
// would between prompts. PreCompress fires before every model call: it finds no new compaction.
//   node bench/hooks-gemini.mjs [rounds]
import { spawnSync } from 'node:child_process';
import { appendFileSync, copyFileSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { emit } from './emit.mjs';
import { cpuNote, lastCpuMs, spawnTimed } from './cpu.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const bin = path.join(root, 'bin', 'wmem.js');
const rounds = Number(process.argv[2] ?? 30);
const work = path.join(root, 'bench', '.work', 'hooks-gemini');
rmSync(work, { recursive: true, force: true });
const project = path.join(work, 'project');
const home = path.join(work, 'home');
mkdirSync(project, { recursive: true });
const chat = path.join(work, 'session-chat.jsonl');
copyFileSync(path.join(root, 'test', 'fixtures', 'gemini', 'chat-compressed.jsonl'), chat);
const env = { ...process.env, WMEM_HOME: home, NO_COLOR: '1', GEMINI_PROJECT_DIR: project };
const SID = '61fbed08-d17e-43a6-bd4c-46e22bc37b43';
const payload = (event, extra = {}) => JSON.stringify({ session_id: SID, transcript_path: chat, cwd: project, hook_event_name: event, timestamp: '2026-11-25T08:00:00.000Z', ...extra });
const hook = (event, input) => {
  const r = spawnTimed(process.execPath, [bin, 'hook', '--agent', 'gemini', event], { cwd: project, env: { ...env, GEMINI_SESSION_ID: SID }, input, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`hook ${event} exited ${r.status}: ${r.stderr}`);
  return r.stdout;
};
const wmem = (...args) => {
  const r = spawnSync(process.execPath, [bin, ...args, '--session', SID], { cwd: project, env, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`wmem ${args.join(' ')} failed: ${r.stderr}`);
};

hook('SessionStart', payload('SessionStart', { source: 'startup' }));
hook('BeforeAgent', payload('BeforeAgent', { prompt: 'warm' }));
const filler = (topic, n) => Array.from({ length: n }, (_, i) => `- ${topic} item ${i}: decided after measuring, see detail/notes-${i}.md`).join('\n');
wmem('set', 'task', 'Ship the compaction path: stream messages.jsonl, archive first, then rewrite; restore must round-trip.');
wmem('set', 'progress', filler('progress', 15));
wmem('set', 'decisions', filler('decision', 12));
wmem('set', 'context', filler('context', 10));
const notes = Array.from({ length: 100 }, (_, i) => `- [2026-11-23T08:00:00Z] (importance: 0.${i % 10}) note ${i}: the build uses esbuild and the tests use vitest #context`).join('\n');
appendFileSync(path.join(home, 'sessions', `--${project.slice(1).replace(/[/\\:]/g, '-')}--`, SID, 'working-memory', 'scratch.md'), notes + '\n');

const reply = (i) => JSON.stringify({ id: `reply-${i}`, timestamp: '2026-11-25T08:00:00.000Z', type: 'gemini', content: 'Done.', thoughts: [], tokens: { input: 60000 + i, output: 100, cached: 50000, thoughts: 0, tool: 0, total: 60100 + i }, model: 'gemini-2.5-flash' }) + '\n' + JSON.stringify({ $set: { lastUpdated: '2026-11-25T08:00:00.000Z' } }) + '\n';
const shell = (command, llmContent) => hook('AfterTool', payload('AfterTool', { tool_name: 'run_shell_command', tool_input: { command }, tool_response: { llmContent, returnDisplay: '' } }));

const cases = {
  'node -e 0': () => spawnTimed(process.execPath, ['-e', '0']),
  SessionStart: () => hook('SessionStart', payload('SessionStart', { source: 'resume' })),
  BeforeAgent: () => hook('BeforeAgent', payload('BeforeAgent', { prompt: 'next step' })),
  'AfterTool ok': () => shell('ls', 'Output: a.ts\nProcess Group PGID: 1'),
  'AfterTool failed': () => shell('npm test', 'Output: FAIL src/a.test.ts\nAssertionError: expected 1 to be 2\nExit Code: 1\nProcess Group PGID: 1'),
  PreCompress: () => hook('PreCompress', payload('PreCompress', { trigger: 'auto' })),
  SessionEnd: () => hook('SessionEnd', payload('SessionEnd', { reason: 'exit' })),
};
const times = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
const cpu = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
for (let r = 0; r < rounds; r++) {
  for (let i = 0; i < 3; i++) appendFileSync(chat, reply(r * 3 + i));
  for (const [name, fn] of Object.entries(cases)) {
    const start = process.hrtime.bigint();
    fn(r);
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
const size = readFileSync(chat).length;
console.log(`rounds: ${rounds}, node ${process.version}, ${os.cpus().length} cores; chat file ${Math.round(size / 1024)} KB at the end (one compression)`);
console.log(`load average ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}; ${cpuNote}`);
for (const [name, xs] of Object.entries(times)) {
  console.log(`${name.padEnd(20)} median ${median(xs).toFixed(1).padStart(6)} ms   p90 ${pick(xs, 0.9).toFixed(1).padStart(6)} ms   ratio ${(median(xs) / base).toFixed(2)}×${cpuOf(name)}`);
}
rmSync(work, { recursive: true, force: true });
emit('hooks-gemini', Object.entries(times).filter(([name]) => name !== 'node -e 0').map(([what, xs]) => ({ what: `gemini hook ${what}`, ms: median(xs), baseline: 'node -e 0', baselineMs: base })));
