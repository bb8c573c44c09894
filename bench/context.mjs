// Times `wmem context` and `wmem --version` against bare `node -e 0`, interleaved (one of each
// per round, so machine noise hits all alike), and prints medians and ratios. The session has a
// filled overview and 100 scratch notes, as the foundation issue asks. Given another build's
// bin/wmem.js, runs its `wmem context` on the same session in the same rounds and prints the ratio
// of this build to it.
//   node bench/context.mjs [rounds] [baseline bin/wmem.js]
import './node-start.mjs';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { emit } from './emit.mjs';
import { cpuNote, cpuUnit, lastCpuMs, spawnTimed } from './cpu.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const bin = path.join(root, 'bin', 'wmem.js');
const rounds = Number(process.argv[2] ?? 40);
const baselineBin = process.argv[3] ? path.resolve(process.argv[3]) : undefined;
const work = mkdtempSync(path.join(os.tmpdir(), 'wmem-bench-'));
const env = { ...process.env, WMEM_HOME: path.join(work, 'home'), NO_COLOR: '1' };
const wmem = (...args) => {
  const r = spawnSync(process.execPath, [bin, ...args], { cwd: work, env, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`wmem ${args.join(' ')} failed: ${r.stderr}`);
  return r.stdout;
};

wmem('init');
const filler = (topic, n) => Array.from({ length: n }, (_, i) => `- ${topic} item ${i}: decided after measuring, see detail/notes-${i}.md`).join('\n');
wmem('set', 'task', 'Ship the compaction path: stream messages.jsonl, archive first, then rewrite; restore must round-trip.');
wmem('set', 'progress', filler('progress', 15));
wmem('set', 'decisions', filler('decision', 12));
wmem('set', 'context', filler('context', 10));
wmem('set', 'open', filler('question', 5));
for (let i = 0; i < 100; i++) wmem('note', `note ${i}: the build uses esbuild and the tests use vitest #context`, '--importance', String((i % 10) / 10));
const cases = {
  'node -e 0': [process.execPath, ['-e', '0']],
  'wmem --version': [process.execPath, [bin, '--version']],
  'wmem context': [process.execPath, [bin, 'context']],
  'wmem context --part memory': [process.execPath, [bin, 'context', '--part', 'memory']],
  ...(baselineBin
    ? {
        'wmem context (baseline)': [process.execPath, [baselineBin, 'context']],
        'wmem context --part memory (baseline)': [process.execPath, [baselineBin, 'context', '--part', 'memory']],
      }
    : {}),
};
// Each build's answers under a key of its own: the answer cache keys on the whole environment,
// and one entry per key (written by the last build to miss) would make both builds miss in turn.
const envOf = (name) => (name.endsWith('(baseline)') ? { ...env, WMEM_BENCH_BUILD: 'baseline' } : env);
wmem('context'); // warm the render cache, as every prompt after the first finds it
if (baselineBin) spawnSync(process.execPath, [baselineBin, 'context'], { cwd: work, env: envOf('(baseline)') }); // the same session, read by the other build
// The answers are kept only for inputs unchanged for 2 s (store/answers-save.ts SETTLE_MS): the
// notes above were just written, so each command answers once more after that, as a prompt would.
spawnSync('sleep', ['2.1']);
for (const [name, [cmd, args]] of Object.entries(cases)) if (name.startsWith('wmem context')) spawnSync(cmd, args, { cwd: work, env: envOf(name) });

const times = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
const cpu = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
for (let r = 0; r < rounds; r++) {
  for (const [name, [cmd, args]] of Object.entries(cases)) {
    const start = process.hrtime.bigint();
    const result = spawnTimed(cmd, args, { cwd: work, env: envOf(name), stdio: ['ignore', 'ignore', 'pipe'] });
    const ms = Number(process.hrtime.bigint() - start) / 1e6;
    if (result.status !== 0) throw new Error(`${name} failed: ${result.stderr}`);
    times[name].push(ms);
    if (lastCpuMs !== undefined) cpu[name].push(lastCpuMs);
  }
}
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const base = median(times['node -e 0']);
const baseCpu = cpu['node -e 0'].length ? median(cpu['node -e 0']) : undefined;
const cpuOf = (name) => (baseCpu && cpu[name].length ? `   cpu ${median(cpu[name]).toFixed(0).padStart(4)} ${cpuUnit} ${(median(cpu[name]) / baseCpu).toFixed(2)}×` : '');
console.log(`rounds: ${rounds}, node ${process.version}, ${os.cpus().length} cores`);
if (baselineBin) console.log(`baseline: ${baselineBin}; "vs baseline" = this build's median / the baseline's, same rounds`);
console.log(`load average ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}; ${cpuNote}`);
for (const [name, xs] of Object.entries(times)) {
  const other = times[`${name} (baseline)`];
  const versus = other ? `   vs baseline ${(median(xs) / median(other)).toFixed(2)}×` : '';
  console.log(`${name.padEnd(38)} median ${median(xs).toFixed(1).padStart(6)} ms   ratio ${(median(xs) / base).toFixed(2)}×${versus}${cpuOf(name)}`);
}
rmSync(work, { recursive: true, force: true });
emit('context', Object.entries(times).filter(([name]) => name !== 'node -e 0' && !name.endsWith('(baseline)')).map(([what, xs]) => ({ what, ms: median(xs), baseline: 'node -e 0', baselineMs: base })));
