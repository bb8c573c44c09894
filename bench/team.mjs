// Team memory at team size: `wmem context` in a repository whose .wmem/memory.md holds N entries
// (default 5,000) beside the same project without a team file, interleaved (one of each per round),
// and `wmem share --check` on that file. Targets: context ≤ 1.2× the project without one;
// --check ≤ 1 s. The second and later prompts read a small cache, not the file (store/team.ts):
// the first render after a pull (the file changed) is timed too.
//   node bench/team.mjs [rounds] [entries]
import './node-start.mjs';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { emit } from './emit.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const bin = path.join(root, 'bin', 'wmem.js');
const rounds = Number(process.argv[2] ?? 30);
const count = Number(process.argv[3] ?? 5000);
const work = mkdtempSync(path.join(os.tmpdir(), 'wmem-bench-team-'));
const env = { ...process.env, WMEM_HOME: path.join(work, 'home'), NO_COLOR: '1' };
const TYPES = ['project', 'decision', 'feedback', 'reference'];

/** A project folder that is a git repository, with a session and a few own entries. */
function project(name) {
  const dir = path.join(work, name);
  mkdirSync(dir, { recursive: true });
  spawnSync('git', ['init', '-q', dir]);
  const wmem = (...args) => {
    const r = spawnSync(process.execPath, [bin, ...args], { cwd: dir, env, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`wmem ${args.join(' ')} failed: ${r.stderr}`);
  };
  wmem('init');
  wmem('set', 'task', 'Ship the release train: cut from main on Tuesday, run the full suite first.');
  for (let i = 0; i < 20; i++) wmem('note', `note ${i}: the build uses esbuild and the tests use vitest`);
  for (let i = 0; i < 5; i++) wmem('remember', '--type', TYPES[i % 4], `Own fact ${i}: the staging cluster number ${i} is reset every night`);
  return dir;
}

const plain = project('plain');
const team = project('team');
const lines = Array.from({ length: count }, (_, n) => {
  const id = `m-${n.toString(16).padStart(8, '0')}`;
  const updated = new Date(Date.UTC(2026, 0, 1) + ((n * 7919) % (300 * 86_400)) * 1000).toISOString();
  return `- [${TYPES[n % 4]}] Team fact ${n}: module kw${n}x needs its cache warmed before the integration tests run <!-- ${id}, 2026-01-01T00:00:00.000Z, ${updated} -->`;
});
const teamFile = path.join(team, '.wmem', 'memory.md');
mkdirSync(path.dirname(teamFile), { recursive: true });
writeFileSync(teamFile, ['# Team memory', '', ...lines].join('\n') + '\n');

const time = (cwd, args) => {
  const start = process.hrtime.bigint();
  const r = spawnSync(process.execPath, args, { cwd, env, stdio: ['ignore', 'ignore', 'pipe'] });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (r.status !== 0) throw new Error(`${args.join(' ')} failed: ${r.stderr}`);
  return ms;
};
// The first prompt after the file changed (a pull): the file is parsed and the block composed.
const first = [];
for (let r = 0; r < Math.max(3, Math.floor(rounds / 5)); r++) {
  const t = new Date(Date.now() + r * 1000);
  utimesSync(teamFile, t, t);
  first.push(time(team, [bin, 'context']));
}
const cases = {
  'node -e 0': [work, ['-e', '0']],
  'wmem context, no team file': [plain, [bin, 'context']],
  [`wmem context, ${count}-entry team file`]: [team, [bin, 'context']],
  [`wmem share --check, ${count} entries`]: [team, [bin, 'share', '--check']],
};
for (const [cwd, args] of Object.values(cases)) spawnSync(process.execPath, args, { cwd, env, stdio: 'ignore' }); // warm the caches
const times = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
for (let r = 0; r < rounds; r++) for (const [name, [cwd, args]] of Object.entries(cases)) times[name].push(time(cwd, args));

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const node = median(times['node -e 0']);
const without = median(times['wmem context, no team file']);
const withTeam = median(times[`wmem context, ${count}-entry team file`]);
const check = median(times[`wmem share --check, ${count} entries`]);
console.log(`rounds: ${rounds}, ${count} team entries, node ${process.version}, ${os.cpus().length} cores`);
for (const [name, xs] of Object.entries(times)) console.log(`${name.padEnd(36)} median ${median(xs).toFixed(1).padStart(7)} ms`);
console.log(`${'first context after the file changed'.padEnd(36)} median ${median(first).toFixed(1).padStart(7)} ms`);
console.log(`context with the team file / without: ${(withTeam / without).toFixed(2)}× (target ≤ 1.2×)`);
console.log(`share --check: ${check.toFixed(0)} ms (target ≤ 1000 ms)`);
rmSync(work, { recursive: true, force: true });
emit('team', [
  { what: `wmem context, ${count}-entry team file`, ms: withTeam, baseline: 'same, no team file', baselineMs: without },
  { what: 'first context after the file changed', ms: median(first), baseline: 'same, no team file', baselineMs: without },
  { what: `wmem share --check, ${count} entries`, ms: check, baseline: 'node -e 0', baselineMs: node },
]);
