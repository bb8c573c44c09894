// Peak RSS and wall time of `wmem compact --keep-recent 5 --wait` (compaction, then the search
// index build) on the compaction bench's history, read by GNU time (`%M`, `%e`, `%U` + `%S`): on a
// shared machine the CPU time says more than the wall time.
//
//   node bench/compact-rss.mjs [rounds=3] [messages=100000] [bin]
// `bin`: another build's bin/wmem.js (a baseline run the same way; default this checkout's).
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { generate } from './history-gen.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const rounds = Number(process.argv[2] ?? 3);
const messages = Number(process.argv[3] ?? 100_000);
const bin = process.argv[4] ? path.resolve(process.argv[4]) : path.join(root, 'bin', 'wmem.js');
const work = path.join(root, 'bench', '.work', 'compact-rss');
rmSync(work, { recursive: true, force: true });
mkdirSync(path.join(work, 'project'), { recursive: true });
const env = { ...process.env, WMEM_HOME: path.join(work, 'home'), NO_COLOR: '1' };
const out = path.join(work, 'time.txt');
const wmem = (...args) => {
  const r = spawnSync('/usr/bin/time', ['-f', '%M %e %U %S', '-o', out, process.execPath, bin, ...args], { cwd: path.join(work, 'project'), env, encoding: 'utf8', maxBuffer: 64 << 20 });
  if (r.status !== 0) throw new Error(`wmem ${args.join(' ')} failed: ${r.stderr}`);
  const [kb, s, user, sys] = readFileSync(out, 'utf8').trim().split('\n').pop().split(' ').map(Number);
  return { out: r.stdout, mb: kb / 1024, ms: s * 1000, cpuMs: (user + sys) * 1000 };
};
const source = path.join(work, 'history.jsonl');
generate(source, messages);
wmem('init', '--session', 'bench');
const sessionDir = path.dirname(JSON.parse(wmem('show', 'messages', '--json').out).file);
const rows = [];
for (let r = 0; r < rounds; r++) {
  rmSync(path.join(sessionDir, 'working-memory', 'archive'), { recursive: true, force: true });
  rmSync(path.join(sessionDir, 'working-memory', 'detail'), { recursive: true, force: true });
  rmSync(path.join(sessionDir, 'state', 'search'), { recursive: true, force: true });
  copyFileSync(source, path.join(sessionDir, 'messages.jsonl'));
  rows.push(wmem('compact', '--keep-recent', '5', '--wait'));
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const mb = (statSync(source).size / 1e6).toFixed(1);
console.log(`${messages} messages, ${mb} MB, ${rounds} rounds: wmem compact --wait peak RSS median ${median(rows.map((x) => x.mb)).toFixed(0)} MB (max ${Math.max(...rows.map((x) => x.mb)).toFixed(0)}), wall median ${median(rows.map((x) => x.ms)).toFixed(0)} ms, CPU median ${median(rows.map((x) => x.cpuMs)).toFixed(0)} ms`);
