// `wmem sweep` against `find -delete` on identical copies of a tree of 100,000 cache files
// (20 projects × 5,000 files; 70 % are 30 days old, 30 % a day old). Both delete the same files:
// wmem with --ttl 7d and a --max-files no project reaches, find with -mtime +7. Each round times
// one of each on fresh copies (copying is not timed); prints medians and the ratio.
//   node bench/sweep.mjs [rounds] [files]
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, utimesSync, writeFileSync, readdirSync, existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { emit } from './emit.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const bin = path.join(root, 'bin', 'wmem.js');
const rounds = Number(process.argv[2] ?? 5);
const total = Number(process.argv[3] ?? 100_000);
const projects = 20;
const work = path.join(root, 'bench', '.work', 'sweep');
rmSync(work, { recursive: true, force: true });
const template = path.join(work, 'template');

const now = Date.now() / 1000;
let made = 0;
for (let p = 0; p < projects; p++) {
  const cache = path.join(template, 'sessions', `--bench-project-${p}--`, 'cache', 'tool-outputs');
  mkdirSync(cache, { recursive: true });
  const perProject = Math.floor(total / projects) + (p < total % projects ? 1 : 0);
  for (let i = 0; i < perProject; i++) {
    const file = path.join(cache, `20261101T000000000Z-${p}-${i}.txt`);
    writeFileSync(file, `tool output ${i}\n`.repeat(8));
    const age = (made * 7) % 10 < 7 ? 30 * 86400 : 86400;
    utimesSync(file, now - age, now - age);
    made++;
  }
}
const countFiles = (home) => readdirSync(path.join(home, 'sessions')).reduce((n, p) => n + readdirSync(path.join(home, 'sessions', p, 'cache', 'tool-outputs')).length, 0);

const run = (cmd, args) => {
  const start = process.hrtime.bigint();
  const r = spawnSync(cmd, args, { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status}): ${r.stderr}`);
  return { ms, stdout: r.stdout };
};
const copy = (to) => {
  rmSync(to, { recursive: true, force: true });
  const r = spawnSync('cp', ['-a', template, to]);
  if (r.status !== 0) throw new Error('cp failed');
};

const times = { 'find -delete': [], 'wmem sweep': [] };
let left;
for (let r = 0; r < rounds; r++) {
  const a = path.join(work, 'a');
  const b = path.join(work, 'b');
  copy(a);
  copy(b);
  const order = r % 2 ? ['wmem sweep', 'find -delete'] : ['find -delete', 'wmem sweep'];
  for (const name of order) {
    if (name === 'find -delete') {
      times[name].push(run('find', [path.join(a, 'sessions'), '-path', '*/cache/tool-outputs/*', '-type', 'f', '-mtime', '+7', '-delete']).ms);
    } else {
      const result = run(process.execPath, [bin, 'sweep', '--home', b, '--ttl', '7d', '--max-files', String(total), '--json']);
      times[name].push(result.ms);
      if (r === 0) console.log(`wmem sweep reported: ${JSON.stringify({ ...JSON.parse(result.stdout), removed: undefined })}`);
    }
  }
  left = [countFiles(a), countFiles(b)];
  if (left[0] !== left[1]) throw new Error(`the two trees differ after the sweep: find left ${left[0]}, wmem left ${left[1]}`);
}
const median = (xs) => {
  const s = [...xs].sort((x, y) => x - y);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
console.log(`files: ${total} in ${projects} projects, ${total - left[0]} deleted by each; rounds: ${rounds}; node ${process.version}; ${os.cpus().length} cores`);
const base = median(times['find -delete']);
for (const [name, xs] of Object.entries(times)) console.log(`${name.padEnd(14)} median ${median(xs).toFixed(0).padStart(6)} ms   ratio ${(median(xs) / base).toFixed(2)}×`);
emit('sweep', [{ what: `wmem sweep, ${total} cache files`, ms: median(times['wmem sweep']), baseline: 'find -delete', baselineMs: base }]);
if (!process.env.KEEP) rmSync(work, { recursive: true, force: true });
