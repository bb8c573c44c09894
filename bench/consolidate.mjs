// `wmem consolidate` (deterministic) folding 1,000 scratch notes into overview.md, beside bare
// `node -e 0`. Each round starts from the same session: the notes in scratch.md, the template
// overview, empty detail/ and archive/ (restored untimed).
//
//   node bench/consolidate.mjs [rounds=7] [notes=1000]
import './node-start.mjs';
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { emit } from './emit.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BIN = path.join(ROOT, 'bin', 'wmem.js');
const WORK = path.join(ROOT, 'bench', '.work', 'consolidate');
const rounds = Number(process.argv[2] ?? 7);
const count = Number(process.argv[3] ?? 1000);

let seed = 7;
const rand = () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const pick = (list) => list[Math.floor(rand() * list.length)];
const SUBJECTS = ['the build', 'the API server', 'the cache layer', 'the test suite', 'the deploy script', 'the auth flow', 'the CSV export', 'the websocket client', 'the migration runner', 'the PDF renderer'];
const FACTS = ['needs Node 20', 'reads its config from .env.local', 'fails when the clock crosses midnight UTC', 'is slow on accounts with 50k rows', 'retries three times with backoff', 'must run after the docker stack is up', 'logs to /var/log/app', 'was moved to the worker process', 'breaks if the lockfile changes', 'uses esbuild with the node20 target'];
const TAGS = [[], [], [], ['progress'], ['open'], ['recent'], ['decisions']];

rmSync(WORK, { recursive: true, force: true });
const home = path.join(WORK, 'home');
const project = path.join(WORK, 'project');
mkdirSync(project, { recursive: true });
const env = { ...process.env, WMEM_HOME: home, NO_COLOR: '1' };
const session = JSON.parse(execFileSync('node', [BIN, 'init', '--session', 'bench', '--json'], { cwd: project, env, encoding: 'utf8' })).path;
const wm = path.join(session, 'working-memory');
const lines = [];
for (let i = 0; i < count; i++) {
  const time = new Date(Date.UTC(2026, 2, 1) + i * 60_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
  const importance = Math.round(rand() * 10) / 10;
  const tags = pick(TAGS).map((t) => ` #${t}`).join('');
  lines.push(`- [${time}] (importance: ${importance}) Note ${i}: ${pick(SUBJECTS)} ${pick(FACTS)} (${Math.floor(rand() * 1e6)})${tags}`);
}
const scratch = readFileSync(path.join(wm, 'scratch.md'), 'utf8') + lines.join('\n') + '\n';
const overview = readFileSync(path.join(wm, 'overview.md'), 'utf8');
const meta = readFileSync(path.join(session, 'meta.json'), 'utf8');
const reset = () => {
  rmSync(path.join(wm, 'detail'), { recursive: true, force: true });
  rmSync(path.join(wm, 'archive'), { recursive: true, force: true });
  mkdirSync(path.join(wm, 'detail'));
  mkdirSync(path.join(wm, 'archive'));
  writeFileSync(path.join(wm, 'scratch.md'), scratch);
  writeFileSync(path.join(wm, 'overview.md'), overview);
  writeFileSync(path.join(session, 'meta.json'), meta);
};
const time = (fn) => {
  const t = process.hrtime.bigint();
  const r = fn();
  return [Number(process.hrtime.bigint() - t) / 1e6, r];
};
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const runs = { wmem: [], node: [], rssKb: [] };
const TIME = existsSync('/usr/bin/time') ? '/usr/bin/time' : undefined;
let last;
for (let r = 0; r < rounds; r++) {
  reset();
  const command = ['node', ...(process.env.BENCH_NODE_FLAGS ? process.env.BENCH_NODE_FLAGS.split(' ') : []), BIN, 'consolidate', '--json'];
  // GNU time reports the peak resident memory of wmem itself (where it is installed).
  const measured = TIME ? [TIME, '-f', 'wmem-peak-rss-kb %M', ...command] : command;
  const [ms, out] = time(() => spawnSync(measured[0], measured.slice(1), { cwd: project, env, encoding: 'utf8' }));
  if (out.status !== 0) throw new Error(out.stderr);
  const rss = /wmem-peak-rss-kb (\d+)/.exec(out.stderr ?? '');
  if (rss) runs.rssKb.push(Number(rss[1]));
  runs.wmem.push(ms);
  last = JSON.parse(out.stdout);
  runs.node.push(time(() => execFileSync('node', ['-e', '0']))[0]);
}
cpSync(wm, path.join(WORK, 'result'), { recursive: true });
console.log(JSON.stringify({
  notes: count,
  consumed: last.consumed,
  placed: last.placed,
  pointers: last.pointers.length,
  detailFiles: last.details.length,
  ms: { wmemConsolidateMedian: Math.round(median(runs.wmem)), nodeStartupMedian: Math.round(median(runs.node)) },
  peakRssMb: runs.rssKb.length ? Math.round(Math.max(...runs.rssKb) / 1024) : 'unmeasured (no /usr/bin/time)',
  overviewBytes: readFileSync(path.join(wm, 'overview.md')).length,
}, null, 2));
emit('consolidate', [{ what: `wmem consolidate, ${count} notes`, ms: median(runs.wmem), baseline: 'node -e 0', baselineMs: median(runs.node) }]);
