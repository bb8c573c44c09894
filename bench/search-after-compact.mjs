// The first `wmem search` right after `wmem compact` of a ~60 MB history returned (its finishing
// still running in the background), the same with every file scanned (`WMEM_SEARCH_INDEX=off`,
// the plain scan it must never be slower than), and the searches once the finishing is over,
// beside `grep -rF` over the same working-memory folder and bare `node -e 0`. Among the later
// queries, "turn 4242": a rare term beside one that is on every user prompt.
//
//   node bench/search-after-compact.mjs [rounds=3] [messages=100000] [bin]
// `bin`: another build's bin/wmem.js (a baseline such as main's, run the same way; default this checkout's).
import './node-start.mjs';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { emit } from './emit.mjs';
import { generate } from './history-gen.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const rounds = Number(process.argv[2] ?? 3);
const messages = Number(process.argv[3] ?? 100_000);
const bin = process.argv[4] ? path.resolve(process.argv[4]) : path.join(root, 'bin', 'wmem.js');
const work = path.join(root, 'bench', '.work', 'search-after-compact');
rmSync(work, { recursive: true, force: true });
mkdirSync(path.join(work, 'project'), { recursive: true });
const env = { ...process.env, WMEM_HOME: path.join(work, 'home'), NO_COLOR: '1' };
// Wall time, and CPU time (user + system, read by GNU time): on a machine shared with other work
// the wall time says more about the neighbours than about wmem; the CPU time does not.
const TIME = existsSync('/usr/bin/time') ? '/usr/bin/time' : undefined;
const cpuFile = path.join(work, 'cpu.txt');
const run = (cmd, args, extraEnv = {}) => {
  const [file, argv] = TIME ? [TIME, ['-f', '%U %S', '-o', cpuFile, cmd, ...args]] : [cmd, args];
  const start = process.hrtime.bigint();
  const r = spawnSync(file, argv, { cwd: path.join(work, 'project'), env: { ...env, ...extraEnv }, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (r.status !== 0 && cmd !== 'grep') throw new Error(`${cmd} ${args.join(' ')} failed: ${r.stderr}`);
  const cpuMs = TIME ? readFileSync(cpuFile, 'utf8').trim().split(/\s+/).slice(-2).reduce((n, x) => n + Number(x) * 1000, 0) : NaN;
  return { ms, cpuMs, out: r.stdout };
};
const wmem = (...args) => run(process.execPath, [bin, ...args]);

const source = path.join(work, 'history.jsonl');
generate(source, messages);
wmem('init', '--session', 'bench');
const sessionDir = path.dirname(JSON.parse(wmem('show', 'messages', '--json').out).file);
const QUERY = 'off-by-one in the loop bound';
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const times = { compact: [], first: [], firstScan: [], later: [], otherQueries: [], common: [], scan: [], grep: [], node: [] };
const cpu = { first: [], firstScan: [], later: [], otherQueries: [], common: [], scan: [], grep: [], node: [] };
const timed = (what, r) => {
  times[what].push(r.ms);
  cpu[what]?.push(r.cpuMs);
  return r;
};
// Other questions (rare words, a common word, a question in other words), later searches all.
const OTHER = ['flamingo', 'module output', 'how do we ship a release', 'please look at src/module42 and fix the failing test'];
// A rare term beside one on every user prompt (a quarter of the lines): what the index's postings cost.
const COMMON = 'turn 4242';
const home = env.WMEM_HOME;
// The compaction's finishing runs detached (`wmem compact --finish`): polled for by its command line.
const finishing = () => spawnSync('pgrep', ['-f', `compact --finish --quiet --home ${home} `]).status === 0;
const untilFinished = () => {
  while (finishing()) spawnSync('sleep', ['0.05']);
};
const fresh = () => {
  untilFinished();
  rmSync(path.join(sessionDir, 'working-memory', 'archive'), { recursive: true, force: true });
  rmSync(path.join(sessionDir, 'working-memory', 'detail'), { recursive: true, force: true });
  rmSync(path.join(sessionDir, 'state', 'search'), { recursive: true, force: true });
  copyFileSync(source, path.join(sessionDir, 'messages.jsonl'));
  spawnSync('sync');
};
for (let r = 0; r < rounds; r++) {
  // Right after the compaction returned, its finishing running: through wmem's own choice, then
  // every file scanned (a fresh compaction each, so both find the same state).
  fresh();
  times.compact.push(wmem('compact', '--keep-recent', '5').ms);
  timed('first', wmem('search', QUERY, '--json'));
  fresh();
  wmem('compact', '--keep-recent', '5');
  timed('firstScan', run(process.execPath, [bin, 'search', QUERY, '--json'], { WMEM_SEARCH_INDEX: 'off' }));
  untilFinished();
  for (let i = 0; i < 3; i++) timed('later', wmem('search', QUERY, '--json'));
  for (const q of OTHER) timed('otherQueries', wmem('search', q, '--json'));
  timed('common', wmem('search', COMMON, '--json'));
  // The same search scanning every file (no index), as before the index.
  timed('scan', run(process.execPath, [bin, 'search', QUERY, '--json'], { WMEM_SEARCH_INDEX: 'off' }));
  timed('grep', run('grep', ['-rF', QUERY, path.join(sessionDir, 'working-memory')]));
  timed('node', run(process.execPath, ['-e', '0']));
}
// The indexes a search loads: their size, and the time to read them (decoding is views on the bytes).
const searchDir = path.join(sessionDir, 'state', 'search');
const indexes = readdirSync(searchDir).filter((f) => f.endsWith('.idx'));
const indexBytes = indexes.reduce((n, f) => n + statSync(path.join(searchDir, f)).size, 0);
const indexReadMs = median(Array.from({ length: 5 }, () => {
  const t = process.hrtime.bigint();
  for (const f of indexes) readFileSync(path.join(searchDir, f));
  return Number(process.hrtime.bigint() - t) / 1e6;
}));
const row = (what, ms, baseline, baselineMs) => ({ what, ms, baseline, baselineMs });
const result = {
  messages,
  loadAverage: Math.round(os.loadavg()[0] * 10) / 10,
  historyMb: Math.round(statSync(source).size / 1e5) / 10,
  indexes: { files: indexes.length, mb: Math.round(indexBytes / 1e5) / 10, readMs: Math.round(indexReadMs * 10) / 10 },
  ms: {
    compactReturns: Math.round(median(times.compact)),
    firstSearchAfterCompactReturned: Math.round(median(times.first)),
    firstSearchAfterCompactReturnedScanning: Math.round(median(times.firstScan)),
    laterSearch: Math.round(median(times.later)),
    laterSearchOtherQueries: Math.round(median(times.otherQueries)),
    laterSearchOtherQueriesMax: Math.round(Math.max(...times.otherQueries)),
    laterSearchCommonTerm: Math.round(median(times.common)),
    laterSearchWithoutIndex: Math.round(median(times.scan)),
    grepRF: Math.round(median(times.grep)),
    nodeStartup: Math.round(median(times.node)),
  },
  cpuMs: Object.fromEntries(Object.entries(cpu).map(([k, xs]) => [k, Math.round(median(xs))])),
};
console.log(JSON.stringify({ bin, ...result }, null, 2));
const mb = result.historyMb;
emit('search-after-compact', [
  row(`wmem search right after wmem compact returned, ${mb} MB`, median(times.first), 'node -e 0', median(times.node)),
  row(`wmem search right after wmem compact returned, ${mb} MB`, median(times.first), 'the same, scanning', median(times.firstScan)),
  row('wmem search once the finishing is over', median(times.later), 'grep -rF', median(times.grep)),
  row('wmem search, four other queries', median(times.otherQueries), 'grep -rF', median(times.grep)),
  row(`wmem search "${COMMON}"`, median(times.common), 'grep -rF', median(times.grep)),
]);
