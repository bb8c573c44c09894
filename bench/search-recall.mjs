// Recall of `wmem search` on long conversations with known evidence (bench/convo-gen.mjs): eight
// conversations of 24 archived sessions each, 40 planted facts per conversation (320 questions),
// each question asked in other words than its fact, with a distractor that shares the question's
// words. Reports recall@1/5/10 and MRR (first evidence line in the top ten) for wmem and for a
// plain BM25 over the same lines, separately for the dev templates (even) and the test templates
// (odd; never used to tune the ranking).
//
//   node bench/search-recall.mjs [conversations=8] [--misses]
//
// The search runs in process: src/store/search-corpus.ts is bundled with esbuild into
// bench/.work/ and called directly (the same code `wmem search` runs, without 320 process starts).
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { realSentences, writeConversation } from './convo-gen.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BIN = path.join(ROOT, 'bin', 'wmem.js');
const WORK = path.join(ROOT, 'bench', '.work', 'recall');
const conversations = Number(process.argv[2] ?? 8);
const showMisses = process.argv.includes('--misses');

rmSync(WORK, { recursive: true, force: true });
mkdirSync(path.join(WORK, 'project'), { recursive: true });
const home = path.join(WORK, 'home');
const wmem = (args) => {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd: path.join(WORK, 'project'), env: { ...process.env, WMEM_HOME: home, NO_COLOR: '1' }, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`wmem ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
};

// ---- data ---------------------------------------------------------------------------------------
const sentences = realSentences(ROOT);
const questions = [];
let projectDir;
for (let c = 0; c < conversations; c++) {
  const session = JSON.parse(wmem(['init', '--session', `conversation-${c}`, '--json'])).path;
  projectDir = path.dirname(session);
  questions.push(...writeConversation(path.join(session, 'working-memory', 'archive'), c, sentences).map((q) => ({ ...q, session: `conversation-${c}`, sessionDir: session })));
}

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
const wmemTop = [];
for (const q of questions) {
  const { hits } = await searchMemory({ projectDir, sessions: [q.session] }, q.question, { limit: 10 });
  wmemTop.push(hits.map((h) => ({ file: path.basename(h.file), line: h.line, kind: h.kind, snippet: h.snippet })));
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
const bm25Top = [];
for (let c = 0; c < conversations; c++) {
  const own = questions.map((q, i) => ({ q, i })).filter(({ q }) => q.conversation === c);
  const tops = bm25(own[0].q.sessionDir, own.map(({ q }) => q));
  own.forEach(({ i }, k) => (bm25Top[i] = tops[k]));
}

// ---- scores -------------------------------------------------------------------------------------
const rankOf = (list, q) => list.findIndex((h) => h.file === q.file && h.line === q.line && (h.kind ?? 'messages') === 'messages') + 1;
function score(ranks) {
  const at = (k) => ranks.filter((r) => r > 0 && r <= k).length;
  const pct = (n) => Math.round((1000 * n) / ranks.length) / 10;
  return { n: ranks.length, 'recall@1': pct(at(1)), 'recall@5': pct(at(5)), 'recall@10': pct(at(10)), mrr: Math.round((1000 * ranks.reduce((n, r) => n + (r ? 1 / r : 0), 0)) / ranks.length) / 1000 };
}
const result = { conversations, questions: questions.length, sessionsPerConversation: 24 };
for (const split of ['dev', 'test']) {
  const idx = questions.map((q, i) => ({ q, i })).filter(({ q }) => q.split === split);
  result[split] = { wmem: score(idx.map(({ q, i }) => rankOf(wmemTop[i], q))), plainBm25: score(idx.map(({ q, i }) => rankOf(bm25Top[i], q))) };
  if (showMisses) {
    result[split].misses = idx
      .filter(({ q, i }) => q.conversation < 2 && rankOf(wmemTop[i], q) !== 1)
      .map(({ q, i }) => ({ question: q.question, answer: q.answer, rank: rankOf(wmemTop[i], q), bm25: rankOf(bm25Top[i], q), top: wmemTop[i][0]?.snippet }));
  }
}
console.log(JSON.stringify(result, null, 2));
