// `npm run bench`: every benchmark in bench/, at sizes that finish in a few minutes on 2 cores,
// and one table of each measurement against its baseline (`node -e 0`, `cp`, `grep -rF`, or
// `find -delete`), each timed side by side with it in the same run. With BENCH_JSON=1 each bench
// ends with one JSON line {"bench":…,"rows":[…]} (bench/emit.mjs); a bench file that prints none
// still runs, and adds no rows. Run one alone for its full report. Each row carries the load
// average (1 minute) as its bench ended: on a shared machine the ratios are what to read.
//   node bench/run.mjs [--full] [name…]   (--full: each bench's own default sizes and rounds;
//                                          names, e.g. hooks context: only those benches)
import './node-start.mjs';
import { readdirSync } from 'node:fs';
import os from 'node:os';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const full = process.argv.includes('--full');
const only = process.argv.slice(2).filter((a) => !a.startsWith('--')).map((a) => a.replace(/\.mjs$/, ''));
// Quick arguments of the known benches; parse-floor.mjs (the floor compact.mjs times beside
// `wmem compact`) needs a transcript to read, so it gets the largest fixture.
const fixture = path.join(here, '..', 'test', 'fixtures', 'transcripts', 'claude-code-log', 'ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl');
const QUICK = {
  'context.mjs': ['20'],
  'hooks.mjs': ['10'],
  'handoff.mjs': ['10', '30'],
  'hooks-codex.mjs': ['10'],
  'hooks-gemini.mjs': ['10'],
  'mcp.mjs': ['10', '100'],
  'hooks-opencode.mjs': ['10'],
  'hooks-agents.mjs': ['10'],
  'compact.mjs': ['3', '100000'],
  'consolidate.mjs': ['3', '1000'],
  'search.mjs': ['3', '20'],
  'sweep.mjs': ['3', '20000'],
  'parse-floor.mjs': [fixture],
  'report.mjs': ['3', '100000'],
  'search-after-compact.mjs': ['2', '100000'],
  'team.mjs': ['15', '5000'],
};
// stage-coverage.mjs measures what the hook stages' runs call, not a time: run alone.
const NOT_BENCHES = new Set(['run.mjs', 'emit.mjs', 'history-gen.mjs', 'hook-rounds.mjs', 'stage-coverage.mjs']);
const BENCHES = readdirSync(here)
  .filter((f) => f.endsWith('.mjs') && !NOT_BENCHES.has(f) && (!only.length || only.includes(f.slice(0, -4))))
  .sort()
  .map((f) => [f, QUICK[f] ?? []]);

const lastJson = (stdout) => {
  const line = stdout.trim().split('\n').pop() ?? '';
  try {
    const value = JSON.parse(line);
    return value && typeof value.bench === 'string' && Array.isArray(value.rows) ? value : null;
  } catch {
    return null;
  }
};

const rows = [];
const failed = [];
for (const [file, quick] of BENCHES) {
  const args = full && file !== 'parse-floor.mjs' ? [] : quick;
  process.stderr.write(`running bench/${file} ${args.map((a) => path.basename(a)).join(' ')}\n`);
  const started = Date.now();
  const result = spawnSync(process.execPath, [path.join(here, file), ...args], {
    env: { ...process.env, BENCH_JSON: '1', NO_COLOR: '1' },
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (result.status !== 0) {
    failed.push(file);
    process.stderr.write(`  bench/${file} failed (exit ${result.status}): ${result.stderr.trim().split('\n').slice(-3).join(' | ')}\n`);
    continue;
  }
  const report = lastJson(result.stdout);
  if (!report) {
    process.stderr.write(`  done in ${((Date.now() - started) / 1000).toFixed(0)} s (no table rows)\n`);
    continue;
  }
  const load = os.loadavg()[0].toFixed(1);
  for (const row of report.rows) rows.push({ bench: report.bench, ...row, load });
  process.stderr.write(`  done in ${((Date.now() - started) / 1000).toFixed(0)} s\n`);
}

const table = [
  ['bench', 'what', 'median ms', 'baseline', 'baseline ms', 'ratio', 'load'],
  ...rows.map((r) => [r.bench, r.what, r.ms.toFixed(1), r.baseline, r.baselineMs.toFixed(1), `${(r.ratio ?? r.ms / r.baselineMs).toFixed(2)}×`, r.load]),
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
