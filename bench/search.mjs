// `wmem search` over 60 MB of archived history and 2,000 detail files: speed beside `grep -rF`
// over the same files, and ranking quality (recall@1/5/10 and MRR of natural-language questions
// against the lines that answer them) beside a plain BM25 (exact words, no stemming, no boosts).
//
//   node bench/search.mjs [rounds=7] [megabytes=60]
//
// Data is generated (seeded, so every run sees the same folder) in bench/.work/search/.
import './node-start.mjs';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { emit } from './emit.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BIN = path.join(ROOT, 'bin', 'wmem.js');
const WORK = path.join(ROOT, 'bench', '.work', 'search');
const rounds = Number(process.argv[2] ?? 7);
const megabytes = Number(process.argv[3] ?? 60);

// ---- seeded data ------------------------------------------------------------------------------
// mulberry32: a small seeded generator with a long period (an LCG in doubles repeats early).
let seed = 42;
const rand = () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const pick = (list) => list[Math.floor(rand() * list.length)];

// Realistic material: the real agent transcripts in test/fixtures (read-only; only read).
const FIXTURES = path.join(ROOT, 'test', 'fixtures', 'transcripts');
function fixtureFiles(dir) {
  const out = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...fixtureFiles(full));
    else if (e.name.endsWith('.jsonl')) out.push(full);
  }
  return out.sort();
}
const REAL_LINES = fixtureFiles(FIXTURES).flatMap((f) => readFileSync(f, 'utf8').split('\n').filter((l) => l.trim()));
const REAL_SENTENCES = (() => {
  const out = [];
  const walk = (v, k) => {
    if (k === 'signature' || k === 'data' || k === 'uuid' || k === 'id') return;
    if (typeof v === 'string') {
      for (const piece of v.split(/(?<=[.!?])\s+|\n+/)) if (piece.length >= 40 && piece.length <= 220 && /[a-z]{3,} [a-z]{3,}/.test(piece)) out.push(piece.trim());
    } else if (Array.isArray(v)) v.forEach((x) => walk(x));
    else if (v && typeof v === 'object') for (const [kk, vv] of Object.entries(v)) walk(vv, kk);
  };
  for (const line of REAL_LINES) {
    try {
      walk(JSON.parse(line));
    } catch {
      /* skip */
    }
  }
  return [...new Set(out)];
})();
const realSentence = () => pick(REAL_SENTENCES);

// The answers: each fact is planted once; each question asks for it in other words.
export const FACTS = [
  ['Deployed the staging build to fly.io; releases go out from the main branch only', 'how do we ship a release to production'],
  ['The API server listens on port 8080 in development, 443 behind the proxy', 'which port does the server run on locally'],
  ['Chose Postgres over MySQL because we need JSONB columns for the audit log', 'why did we pick this database'],
  ['Integration tests need the docker compose stack running before vitest starts', 'what must be running before the test suite'],
  ['The user prefers tabs over spaces and no semicolons', 'what formatting style does the user like'],
  ['Login tokens expire after 15 minutes; the refresh endpoint extends them', 'how long does an auth session last'],
  ['CORS preflight fails on the P2P relay unless Access-Control-Allow-Headers includes x-peer-id', 'why are cross origin requests to the relay blocked'],
  ['Build output goes to dist/ via esbuild with the node20 target', 'where does the compiled bundle end up'],
  ['Redis is used only as a cache for rendered pages; nothing durable lives there', 'is anything permanent stored in redis'],
  ['The flaky test in sync.spec.ts fails when the clock crosses midnight UTC', 'why does the sync test fail sometimes'],
  ['Config is validated with zod at startup; missing env vars abort the boot', 'what happens when an environment variable is missing'],
  ['Logs rotate daily and are kept for 14 days in /var/log/app', 'how long do we keep log files'],
  ['Payment webhooks are retried three times with exponential backoff', 'what happens when a payment webhook fails'],
  ['The mobile client still calls the v1 endpoints, so v1 cannot be removed yet', 'can we delete the old api version'],
  ['Image uploads are resized to 1600px with sharp before going to S3', 'how are uploaded pictures processed'],
  ['Search indexing runs nightly at 02:00 via a cron job on the worker', 'when does the search index get rebuilt'],
  ['We use pnpm workspaces; npm install breaks the lockfile', 'which package manager should I use'],
  ['Feature flags live in LaunchDarkly; the default for new flags is off', 'where are feature toggles configured'],
  ['The CSV export timed out for accounts with more than 50k rows; we stream it now', 'why was the export slow for big customers'],
  ['Emails are sent through Postmark; the sandbox key is used in staging', 'which service delivers our mail'],
  ['Rate limiting allows 100 requests per minute per API key', 'how many calls per minute can a client make'],
  ['Migrations run automatically on deploy through the release phase', 'do database schema changes apply by themselves'],
  ['The websocket reconnects with jitter to avoid a thundering herd after outages', 'how does the realtime connection recover'],
  ['All timestamps are stored in UTC and converted in the browser', 'in which time zone are dates saved'],
  ['The admin dashboard requires SSO through Okta; passwords are disabled', 'how do administrators sign in'],
  ['Memory leak in the PDF renderer was traced to unclosed puppeteer pages', 'what caused the out of memory crashes'],
  ['Translations are managed in Crowdin and synced by a GitHub action', 'where do localized strings come from'],
  ['The monorepo uses Turborepo remote caching to speed up CI', 'how did we make the pipeline faster'],
  ['Backups of the primary database are taken hourly and restored in a weekly drill', 'how often is data backed up'],
  ['GraphQL resolvers batch lookups with DataLoader to avoid N+1 queries', 'how do we avoid too many database queries'],
];
// Held out: written after search's table of related words was frozen, never tuned against.
export const HELD_OUT = [
  ['Sentry captures frontend exceptions; source maps are uploaded on every release', 'how do we see errors from the browser'],
  ['The nightly job purges soft-deleted rows older than 30 days', 'when are removed records cleaned up for good'],
  ['Stripe is the only payment provider; PayPal was dropped in March', 'which payment options do we support'],
  ['Node 20 is required because the code uses the built-in fetch and test runner', 'what runtime version is needed'],
  ['The docs site is built with Docusaurus and deployed to GitHub Pages', 'where is the documentation hosted'],
  ['Uploads larger than 25 MB are rejected by the nginx client_max_body_size', 'what is the maximum file size users can send'],
  ['Staging uses a copy of production data anonymised every Sunday', 'is real customer data in the test environment'],
  ['The iOS app is released through TestFlight before the App Store review', 'how do beta testers get the phone app'],
  ['Kafka topics keep events for seven days; consumers must catch up within that window', 'how long are messages retained in the event stream'],
  ['Dark mode follows the operating system setting unless the user overrides it', 'how is the color theme chosen'],
];
const ALL = [...FACTS, ...HELD_OUT];

function run(home, args, options = {}) {
  return spawnSync('node', [BIN, ...args], { cwd: options.cwd, env: { ...process.env, WMEM_HOME: home, NO_COLOR: '1' }, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
}

/**
 * A session folder under `dir`. `megabytes` of archived history: sampled real transcript lines
 * (speed), or, with megabytes 0, each real transcript archived once (ranking: no line repeated,
 * as in a real history). Detail files hold real sentences; the facts are planted in scratch,
 * detail, archived messages and overview in turn.
 */
function generate(dir, { detailFiles, megabytes, linesPerDetail }) {
  rmSync(dir, { recursive: true, force: true });
  const project = path.join(dir, 'project');
  const home = path.join(dir, 'home');
  mkdirSync(project, { recursive: true });
  const session = JSON.parse(run(home, ['init', '--session', 'bench', '--json'], { cwd: project }).stdout).path;
  const wm = path.join(session, 'working-memory');
  const pool = [...REAL_SENTENCES].sort(() => rand() - 0.5);
  let next = 0;
  const sentence = () => (megabytes ? pick(REAL_SENTENCES) : pool[next++ % pool.length]);
  const notes = [];
  for (let i = 0; i < 120; i++) notes.push(`- [2026-03-${String(1 + (i % 28)).padStart(2, '0')}T10:00:00Z] (importance: 0.5) ${sentence()}`);
  let overview = readFileSync(path.join(wm, 'overview.md'), 'utf8');
  const overviewFacts = [];
  ALL.forEach(([fact], i) => {
    if (i % 4 === 0) notes.splice(Math.floor(rand() * notes.length), 0, `- [2026-03-20T10:00:00Z] (importance: 0.6) ${fact}`);
    if (i % 4 === 3) overviewFacts.push(`- ${fact}`);
  });
  overview = overview.replace(/(## Known Context\n<!--[^\n]*-->)/, `$1\n${[...overviewFacts, ...Array.from({ length: 8 }, () => `- ${sentence()}`)].join('\n')}`);
  writeFileSync(path.join(wm, 'overview.md'), overview);
  writeFileSync(path.join(wm, 'scratch.md'), notes.join('\n') + '\n');
  const detailName = (d) => `2026030${d % 9}T000000000Z-notes-${d}.md`;
  for (let d = 0; d < detailFiles; d++) {
    const lines = ['---', 'wmem: detail', 'version: 1', 'kind: notes', `title: "Notes ${d}"`, '---', '', `# Notes ${d}`, ''];
    for (let l = 0; l < linesPerDetail; l++) lines.push(`- ${sentence()}`);
    writeFileSync(path.join(wm, 'detail', detailName(d)), lines.join('\n') + '\n');
  }
  ALL.forEach(([fact], i) => {
    if (i % 4 !== 1) return;
    const file = path.join(wm, 'detail', detailName((i * 7) % detailFiles));
    const lines = readFileSync(file, 'utf8').split('\n');
    lines.splice(10 + (i % 5), 0, `- ${fact}`);
    writeFileSync(file, lines.join('\n'));
  });
  const archives = [];
  let total = 0;
  const write = (lines) => {
    const name = `messages-20260301T${String(archives.length).padStart(6, '0')}000Z.jsonl`;
    const text = lines.join('\n') + '\n';
    writeFileSync(path.join(wm, 'archive', name), text);
    archives.push(name);
    total += Buffer.byteLength(text);
  };
  if (megabytes) while (total < megabytes * 1024 * 1024) write(Array.from({ length: 2500 }, () => pick(REAL_LINES)));
  else for (const f of fixtureFiles(FIXTURES)) write(readFileSync(f, 'utf8').split('\n').filter((l) => l.trim()));
  ALL.forEach(([fact], i) => {
    if (i % 4 !== 2) return;
    const file = path.join(wm, 'archive', archives[(i * 7) % archives.length]);
    const lines = readFileSync(file, 'utf8').split('\n');
    const at = Math.floor(lines.length / 2) + i;
    lines.splice(at, 0, JSON.stringify({ type: 'assistant', uuid: `fact-${i}`, message: { role: 'assistant', content: [{ type: 'text', text: `Noted for later: ${fact}.` }] } }));
    writeFileSync(file, lines.join('\n'));
  });
  const meta = { home, project, session, archivesMB: total / 1024 / 1024, archives: archives.length, detailFiles };
  writeFileSync(path.join(dir, 'meta.json'), JSON.stringify(meta));
  return meta;
}

// ---- plain BM25 baseline ------------------------------------------------------------------------
const STOP = new Set('a an and are as at be by do does did for from how in is it of on or the to we what when where which who why with can our my i this that there these those was were will should must us you your'.split(' '));
const tokens = (text) => (text.toLowerCase().match(/[a-z0-9]+/g) ?? []).filter((t) => !STOP.has(t));

function jsonText(line) {
  try {
    const out = [];
    const walk = (v, k) => {
      if (k === 'uuid' || k === 'id' || k === 'tool_use_id' || k === 'type') return;
      if (typeof v === 'string') out.push(v);
      else if (Array.isArray(v)) v.forEach((x) => walk(x));
      else if (v && typeof v === 'object') for (const [kk, vv] of Object.entries(v)) walk(vv, kk);
    };
    walk(JSON.parse(line).message ?? {});
    return out.join(' ');
  } catch {
    return '';
  }
}

function plainBm25(session, questions) {
  const wanted = new Set(questions.flatMap((q) => tokens(q)));
  const postings = new Map([...wanted].map((t) => [t, []]));
  const docs = []; // [file, line, length]
  const files = [];
  const wm = path.join(session, 'working-memory');
  files.push('overview.md', 'scratch.md');
  for (const n of readdirSync(path.join(wm, 'detail'))) files.push(`detail/${n}`);
  for (const n of readdirSync(path.join(wm, 'archive'))) files.push(`archive/${n}`);
  let totalLen = 0;
  for (const rel of files) {
    const lines = readFileSync(path.join(wm, rel), 'utf8').split('\n');
    lines.forEach((raw, i) => {
      const text = rel.endsWith('.jsonl') ? jsonText(raw) : raw;
      const toks = tokens(text);
      if (!toks.length) return;
      const id = docs.length;
      docs.push([`working-memory/${rel}`, i + 1, toks.length]);
      totalLen += toks.length;
      const tf = new Map();
      for (const t of toks) if (wanted.has(t)) tf.set(t, (tf.get(t) ?? 0) + 1);
      for (const [t, f] of tf) postings.get(t).push([id, f]);
    });
  }
  const N = docs.length;
  const avg = totalLen / N;
  return questions.map((q) => {
    const scores = new Map();
    for (const t of new Set(tokens(q))) {
      const list = postings.get(t);
      const idf = Math.log(1 + (N - list.length + 0.5) / (list.length + 0.5));
      for (const [id, f] of list) scores.set(id, (scores.get(id) ?? 0) + idf * ((f * 2.2) / (f + 1.2 * (0.25 + (0.75 * docs[id][2]) / avg))));
    }
    return [...scores.entries()].sort((a, b) => b[1] - a[1]).slice(0, 10).map(([id]) => docs[id]);
  });
}

// ---- measure ------------------------------------------------------------------------------------
function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

function time(fn) {
  const t = process.hrtime.bigint();
  fn();
  return Number(process.hrtime.bigint() - t) / 1e6;
}

const load = (name, options) => {
  const dir = path.join(WORK, name);
  if (existsSync(path.join(dir, 'meta.json'))) return JSON.parse(readFileSync(path.join(dir, 'meta.json'), 'utf8'));
  process.stderr.write(`generating ${name} data in ${dir}…\n`);
  return generate(dir, options);
};
const speed = load('speed', { detailFiles: 2000, megabytes, linesPerDetail: 25 });
const realistic = load('ranking', { detailFiles: 150, megabytes: 0, linesPerDetail: 12 });

// Recall@1/5/10 and MRR: where does the line holding the fact come up in the top ten?
const isAnswer = (fact, hit) => hit.snippet?.includes(fact.slice(0, 40)) || (hit.resolved ?? []).some((r) => r.snippet.includes(fact.slice(0, 40)));
function recallOn(meta) {
  const top = ALL.map(([, question]) => JSON.parse(run(meta.home, ['search', question, '--limit', '10', '--json'], { cwd: meta.project }).stdout).hits);
  const baseline = plainBm25(meta.session, ALL.map(([, q]) => q));
  const lineOf = new Map();
  const plainHit = (fact, [file, line]) => {
    const key = `${file}:${line}`;
    if (!lineOf.has(key)) lineOf.set(key, readFileSync(path.join(meta.session, file), 'utf8').split('\n')[line - 1] ?? '');
    return lineOf.get(key).includes(fact.slice(0, 40));
  };
  // The 1-based rank of the first answer in a list, or 0 when none of the ten is one.
  const rankOf = (list, isIt) => list.findIndex(isIt) + 1;
  const score = (ranks) => {
    const at = (k) => ranks.filter((r) => r > 0 && r <= k).length;
    const mrr = ranks.reduce((n, r) => n + (r ? 1 / r : 0), 0) / ranks.length;
    return { 'recall@1': `${at(1)}/${ranks.length}`, 'recall@5': `${at(5)}/${ranks.length}`, 'recall@10': `${at(10)}/${ranks.length}`, mrr: Math.round(mrr * 1000) / 1000 };
  };
  const recall = (from, to) => {
    const wmem = [];
    const plain = [];
    const misses = [];
    for (let i = from; i < to; i++) {
      const fact = ALL[i][0];
      wmem.push(rankOf(top[i], (h) => isAnswer(fact, h)));
      plain.push(rankOf(baseline[i], (d) => plainHit(fact, d)));
      if (!wmem[wmem.length - 1] || wmem[wmem.length - 1] > 5) misses.push(ALL[i][1]);
    }
    return { wmem: score(wmem), plainBm25: score(plain), wmemMissesAt5: misses };
  };
  return { tuned: recall(0, FACTS.length), heldOut: recall(FACTS.length, ALL.length) };
}

const wm = path.join(speed.session, 'working-memory');
const detailMB = readdirSync(path.join(wm, 'detail')).reduce((n, f) => n + statSync(path.join(wm, 'detail', f)).size, 0) / 1024 / 1024;
rmSync(path.join(speed.session, 'state', 'search'), { recursive: true, force: true });
const cold = time(() => run(speed.home, ['search', 'warm up the text cache', '--json'], { cwd: speed.project }));
const project = speed.project;
const meta = speed;

// Speed: wmem search vs grep -rF over the same files, interleaved.
const queries = ['payment webhook retries', 'websocket reconnect jitter', 'how often is data backed up', 'cache', 'Okta SSO'];
const grepWord = (q) => q.split(' ').sort((a, b) => b.length - a.length)[0];
const times = { wmem: [], grep: [], wmemCpu: [] };
// CPU time (user + system, by GNU time) beside the wall time: this machine is shared.
const cpuFile = path.join(WORK, 'cpu.txt');
const cpuOf = (args) => {
  spawnSync('/usr/bin/time', ['-f', '%U %S', '-o', cpuFile, 'node', BIN, ...args], { cwd: project, env: { ...process.env, WMEM_HOME: speed.home, NO_COLOR: '1' }, maxBuffer: 64 * 1024 * 1024 });
  return readFileSync(cpuFile, 'utf8').trim().split(/\s+/).slice(-2).reduce((n, x) => n + Number(x) * 1000, 0);
};
for (let r = 0; r < rounds; r++) {
  for (const q of queries) {
    times.wmem.push(time(() => run(speed.home, ['search', q, '--limit', '10'], { cwd: project })));
    if (existsSync('/usr/bin/time')) times.wmemCpu.push(cpuOf(['search', q, '--limit', '10']));
    times.grep.push(time(() => spawnSync('grep', ['-rF', grepWord(q), wm], { maxBuffer: 256 * 1024 * 1024 })));
  }
}
const node0 = median(Array.from({ length: rounds }, () => time(() => execFileSync('node', ['-e', '0']))));
const result = {
  data: { archivesMB: Math.round(meta.archivesMB * 10) / 10, archiveFiles: meta.archives, detailFiles: 2000, detailMB: Math.round(detailMB * 10) / 10 },
  loadAverage: Math.round(os.loadavg()[0] * 10) / 10,
  ms: { wmemColdFirstSearch: Math.round(cold), wmemMedian: Math.round(median(times.wmem)), wmemCpuMedian: Math.round(median(times.wmemCpu)), grepMedian: Math.round(median(times.grep)), nodeStartup: Math.round(node0) },
  ratio: Math.round((median(times.wmem) / median(times.grep)) * 10) / 10,
  ranking: { realisticFolder: { archivesMB: Math.round(realistic.archivesMB * 10) / 10, detailFiles: realistic.detailFiles, ...recallOn(realistic) }, speedFolder: recallOn(speed) },
};
console.log(JSON.stringify(result, null, 2));
emit('search', [
  { what: `wmem search, ${Math.round(meta.archivesMB)} MB (first, index built)`, ms: cold, baseline: 'grep -rF', baselineMs: median(times.grep) },
  { what: 'wmem search (index ready)', ms: median(times.wmem), baseline: 'grep -rF', baselineMs: median(times.grep) },
]);
