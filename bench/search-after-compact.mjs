// The first `wmem search` right after a compaction of a ~60 MB history, and the searches after
// it, beside `grep -rF` over the same archive folder and bare `node -e 0`. `wmem compact --wait`
// brings the search index up to date as the last step of its finishing (a plain `wmem compact`
// does it in its background finishing), so the first search reads ready text.
//
//   node bench/search-after-compact.mjs [rounds=3] [messages=100000]
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { emit } from './emit.mjs';
import { generate } from './history-gen.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const bin = path.join(root, 'bin', 'wmem.js');
const rounds = Number(process.argv[2] ?? 3);
const messages = Number(process.argv[3] ?? 100_000);
const work = path.join(root, 'bench', '.work', 'search-after-compact');
rmSync(work, { recursive: true, force: true });
mkdirSync(path.join(work, 'project'), { recursive: true });
const env = { ...process.env, WMEM_HOME: path.join(work, 'home'), NO_COLOR: '1' };
const run = (cmd, args) => {
  const start = process.hrtime.bigint();
  const r = spawnSync(cmd, args, { cwd: path.join(work, 'project'), env, encoding: 'utf8' });
  if (r.status !== 0 && cmd !== 'grep') throw new Error(`${cmd} ${args.join(' ')} failed: ${r.stderr}`);
  return { ms: Number(process.hrtime.bigint() - start) / 1e6, out: r.stdout };
};
const wmem = (...args) => run(process.execPath, [bin, ...args]);

const source = path.join(work, 'history.jsonl');
generate(source, messages);
wmem('init', '--session', 'bench');
const sessionDir = path.dirname(JSON.parse(wmem('show', 'messages', '--json').out).file);
const QUERY = 'off-by-one in the loop bound';
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const times = { first: [], later: [], grep: [], node: [] };
for (let r = 0; r < rounds; r++) {
  rmSync(path.join(sessionDir, 'working-memory', 'archive'), { recursive: true, force: true });
  rmSync(path.join(sessionDir, 'working-memory', 'detail'), { recursive: true, force: true });
  rmSync(path.join(sessionDir, 'state', 'search'), { recursive: true, force: true });
  copyFileSync(source, path.join(sessionDir, 'messages.jsonl'));
  wmem('compact', '--keep-recent', '5', '--wait');
  times.first.push(wmem('search', QUERY, '--json').ms);
  for (let i = 0; i < 3; i++) times.later.push(wmem('search', QUERY, '--json').ms);
  times.grep.push(run('grep', ['-rF', QUERY, path.join(sessionDir, 'working-memory', 'archive')]).ms);
  times.node.push(run(process.execPath, ['-e', '0']).ms);
}
const row = (what, ms, baseline, baselineMs) => ({ what, ms, baseline, baselineMs });
const result = {
  messages,
  historyMb: Math.round(statSync(source).size / 1e5) / 10,
  ms: { firstSearchAfterCompact: Math.round(median(times.first)), laterSearch: Math.round(median(times.later)), grepRF: Math.round(median(times.grep)), nodeStartup: Math.round(median(times.node)) },
};
console.log(JSON.stringify(result, null, 2));
emit('search-after-compact', [
  row(`first wmem search after compacting ${result.historyMb} MB`, median(times.first), 'node -e 0', median(times.node)),
  row('a later wmem search', median(times.later), 'grep -rF', median(times.grep)),
]);
