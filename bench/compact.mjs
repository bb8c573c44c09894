// Times `wmem compact` on a generated 100,000-message (~60 MB) history against `cp` of the same
// file, interleaved (one of each per round, so machine noise hits both alike), and reports the
// medians, their ratios, wmem's peak RSS and every run's CPU time (user + system, /usr/bin/time -f
// '%M %U %S': on a shared machine the wall time includes the neighbours' share of the cores). Baselines: `cp`, `cp` + sync,
// `node -e 0` + `cp` (the floor of any command that copies the file), and bench/parse-floor.mjs
// (bare Node reading and JSON.parsing every line of the same file). For
// wmem: the default run (it returns once the archive is safe and finishes the transcript in the
// background; the bench waits for that and reports when it was done) and `--wait` (everything
// before returning). Data lives in bench/.work/.
// With `one-turn`, the history is a single request followed by steps only (the cut then falls
// inside that turn, before the last 20 steps, --keep-steps' default). With `--base=BIN`, another
// build's return (e.g. /work/base/bin/wmem.js) is timed in the same rounds, beside this one.
// WMEM_BENCH_INSTRUCTIONS=1 adds, after the rounds, the instructions of one return of each build
// (valgrind cachegrind: a figure the machine's load does not move).
//   node bench/compact.mjs [rounds] [messages] [one-turn] [--base=BIN]
import './node-start.mjs';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { emit } from './emit.mjs';
import { generate } from './history-gen.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const bin = path.join(root, 'bin', 'wmem.js');
const rounds = Number(process.argv[2] ?? 5);
const messages = Number(process.argv[3] ?? 100_000);
const oneTurn = process.argv[4] === 'one-turn';
const baseBin = process.argv.find((a) => a.startsWith('--base='))?.slice('--base='.length);
const work = path.join(root, 'bench', '.work', 'compact');
rmSync(work, { recursive: true, force: true });
mkdirSync(path.join(work, 'project'), { recursive: true });
const env = { ...process.env, WMEM_HOME: path.join(work, 'home'), NO_COLOR: '1' };
const wmem = (...args) => {
  const r = spawnSync(process.execPath, [bin, ...args], { cwd: path.join(work, 'project'), env, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`wmem ${args.join(' ')} failed: ${r.stderr}`);
  return r.stdout;
};

const source = path.join(work, 'history.jsonl');
generate(source, messages, { oneTurn });
const bytes = statSync(source).size;
wmem('init', '--session', 'bench');
const sessionDir = path.dirname(JSON.parse(wmem('show', 'messages', '--json')).file);
const target = path.join(sessionDir, 'messages.jsonl');
const cpTarget = path.join(work, 'cp-copy.jsonl');

const timed = (cmd, args) => {
  const start = process.hrtime.bigint();
  const r = spawnSync('/usr/bin/time', ['-f', '%M %U %S', cmd, ...args], { cwd: path.join(work, 'project'), env, encoding: 'utf8' });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed: ${r.stderr}`);
  const [rssKb, user, sys] = r.stderr.trim().split('\n').pop().split(' ').map(Number);
  return { ms, rssKb, cpuMs: (user + sys) * 1000 };
};
const reset = () => {
  for (const dir of ['archive', 'detail']) {
    const d = path.join(sessionDir, 'working-memory', dir);
    for (const n of existsSync(d) ? readdirSync(d) : []) rmSync(path.join(d, n), { force: true });
  }
  copyFileSync(source, target);
  rmSync(cpTarget, { force: true });
  spawnSync('sync');
};

const journal = path.join(sessionDir, 'state', 'compaction.json');
// A quick cut returns once the archive is safe; its transcript and overview lines are written
// by a background run. Wait for that (polling for its journal to go), so that it never overlaps
// the next measurement, and report when it was done.
const untilFinished = (started) => {
  while (existsSync(journal)) spawnSync('sleep', ['0.005']);
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  untilGone();
  return ms;
};
// The finishing goes on after its journal is gone (it indexes the new archive for search, ~1 s
// of CPU): the next timed run must not meet it. Without this the base's return, timed right
// after this build's, shared the two cores with this build's indexing, and this build's, timed
// after cp, the parse floor and node -e 0, rarely did: the ratios favoured this build
// (bench/README.md, compact10). Linux: the finishing is found in /proc by its command line.
const finishing = Buffer.from(`compact\0--finish`);
const home = Buffer.from(env.WMEM_HOME);
const untilGone = () => {
  if (!existsSync('/proc/self/cmdline')) return;
  const running = () =>
    readdirSync('/proc').some((pid) => {
      if (!/^\d+$/.test(pid)) return false;
      try {
        const cmd = readFileSync(`/proc/${pid}/cmdline`);
        return cmd.includes(finishing) && cmd.includes(home);
      } catch {
        return false;
      }
    });
  while (running()) spawnSync('sleep', ['0.02']);
};

const results = { wmem: [], ready: [], wait: [], cp: [], cpSync: [], parse: [], node: [], ...(baseBin ? { base: [] } : {}) };
for (let r = 0; r < rounds; r++) {
  reset();
  results.cp.push(timed('cp', [source, cpTarget]));
  rmSync(cpTarget, { force: true });
  spawnSync('sync');
  results.cpSync.push(timed('sh', ['-c', `cp "${source}" "${cpTarget}" && sync "${cpTarget}"`]));
  results.parse.push(timed(process.execPath, [path.join(root, 'bench', 'parse-floor.mjs'), source]));
  // The floor of any command that copies the history: Node's start plus the copy.
  results.node.push(timed(process.execPath, ['-e', '0']));
  const started = process.hrtime.bigint();
  results.wmem.push(timed(process.execPath, [bin, 'compact', '--keep-recent', '5', '--quiet']));
  results.ready.push({ ms: untilFinished(started) });
  if (baseBin) {
    reset();
    results.base.push(timed(process.execPath, [baseBin, 'compact', '--keep-recent', '5', '--quiet']));
    untilFinished(process.hrtime.bigint());
  }
  reset();
  results.wait.push(timed(process.execPath, [bin, 'compact', '--keep-recent', '5', '--quiet', '--wait']));
}
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const med = Object.fromEntries(Object.entries(results).map(([k, v]) => [k, median(v.map((x) => x.ms))]));
const cpu = Object.fromEntries(Object.entries(results).filter(([k]) => k !== 'ready').map(([k, v]) => [k, median(v.map((x) => x.cpuMs))]));
const peak = Math.max(...results.wmem.map((x) => x.rssKb));
const peakWait = Math.max(...results.wait.map((x) => x.rssKb));
const row = (label, ms, extra = '') => console.log(`${label.padEnd(34)} median ${ms.toFixed(0).padStart(6)} ms${extra}`);
const ratios = (ms) => `   ${(ms / med.cp).toFixed(2)}× cp, ${(ms / med.cpSync).toFixed(2)}× cp+fsync, ${(ms / med.parse).toFixed(2)}× the parse floor`;
console.log(`history: ${messages} messages${oneTurn ? ' in one turn' : ''}, ${(bytes / 1e6).toFixed(1)} MB; rounds: ${rounds}; node ${process.version}; ${os.cpus().length} cores`);
row('cp', med.cp);
row('cp + fsync', med.cpSync);
row('node -e 0', med.node);
row('floor: node -e 0 + cp', med.node + med.cp);
row('node: parse lines', med.parse, `   ${(med.parse / med.cp).toFixed(2)}× cp (the floor for any reader of every message)`);
row('wmem compact (returns)', med.wmem, `${ratios(med.wmem)}, ${(med.wmem / (med.node + med.cp)).toFixed(2)}× the floor (node -e 0 + cp)`);
row('  … transcript and overview done', med.ready, ratios(med.ready));
row('wmem compact --wait', med.wait, ratios(med.wait));
// CPU time: what the run itself cost, whatever the neighbours did (GNU time: 10 ms resolution).
const cpuFloor = cpu.node + cpu.cp;
console.log(`cpu (median, user + system): node -e 0 ${cpu.node.toFixed(0)} ms, cp ${cpu.cp.toFixed(0)} ms, floor ${cpuFloor.toFixed(0)} ms; wmem compact (returns) ${cpu.wmem.toFixed(0)} ms, ${(cpu.wmem / cpuFloor).toFixed(2)}× the floor; --wait ${cpu.wait.toFixed(0)} ms`);
// Since compact5 the return reaps its link check's child (sh and grep) once grep is done, so GNU
// time counts grep's CPU in the return's; builds from compactret4 to compact5 left it out (the
// child became the finishing). bench/README.md, compact5.
console.log('(the return\'s CPU includes its link check\'s grep since compact5; a build from compactret4 to compact5 leaves it out: bench/README.md)');
if (baseBin) console.log(`beside ${baseBin} (same rounds): returns median ${med.base.toFixed(0)} ms, ${(med.base / (med.node + med.cp)).toFixed(2)}× the floor; CPU ${cpu.base.toFixed(0)} ms, ${(cpu.base / cpuFloor).toFixed(2)}× (this build: ${(med.wmem / (med.node + med.cp)).toFixed(2)}×, CPU ${(cpu.wmem / cpuFloor).toFixed(2)}×)`);
console.log(`load average ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`);
if (process.env.WMEM_BENCH_INSTRUCTIONS === '1') countInstructions();
console.log(`peak RSS: wmem compact ${(peak / 1024).toFixed(0)} MB, wmem compact --wait ${(peakWait / 1024).toFixed(0)} MB (max of ${rounds} runs)`);
emit(oneTurn ? 'compact-one-turn' : 'compact', [
  { what: 'node: parse every line (bench/parse-floor.mjs)', ms: med.parse, baseline: 'cp', baselineMs: med.cp },
  { what: `wmem compact, ${(bytes / 1e6).toFixed(0)} MB${oneTurn ? ' in one turn' : ''} (returns)`, ms: med.wmem, baseline: 'cp', baselineMs: med.cp },
  { what: 'wmem compact --wait', ms: med.wait, baseline: 'cp', baselineMs: med.cp },
  // The target: the quick cut's return against the least a copying command costs.
  { what: `wmem compact, ${(bytes / 1e6).toFixed(0)} MB${oneTurn ? ' in one turn' : ''} (returns)`, ms: med.wmem, baseline: 'node -e 0 + cp', baselineMs: med.node + med.cp },
  { what: `wmem compact, ${(bytes / 1e6).toFixed(0)} MB${oneTurn ? ' in one turn' : ''} (returns), CPU`, ms: cpu.wmem, baseline: 'node -e 0 + cp, CPU', baselineMs: cpuFloor },
]);
writeFileSync(path.join(work, 'result.json'), JSON.stringify({ messages, bytes, rounds, median: med, peakRssKb: peak, peakWaitRssKb: peakWait, runs: results }, null, 2));

/**
 * WMEM_BENCH_INSTRUCTIONS=1: the instructions (valgrind cachegrind, millions) of `node -e 0` and
 * of one return of each build: the return's own process, and apart from it the link check's
 * child (sh and grep, which run on the other core; the finishing Node it starts is not counted).
 */
function countInstructions() {
  const logs = path.join(work, 'cachegrind');
  const count = (cmd, args) => {
    rmSync(logs, { recursive: true, force: true });
    mkdirSync(logs);
    spawnSync('valgrind', ['--tool=cachegrind', '--cache-sim=no', '--cachegrind-out-file=/dev/null', '--trace-children=yes', `--trace-children-skip=${process.execPath}`, `--log-file=${logs}/%p`, cmd, ...args], { cwd: path.join(work, 'project'), env });
    // One log per process, named by its pid; the command itself is the first started.
    const refs = readdirSync(logs).map((name) => ({ pid: Number(name), m: Number(/I\s+refs:\s+([\d,]+)/.exec(readFileSync(path.join(logs, name), 'latin1'))?.[1]?.replaceAll(',', '') ?? NaN) / 1e6 }));
    const first = Math.min(...refs.map((x) => x.pid));
    // A process that became the finishing (exec of node, not traced) has no count of its own.
    return { own: refs.find((x) => x.pid === first)?.m ?? NaN, children: refs.filter((x) => x.pid !== first && Number.isFinite(x.m)).reduce((a, x) => a + x.m, 0) };
  };
  const node = count(process.execPath, ['-e', '0']).own;
  for (const [label, binPath] of [['this build', bin], ...(baseBin ? [[baseBin, baseBin]] : [])]) {
    reset();
    const c = count(process.execPath, [binPath, 'compact', '--keep-recent', '5', '--quiet']);
    untilFinished(process.hrtime.bigint());
    console.log(`instructions (M, cachegrind): ${label}: the return ${c.own.toFixed(0)} (${(c.own / node).toFixed(2)}× node -e 0's ${node.toFixed(0)}), its link check's child ${c.children.toFixed(0)}`);
  }
}
