// One machine-readable line per benchmark, for bench/run.mjs: when BENCH_JSON=1, a bench ends by
// printing `BENCH {"bench":…,"rows":[{what, ms, baseline, baselineMs}]}` (ratios are computed
// by the table). Nothing is printed otherwise, so each bench still reads well on its own.
export function emit(bench, rows) {
  if (process.env.BENCH_JSON !== '1') return;
  process.stdout.write(`BENCH ${JSON.stringify({ bench, rows: rows.map((r) => ({ ...r, ms: round(r.ms), baselineMs: round(r.baselineMs) })) })}\n`);
}

const round = (ms) => Math.round(ms * 10) / 10;
