// CPU time (user + system) of a timed child beside its wall time: on a shared machine the wall
// time includes the neighbours' share of the cores, the CPU time does not. Node gives no rusage of
// a child, so where GNU time is installed the command runs under `/usr/bin/time -f` (its report is
// taken off the child's stderr; it adds the same fork and exec to every case, the baseline's too).
// Elsewhere the CPU time is undefined and the benches print n/a.
// WMEM_BENCH_INSTRUCTIONS=1 (where valgrind is installed) counts instead the instructions each
// process executes in user space (cachegrind, no cache simulation): a figure the machine's load
// does not move (±1-2 % from Node's random hash seeds), for a busy machine where no time is the
// quiet one. The column then reads millions of instructions; each run takes ~30x longer.
// WMEM_BENCH_FAULTS=1 (with GNU time) reads instead the minor page faults of each process: on a
// machine where a fault costs ~20 us of CPU (a sandboxed kernel), they are most of what a hook adds
// to Node's own start (bench/README.md, faults8), and the load does not move them either.
import { existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';

const TIME = existsSync('/usr/bin/time') ? '/usr/bin/time' : undefined;
const VALGRIND = ['/usr/bin/valgrind', '/usr/local/bin/valgrind'].find((p) => existsSync(p));
const COUNT = process.env.WMEM_BENCH_INSTRUCTIONS === '1' && VALGRIND !== undefined;
if (process.env.WMEM_BENCH_INSTRUCTIONS === '1' && !COUNT) console.error('WMEM_BENCH_INSTRUCTIONS=1: no valgrind found; timing CPU instead');
const FAULTS = process.env.WMEM_BENCH_FAULTS === '1' && TIME !== undefined && !COUNT;
if (process.env.WMEM_BENCH_FAULTS === '1' && !FAULTS) console.error('WMEM_BENCH_FAULTS=1: no GNU time (or instructions asked for); timing CPU instead');
const MARK = '__wmem_bench_cpu__';

/** The CPU time of the last spawnTimed child, in ms (undefined without GNU time). */
export let lastCpuMs;

/** spawnSync, also setting lastCpuMs. */
export function spawnTimed(cmd, args, options = {}) {
  lastCpuMs = undefined;
  if (COUNT) return spawnCounted(cmd, args, options);
  if (!TIME) return spawnSync(cmd, args, options);
  const r = spawnSync(TIME, ['-f', `${MARK} %U %S %R`, cmd, ...args], options);
  const text = Buffer.isBuffer(r.stderr) ? r.stderr.toString('latin1') : String(r.stderr ?? '');
  const at = text.lastIndexOf(MARK);
  if (at < 0) return r;
  const [user, sys, faults] = text.slice(at + MARK.length).trim().split(/\s+/).map(Number);
  lastCpuMs = FAULTS ? faults : (user + sys) * 1000;
  // Everything before the report (a "Command exited with non-zero status" line included) is the child's.
  const own = text.slice(0, at).replace(/Command (exited with non-zero status \d+|terminated by signal \d+)\n$/, '');
  return { ...r, stderr: Buffer.isBuffer(r.stderr) ? Buffer.from(own, 'latin1') : own };
}

/** spawnSync under cachegrind, setting lastCpuMs to the millions of instructions executed. */
function spawnCounted(cmd, args, options) {
  const r = spawnSync(VALGRIND, ['--tool=cachegrind', '--cache-sim=no', '--cachegrind-out-file=/dev/null', cmd, ...args], options);
  const text = Buffer.isBuffer(r.stderr) ? r.stderr.toString('latin1') : String(r.stderr ?? '');
  const refs = /==\d+== I\s+refs:\s+([\d,]+)/.exec(text);
  if (refs) lastCpuMs = Number(refs[1].replaceAll(',', '')) / 1e6;
  const own = text.split('\n').filter((line) => !/^==\d+==/.test(line)).join('\n');
  return { ...r, stderr: Buffer.isBuffer(r.stderr) ? Buffer.from(own, 'latin1') : own };
}

/** The unit of the cpu column. */
export const cpuUnit = COUNT ? 'M instr' : FAULTS ? 'faults' : 'ms';

export const cpuNote = COUNT ? 'cpu = millions of instructions the process executes in user space (valgrind cachegrind; WMEM_BENCH_INSTRUCTIONS=1)' : FAULTS ? 'cpu = minor page faults of the process (GNU time %R; WMEM_BENCH_FAULTS=1)' : TIME ? 'cpu = user + system time of the process (GNU time, 10 ms resolution)' : 'cpu: n/a (no /usr/bin/time)';
