// One machine-readable line per benchmark, for bench/run.mjs: when BENCH_JSON=1, a bench ends by
// printing one JSON line {"bench":…,"rows":[{what, ms, baseline, baselineMs, ratio}]} (medians in
// ms, ratio = ms / baselineMs). Nothing is printed otherwise, so each bench still reads well alone.
export function emit(bench, rows) {
  if (process.env.BENCH_JSON !== '1') return;
  const out = rows.map((r) => ({ what: r.what, ms: round(r.ms), baseline: r.baseline, baselineMs: round(r.baselineMs), ratio: Math.round((r.ms / r.baselineMs) * 100) / 100 }));
  process.stdout.write(`${JSON.stringify({ bench, rows: out })}\n`);
}

const round = (ms) => Math.round(ms * 10) / 10;
