// Recall of `wmem search` on conversations with known evidence, for wmem and for a plain BM25 over
// the same lines, side by side; recall@1/5/10 and MRR (first evidence line in the top ten), on a
// dev part (to tune on) and a test part (never used to tune the ranking), for four sets:
// - real: bench/data/memorybank-en.json (bench/memorybank-convert.mjs, bench/data/SOURCES.md):
//   15 people's ten days of chat with an AI companion, one wmem session each with one archived
//   file per day, and the data authors' questions about them; evidence is the question's
//   query/response turns (a hit on either line counts); dev/test by person.
// - prefeval: bench/data/prefeval-choice.json (bench/prefeval-convert.mjs): 20 people (one per
//   PrefEval topic), ~50 one-day sessions each in which they reveal a preference by what they pick,
//   and the authors' later question that depends on it; evidence is that session's four lines (the
//   authors' pairing); dev/test by topic.
// - realtalk: bench/data/realtalk.json (bench/realtalk-convert.mjs): ten real two-person chats of
//   18–25 sessions over 21 days, one wmem session each with one archived file per chat session, each
//   message a user line "<speaker>: <text>" (both writers are people), and the authors'
//   memory-probing questions with their marked evidence messages; dev/test by conversation; also
//   scored per question category (1 multi-session, 2 time and single facts, 3 inference).
// - generated (bench/convo-gen.mjs): eight conversations of 24 archived sessions each, 40 planted
//   facts per conversation (320 questions), each asked in other words than its fact, with a
//   distractor that shares the question's words; dev templates even, test odd.
//
//   node bench/search-recall.mjs [conversations=8] [--misses] [--real-only] [--dev] [--json]
//     [--sets=memorybank,prefeval,realtalk,generated] [--reuse] [--raw-first] [--ranks=FILE]
//
// Prints one table row per set and part (--json: every figure).
//
// The search runs in process: src/store/search-corpus.ts is bundled with esbuild into
// bench/.work/ and called directly (the same code `wmem search` runs, without process starts).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { realSentences, writeConversation } from './convo-gen.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BIN = path.join(ROOT, 'bin', 'wmem.js');
const WORK = path.join(ROOT, 'bench', '.work', 'recall');
const conversations = Number(process.argv.slice(2).find((a) => /^\d+$/.test(a)) ?? 8);
const showMisses = process.argv.includes('--misses');
const realOnly = process.argv.includes('--real-only');
// --dev: the dev parts only (while tuning: the test parts are read once, at the end).
const splits = process.argv.includes('--dev') ? ['dev'] : ['dev', 'test'];

// --reuse: keep bench/.work/recall's sessions from the last run (while tuning; the data is the same).
const reuse = process.argv.includes('--reuse');
// --raw-first: every archive searched as the first search after a compaction searches a large one
// (its raw bytes, the average line length estimated from RAW_SHARE of the lines that hold no
// query word, about what 2,048 lines are of a 58 MB archive's): that search's ranking.
const rawFirst = process.argv.includes('--raw-first');
const RAW_SHARE = 0.025;
// --sets=memorybank,prefeval,realtalk,generated: only these sets.
const only = process.argv.find((a) => a.startsWith('--sets='))?.slice(7).split(',');
const wanted = (name) => !only || only.includes(name);
// --ranks=FILE: every dev question's rank for wmem and BM25, its evidence lines and wmem's top five
// (JSON lines), to study the misses and to compare two runs question by question.
const ranksFile = process.argv.find((a) => a.startsWith('--ranks='))?.slice(8);
if (ranksFile) writeFileSync(ranksFile, '');
if (!reuse) rmSync(WORK, { recursive: true, force: true });
mkdirSync(path.join(WORK, 'project'), { recursive: true });
const home = path.join(WORK, 'home');
const wmem = (args) => {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd: path.join(WORK, 'project'), env: { ...process.env, WMEM_HOME: home, NO_COLOR: '1' }, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`wmem ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
};

// ---- data ---------------------------------------------------------------------------------------
const made = path.join(WORK, 'sessions.json');
const sessionPaths = reuse && existsSync(made) ? JSON.parse(readFileSync(made, 'utf8')) : {};
const newSession = (id) => {
  sessionPaths[id] ??= JSON.parse(wmem(['init', '--session', id, '--json'])).path;
  writeFileSync(made, JSON.stringify(sessionPaths));
  return sessionPaths[id];
};
let projectDir;
// Generated: questions carry their evidence as one archived line.
const generated = [];
if (!realOnly && wanted('generated')) {
  const sentences = realSentences(ROOT);
  for (let c = 0; c < conversations; c++) {
    const session = newSession(`conversation-${c}`);
    projectDir = path.dirname(session);
    generated.push(...writeConversation(path.join(session, 'working-memory', 'archive'), c, sentences).map((q) => ({ ...q, session: `conversation-${c}`, sessionDir: session, gold: [{ file: q.file, line: q.line }] })));
  }
}
// Real: each day one archived file, each turn its query line then its response line.
const REAL_SETS = [
  ['memorybank', 'memorybank-en.json'],
  ['prefeval', 'prefeval-choice.json'],
  ['realtalk', 'realtalk.json'],
];
// A day (YYYY-MM-DD: its file at 20:00) or a session's start (an ISO time: its file at that time).
const fileOf = (date) => `messages-${date.includes('T') ? date.replace(/[-:.]/g, '').replace(/Z$/, '') : `${date.replace(/-/g, '')}T200000000`}Z.jsonl`;
// A session's lines as archived messages: a turns set's query then response, a lines set's lines in order.
function sessionLines(day, c) {
  if (day.lines) {
    const start = Date.parse(day.date);
    return day.lines.map((l, n) => {
      const timestamp = new Date(start + n * 1000).toISOString();
      if (l.role === 'user') return JSON.stringify({ type: 'user', timestamp, message: { role: 'user', content: l.text } });
      return JSON.stringify({ type: 'assistant', timestamp, message: { id: `msg_${c}_${start}_${n}`, role: 'assistant', content: [{ type: 'text', text: l.text }] } });
    });
  }
  return day.turns.flatMap((t, n) => {
    const timestamp = (m) => new Date(Date.parse(`${day.date}T20:00:00Z`) + (2 * n + m) * 60_000).toISOString();
    return [
      JSON.stringify({ type: 'user', timestamp: timestamp(0), message: { role: 'user', content: t.user } }),
      JSON.stringify({ type: 'assistant', timestamp: timestamp(1), message: { id: `msg_${c}_${day.date}_${n}`, role: 'assistant', content: [{ type: 'text', text: t.assistant }] } }),
    ];
  });
}
// Evidence as archived lines: a turn is its two lines, a session's line is itself.
const goldOf = (data, e) => ('line' in e ? [{ file: fileOf(data.sessions[e.session].date), line: e.line + 1 }] : [1, 2].map((k) => ({ file: fileOf(e.date), line: 2 * e.turn + k })));
function loadReal(name, file) {
  const questions = [];
  const data = JSON.parse(readFileSync(path.join(DATA, file), 'utf8'));
  for (const [c, convo] of data.conversations.entries()) {
    const id = `${name}-${c}`;
    const session = newSession(id);
    projectDir = path.dirname(session);
    const archive = path.join(session, 'working-memory', 'archive');
    mkdirSync(archive, { recursive: true });
    for (const day of convo.sessions) {
      if (reuse && existsSync(path.join(archive, fileOf(day.date)))) continue;
      writeFileSync(path.join(archive, fileOf(day.date)), sessionLines(day, c).join('\n') + '\n');
    }
    for (const q of data.questions.filter((x) => x.user === convo.user)) {
      questions.push({ ...q, conversation: id, session: id, sessionDir: session, gold: q.evidence.flatMap((e) => goldOf(convo, e)) });
    }
  }
  return { conversations: data.conversations.length, questions };
}
// The real sets are built on the user's machine from the data's own repositories (the converters
// and bench/data/SOURCES.md say how); they are not committed. A set not built yet is skipped.
const DATA = process.env.WMEM_BENCH_DATA ? path.resolve(process.env.WMEM_BENCH_DATA) : path.join(ROOT, 'bench', 'data');
const built = ([name, file]) => {
  if (existsSync(path.join(DATA, file))) return true;
  console.error(`${name}: ${path.join(DATA, file)} not built; skipped (see bench/data/SOURCES.md for how to build it)`);
  return false;
};
const real = Object.fromEntries(REAL_SETS.filter(([name]) => wanted(name)).filter(built).map(([name, file]) => [name, loadReal(name, file)]));

// ---- wmem, in process -----------------------------------------------------------------------------
const bundle = path.join(WORK, 'search-corpus.mjs');
await build({
  entryPoints: [path.join(ROOT, 'src', 'store', 'search-corpus.ts')],
  outfile: bundle,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  logLevel: 'warning',
  banner: { js: "import { createRequire as __r } from 'node:module'; const require = __r(import.meta.url);" },
});
const { searchMemory } = await import(pathToFileURL(bundle).href);
async function wmemRank(questions) {
  const out = [];
  for (const q of questions) {
    const { hits } = await searchMemory({ projectDir, sessions: [q.session] }, q.question, { limit: 10, ...(rawFirst ? { rawMessages: { sampleShare: RAW_SHARE } } : {}) });
    out.push(hits.map((h) => ({ file: path.basename(h.file), line: h.line, kind: h.kind, snippet: h.snippet })));
  }
  return out;
}

// ---- plain BM25 over the same lines -------------------------------------------------------------
const STOP = new Set('a an and are as at be by do does did for from how in is it of on or the to we what when where which who why with can our my i this that there these those was were will should must us you your'.split(' '));
const tokens = (text) => (text.toLowerCase().match(/[a-z0-9]+/g) ?? []).filter((t) => !STOP.has(t));
function lineText(line) {
  try {
    const m = JSON.parse(line).message;
    const content = typeof m.content === 'string' ? m.content : m.content.map((p) => p.text ?? '').join(' ');
    return `${m.role}: ${content}`;
  } catch {
    return '';
  }
}
function bm25(sessionDir, list) {
  const archive = path.join(sessionDir, 'working-memory', 'archive');
  const docs = [];
  const df = new Map();
  let total = 0;
  for (const file of readdirSync(archive).sort()) {
    readFileSync(path.join(archive, file), 'utf8').split('\n').forEach((raw, i) => {
      const toks = tokens(lineText(raw));
      if (!toks.length) return;
      const tf = new Map();
      for (const t of toks) tf.set(t, (tf.get(t) ?? 0) + 1);
      for (const t of tf.keys()) df.set(t, (df.get(t) ?? 0) + 1);
      docs.push({ file, line: i + 1, length: toks.length, tf });
      total += toks.length;
    });
  }
  const avg = total / docs.length;
  return list.map((q) => {
    const terms = [...new Set(tokens(q.question))];
    const scored = docs.map((d) => {
      let s = 0;
      for (const t of terms) {
        const f = d.tf.get(t);
        if (!f) continue;
        const n = df.get(t);
        s += Math.log(1 + (docs.length - n + 0.5) / (n + 0.5)) * ((f * 2.2) / (f + 1.2 * (0.25 + (0.75 * d.length) / avg)));
      }
      return { d, s };
    });
    return scored
      .filter((x) => x.s > 0)
      .sort((a, b) => b.s - a.s || a.d.file.localeCompare(b.d.file) || a.d.line - b.d.line)
      .slice(0, 10)
      .map((x) => ({ file: x.d.file, line: x.d.line }));
  });
}
function bm25Rank(questions) {
  const out = [];
  for (const c of new Set(questions.map((q) => q.conversation))) {
    const own = questions.map((q, i) => ({ q, i })).filter(({ q }) => q.conversation === c);
    const tops = bm25(own[0].q.sessionDir, own.map(({ q }) => q));
    own.forEach(({ i }, k) => (out[i] = tops[k]));
  }
  return out;
}

// ---- scores -------------------------------------------------------------------------------------
const rankOf = (list, q) => list.findIndex((h) => (h.kind ?? 'messages') === 'messages' && q.gold.some((g) => g.file === h.file && g.line === h.line)) + 1;
function score(ranks) {
  const at = (k) => ranks.filter((r) => r > 0 && r <= k).length;
  const pct = (n) => Math.round((1000 * n) / ranks.length) / 10;
  return { n: ranks.length, 'recall@1': pct(at(1)), 'recall@5': pct(at(5)), 'recall@10': pct(at(10)), mrr: Math.round((1000 * ranks.reduce((n, r) => n + (r ? 1 / r : 0), 0)) / ranks.length) / 1000 };
}
// The text of an archived line (its role then its words), for --ranks.
const goldText = (q, g) => lineText(readFileSync(path.join(q.sessionDir, 'working-memory', 'archive', g.file), 'utf8').split('\n')[g.line - 1] ?? '');
async function report(name, questions) {
  const wmemTop = await wmemRank(questions);
  const bm25Top = bm25Rank(questions);
  const out = {};
  for (const split of splits) {
    const idx = questions.map((q, i) => ({ q, i })).filter(({ q }) => q.split === split);
    const both = (list) => ({ wmem: score(list.map(({ q, i }) => rankOf(wmemTop[i], q))), plainBm25: score(list.map(({ q, i }) => rankOf(bm25Top[i], q))) });
    out[split] = both(idx);
    // A set whose questions carry the authors' category is scored per category too.
    const categories = [...new Set(idx.map(({ q }) => q.category).filter((c) => c !== undefined))].sort();
    if (categories.length) out[split].byCategory = Object.fromEntries(categories.map((c) => [c, both(idx.filter(({ q }) => q.category === c))]));
    if (ranksFile && split === 'dev') {
      const rows = idx.map(({ q, i }) => ({ set: name, question: q.question, category: q.category, wmem: rankOf(wmemTop[i], q), bm25: rankOf(bm25Top[i], q), gold: q.gold.map((g) => `${g.file}:${g.line} ${goldText(q, g)}`), top: wmemTop[i].slice(0, 5).map((h) => `${h.file}:${h.line} ${h.snippet}`) }));
      writeFileSync(ranksFile, rows.map((r) => JSON.stringify(r)).join('\n') + '\n', { flag: 'a' });
    }
    // Misses are shown for dev only: test is looked at once, at the end.
    if (showMisses && split === 'dev') {
      out[split].misses = idx
        .filter(({ q, i }) => rankOf(wmemTop[i], q) !== 1)
        .slice(0, 40)
        .map(({ q, i }) => ({ question: q.question, rank: rankOf(wmemTop[i], q), bm25: rankOf(bm25Top[i], q), top: wmemTop[i][0]?.snippet }));
    }
  }
  return out;
}
const result = {};
for (const [name, set] of Object.entries(real)) result[name] = { conversations: set.conversations, questions: set.questions.length, ...(await report(name, set.questions)) };
if (generated.length) result.generated = { conversations, questions: generated.length, sessionsPerConversation: 24, ...(await report('generated', generated)) };
if (process.argv.includes('--json')) console.log(JSON.stringify(result, null, 2));
else {
  // One row per set and part, wmem beside BM25 over the same lines.
  const cell = (w, b, k) => `${w[k]} vs ${b[k]}`;
  console.log('| set | part | questions | recall@1 wmem vs BM25 | recall@5 | recall@10 | MRR |');
  console.log('|---|---|---|---|---|---|---|');
  for (const [name, set] of Object.entries(result)) {
    for (const split of splits) {
      const { wmem: w, plainBm25: b } = set[split];
      const row = (label, w, b) => console.log(`| ${label} | ${split} | ${w.n} | ${cell(w, b, 'recall@1')} | ${cell(w, b, 'recall@5')} | ${cell(w, b, 'recall@10')} | ${cell(w, b, 'mrr')} |`);
      row(name, w, b);
      for (const [c, part] of Object.entries(set[split].byCategory ?? {})) row(`${name}, category ${c}`, part.wmem, part.plainBm25);
    }
  }
  if (showMisses) console.log(JSON.stringify(Object.fromEntries(Object.entries(result).map(([k, v]) => [k, v.dev.misses])), null, 1));
}
