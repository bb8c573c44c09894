// `npm run bench`: every benchmark in bench/, at sizes that finish in a few minutes on 2 cores,
// and one table of each measurement against its baseline (`node -e 0`, `cp`, `grep -rF`, or
// `find -delete`), each timed side by side with it in the same run. Each bench prints one
// `BENCH {…}` line when BENCH_JSON=1 (bench/emit.mjs); run one alone for its full report.
//   node bench/run.mjs [--full]     (--full: each bench's own default sizes and rounds)
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const full = process.argv.includes('--full');
// [file, quick arguments]; parse-floor.mjs is a baseline compact.mjs runs itself.
const BENCHES = [
  ['context.mjs', ['20']],
  ['hooks.mjs', ['10']],
  ['compact.mjs', ['3', '50000']],
  ['consolidate.mjs', ['3', '1000']],
  ['search.mjs', ['3', '20']],
  ['sweep.mjs', ['3', '20000']],
];

const rows = [];
const failed = [];
for (const [file, quick] of BENCHES) {
  process.stderr.write(`running bench/${file} ${full ? '' : quick.join(' ')}\n`);
  const started = Date.now();
  const result = spawnSync(process.execPath, [path.join(here, file), ...(full ? [] : quick)], {
    env: { ...process.env, BENCH_JSON: '1', NO_COLOR: '1' },
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  const line = result.stdout.split('\n').find((l) => l.startsWith('BENCH '));
  if (result.status !== 0 || !line) {
    failed.push(file);
    process.stderr.write(`  bench/${file} failed (exit ${result.status}): ${result.stderr.trim().split('\n').slice(-3).join(' | ')}\n`);
    continue;
  }
  const report = JSON.parse(line.slice('BENCH '.length));
  for (const row of report.rows) rows.push({ bench: report.bench, ...row });
  process.stderr.write(`  done in ${((Date.now() - started) / 1000).toFixed(0)} s\n`);
}

const table = [
  ['bench', 'what', 'median ms', 'baseline', 'baseline ms', 'ratio'],
  ...rows.map((r) => [r.bench, r.what, r.ms.toFixed(1), r.baseline, r.baselineMs.toFixed(1), `${(r.ms / r.baselineMs).toFixed(2)}×`]),
];
const widths = table[0].map((_, i) => Math.max(...table.map((row) => row[i].length)));
const print = (row) => console.log(`| ${row.map((cell, i) => cell.padEnd(widths[i])).join(' | ')} |`);
print(table[0]);
console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
table.slice(1).forEach(print);
console.log(`\n${new Date().toISOString().slice(0, 10)}, node ${process.version}${full ? '' : ', quick sizes (node bench/run.mjs --full for the defaults)'}`);
if (failed.length) {
  console.log(`failed: ${failed.join(', ')}`);
  process.exitCode = 1;
}
