// CPU time (user + system) of a timed child beside its wall time: on a shared machine the wall
// time includes the neighbours' share of the cores, the CPU time does not. Node gives no rusage of
// a child, so where GNU time is installed the command runs under `/usr/bin/time -f` (its report is
// taken off the child's stderr; it adds the same fork and exec to every case, the baseline's too).
// Elsewhere the CPU time is undefined and the benches print n/a.
import { existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';

const TIME = existsSync('/usr/bin/time') ? '/usr/bin/time' : undefined;
const MARK = '__wmem_bench_cpu__';

/** The CPU time of the last spawnTimed child, in ms (undefined without GNU time). */
export let lastCpuMs;

/** spawnSync, also setting lastCpuMs. */
export function spawnTimed(cmd, args, options = {}) {
  lastCpuMs = undefined;
  if (!TIME) return spawnSync(cmd, args, options);
  const r = spawnSync(TIME, ['-f', `${MARK} %U %S`, cmd, ...args], options);
  const text = Buffer.isBuffer(r.stderr) ? r.stderr.toString('latin1') : String(r.stderr ?? '');
  const at = text.lastIndexOf(MARK);
  if (at < 0) return r;
  const [user, sys] = text.slice(at + MARK.length).trim().split(/\s+/).map(Number);
  lastCpuMs = (user + sys) * 1000;
  // Everything before the report (a "Command exited with non-zero status" line included) is the child's.
  const own = text.slice(0, at).replace(/Command (exited with non-zero status \d+|terminated by signal \d+)\n$/, '');
  return { ...r, stderr: Buffer.isBuffer(r.stderr) ? Buffer.from(own, 'latin1') : own };
}

export const cpuNote = TIME ? 'cpu = user + system time of the process (GNU time, 10 ms resolution)' : 'cpu: n/a (no /usr/bin/time)';
