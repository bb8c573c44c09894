// What the handoff costs (docs/context.md, "The handoff"), each case timed side by side with the
// same work without a handoff, interleaved round by round so machine noise hits both alike:
// - `wmem context` of a session that has a frozen handoff block vs an identical one without;
// - the prompt hook of those two sessions;
// - SessionStart (startup) of a brand-new session in a project with 30 earlier sessions: the
//   handoff picks and freezes its block there, vs the same start with WMEM_HANDOFF_CHARS=0.
// The new sessions are removed after each round (untimed), so every round sees the same project.
//   node bench/handoff.mjs [rounds] [earlier sessions]
import { spawnSync } from 'node:child_process';
import { appendFileSync, cpSync, mkdirSync, rmSync, utimesSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { emit } from './emit.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const bin = path.join(root, 'bin', 'wmem.js');
const rounds = Number(process.argv[2] ?? 30);
const earlier = Number(process.argv[3] ?? 30);
const work = path.join(root, 'bench', '.work', 'handoff');
rmSync(work, { recursive: true, force: true });
const project = path.join(work, 'project');
const home = path.join(work, 'home');
mkdirSync(project, { recursive: true });
const env = { ...process.env, WMEM_HOME: home, NO_COLOR: '1' };
const projectDir = path.join(home, 'sessions', `--${project.slice(1).replace(/[/\\:]/g, '-')}--`);
const run = (args, input = '', extra = {}) => {
  const r = spawnSync(process.execPath, [bin, ...args], { cwd: project, env: { ...env, ...extra }, input, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`wmem ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return r.stdout;
};
const filler = (topic, n) => Array.from({ length: n }, (_, i) => `- ${topic} item ${i}: decided after measuring, see detail/notes-${i}.md`).join('\n');
const notes = (n) => Array.from({ length: n }, (_, i) => `- [2026-11-23T08:00:00Z] (importance: 0.${i % 10}) note ${i}: the build uses esbuild and the tests use vitest #context`).join('\n') + '\n';

/** A session with a filled overview and 100 notes, dated `hoursAgo` back. */
function filledSession(id, hoursAgo) {
  run(['init', '--session', id], '', { WMEM_HANDOFF_CHARS: '0' });
  run(['set', 'task', `Ship part ${id}: stream messages.jsonl, archive first, then rewrite; restore must round-trip.`, '--session', id]);
  run(['set', 'progress', filler('progress', 15), '--session', id]);
  run(['set', 'decisions', filler('decision', 12), '--session', id]);
  run(['set', 'context', filler('context', 10), '--session', id]);
  const wm = path.join(projectDir, id, 'working-memory');
  appendFileSync(path.join(wm, 'scratch.md'), notes(100));
  const when = new Date(Date.now() - hoursAgo * 3_600_000);
  for (const f of ['overview.md', 'scratch.md']) utimesSync(path.join(wm, f), when, when);
}

for (let i = 0; i < earlier; i++) filledSession(`earlier-${String(i).padStart(3, '0')}`, 48 + i);
// Two sessions alike but for the handoff: `with` freezes one at its start, `without` is a copy without it.
filledSession('with', 1);
cpSync(path.join(projectDir, 'with'), path.join(projectDir, 'without'), { recursive: true, preserveTimestamps: true });
rmSync(path.join(projectDir, 'with'), { recursive: true, force: true });
run(['init', '--session', 'with']);
cpSync(path.join(projectDir, 'without', 'working-memory'), path.join(projectDir, 'with', 'working-memory'), { recursive: true, preserveTimestamps: true });
const memoryWith = run(['context', '--part', 'memory', '--session', 'with']);
const memoryWithout = run(['context', '--part', 'memory', '--session', 'without']);
if (!memoryWith.includes('<previous_session>') || memoryWithout.includes('<previous_session>')) throw new Error('the two sessions are not set up as meant');
run(['context', '--session', 'without']);
run(['context', '--session', 'with']); // both render caches warm, as every prompt after the first finds them

const payload = (id, event, extra = {}) => JSON.stringify({ session_id: id, cwd: project, hook_event_name: event, ...extra });
let fresh = 0;
const startNew = (extra) => () => {
  const id = `fresh-${++fresh}`;
  run(['hook', 'SessionStart'], payload(id, 'SessionStart', { source: 'startup' }), extra);
  return () => rmSync(path.join(projectDir, id), { recursive: true, force: true });
};
const cases = {
  'wmem context, no handoff': () => run(['context', '--session', 'without']),
  'wmem context, handoff': () => run(['context', '--session', 'with']),
  'hook UserPromptSubmit, no handoff': () => run(['hook', 'UserPromptSubmit'], payload('without', 'UserPromptSubmit', { prompt: 'next' })),
  'hook UserPromptSubmit, handoff': () => run(['hook', 'UserPromptSubmit'], payload('with', 'UserPromptSubmit', { prompt: 'next' })),
  'hook SessionStart new, no handoff': startNew({ WMEM_HANDOFF_CHARS: '0' }),
  'hook SessionStart new, handoff': startNew({}),
};
const times = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
for (let r = 0; r < rounds; r++) {
  for (const [name, fn] of Object.entries(cases)) {
    const start = process.hrtime.bigint();
    const after = fn();
    times[name].push(Number(process.hrtime.bigint() - start) / 1e6);
    if (typeof after === 'function') after();
  }
}
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
console.log(`rounds: ${rounds}, ${earlier} earlier sessions, node ${process.version}, ${os.cpus().length} cores`);
const rows = [];
for (const name of Object.keys(cases).filter((n) => n.endsWith(', handoff'))) {
  const base = name.replace(', handoff', ', no handoff');
  const ms = median(times[name]);
  const baseMs = median(times[base]);
  console.log(`${name.padEnd(34)} median ${ms.toFixed(1).padStart(6)} ms   without ${baseMs.toFixed(1).padStart(6)} ms   ratio ${(ms / baseMs).toFixed(3)}×`);
  rows.push({ what: name, ms, baseline: base, baselineMs: baseMs });
}
rmSync(work, { recursive: true, force: true });
emit('handoff', rows);
