// Long conversations with known evidence, for bench/search-recall.mjs. Deterministic from a seed:
// each conversation is one wmem session whose archive/ holds its past sessions (one archived
// messages file per day, Claude Code-shaped lines: a developer and the assistant), filled with
// real sentences from the agent transcripts in test/fixtures (only read). Into them go planted
// facts, one per template: the fact is said once (by the developer or the assistant, inside a
// longer message), a distractor on the same topic but without the answer is said in another
// session, and the question asks for the fact in other words, sharing about one content word with
// it (as people remember a keyword: "the investor demo" → "when do we pitch to the investors").
//
// Templates are split by parity into dev (even) and test (odd): a ranking change may be tried on
// dev questions; the test questions come from templates it never saw.
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

// [speaker, fact with {v}, question, distractor with {v}, values]
export const TEMPLATES = [
  ['user', "Let's go with {v} for the billing service, it handles the invoice tables fine", 'which database engine did we pick for invoicing', 'The database engine for the search cluster is still undecided, {v} maybe', ['Postgres 16', 'CockroachDB', 'MariaDB', 'SQLite', 'DynamoDB', 'Neon', 'MySQL 8', 'Firebird']],
  ['assistant', 'The flaky spec was caused by {v}; I pinned it and the suite is green again', 'why did the spec fail intermittently', 'Tests for the exporter fail when {v} is missing from the fixtures folder', ['a race in the mock clock', 'an unawaited promise in setup', 'the shared tmp directory', 'a stale snapshot', 'port reuse between workers', 'the locale of the runner', 'a leaked timer', 'random ordering of maps']],
  ['user', 'I really dislike {v}, please never add it to this codebase', 'which dependency should never be added', 'We could evaluate {v} for the admin panel later', ['lodash', 'moment.js', 'jQuery', 'axios', 'RxJS', 'class-validator', 'Redux', 'ramda']],
  ['assistant', 'The retry logic now lives in {v}, with exponential backoff capped at 30 seconds', 'where does the retrying code live', 'Calls to the ledger are logged in {v} for auditing', ['src/net/backoff.ts', 'lib/http/retry.ts', 'src/core/resilience.ts', 'pkg/client/again.go', 'app/services/retrier.rb', 'src/utils/attempts.ts', 'server/retry_policy.py', 'src/api/backoff.rs']],
  ['user', 'Heads up: {v} is on parental leave until the end of the quarter', 'which teammate is taking leave', 'The team sync moved because {v} has a dentist appointment', ['Priya', 'Tomasz', 'Aiko', 'Lars', 'Fatima', 'Diego', 'Mei', 'Oluwaseun']],
  ['user', 'The release freeze starts on {v}, nothing merges to main after that', 'when does the code freeze begin', 'Merges to main on {v} need two approvals because of the audit', ['12 June', '3 March', '28 September', '9 January', '15 July', '1 December', '20 April', '6 November']],
  ['assistant', 'The crash came from {v}; the stack trace pointed at the image decoder', 'what caused the crash in the app', 'The app start is slow because of {v} in the image pipeline', ['a null pointer in libpng', 'an out of bounds read', 'a division by zero in resize', 'an unhandled rejection', 'a stack overflow in recursion', 'a double free', 'a corrupted EXIF header', 'a missing codec']],
  ['user', 'Customers on the {v} plan get priority support, answer them first', 'whose support tickets take priority', 'The {v} plan pricing page has a typo in the footer', ['Enterprise', 'Pro', 'Platinum', 'Scale', 'Business', 'Premium', 'Gold', 'Team']],
  ['assistant', 'I bumped the container memory limit to {v} because the worker was getting OOM-killed', 'how much memory does the worker have now', 'The frontend container memory stays around {v} during builds', ['2 GiB', '4 GiB', '768 MiB', '1.5 GiB', '3 GiB', '6 GiB', '512 MiB', '8 GiB']],
  ['user', 'My manager {v} wants the quarterly report by Friday', 'who wants the quarterly numbers', 'Send the design review notes to {v} when you can', ['Helen', 'Marcus', 'Ingrid', 'Rafael', 'Yuki', 'Gwen', 'Samir', 'Olga']],
  ['assistant', 'Done: the nightly backup now goes to {v} and is encrypted with the KMS key', 'where do the nightly copies of our data go', 'Nightly reports are emailed from {v} to the finance list', ['an S3 bucket in eu-west-1', 'Backblaze B2', 'a GCS coldline bucket', 'the NAS in the office', 'Azure Blob storage', 'Wasabi', 'a Hetzner storage box', 'Cloudflare R2']],
  ['user', 'We agreed the API will use {v} for pagination from now on', 'how does the API paginate long lists', 'The result list of the audit log still shows {v} in the header', ['cursor tokens', 'offset and limit', 'keyset pagination', 'page numbers', 'Link headers', 'continuation tokens', 'seek pagination', 'opaque next URLs']],
  ['assistant', 'The slow dashboard query was missing an index on {v}; it went from 9 s to 80 ms', 'why was the dashboard sluggish', 'The reporting screen shows {v} in the wrong time zone', ['orders.created_at', 'events.user_id', 'invoices.account_id', 'sessions.expires_at', 'payments.status', 'logs.tenant_id', 'items.sku', 'visits.day']],
  ['user', 'I moved to {v} last month, so my working hours shifted', 'where did the developer move to', 'Our customer in {v} asked for a demo next week', ['Lisbon', 'Montreal', 'Nairobi', 'Osaka', 'Tallinn', 'Austin', 'Kraków', 'Melbourne']],
  ['assistant', 'Feature flags are read from {v} at startup and cached for five minutes', 'where are the feature toggles read from', 'Startup reads {v} only in the test environment', ['Unleash', 'LaunchDarkly', 'a YAML file in config/', 'the flags table in Postgres', 'ConfigCat', 'environment variables', 'Flagsmith', 'Consul KV']],
  ['user', 'The demo for the investors is on {v}, we need the onboarding flow polished by then', 'when do we pitch to the investors', 'Onboarding emails go out on {v} every week', ['Thursday the 14th', 'the 2nd of May', 'Monday morning', 'the 30th', 'next Wednesday', 'the 11th of August', 'Friday afternoon', 'the 21st']],
  ['assistant', 'The memory leak was {v}; heap snapshots showed it growing per request', 'what was leaking memory', 'The server logs {v} at debug level only', ['an event listener never removed', 'a global cache without eviction', 'closures holding request bodies', 'unclosed database cursors', 'a growing array of timers', 'retained websocket frames', 'a Map keyed by request id', 'unreleased buffers in the parser']],
  ['user', 'For commit messages I want {v}, keep it consistent', 'what style should commit messages follow', 'The changelog for the last release used {v} by accident', ['Conventional Commits', 'the imperative mood', 'a ticket id prefix', 'gitmoji', 'sentence case without a period', 'the Angular style', 'a scope in brackets', 'past tense summaries']],
  ['assistant', 'Switched the CI runners to {v}; builds are about 40 percent faster', 'what do the CI builds run on now', 'The build badge in the readme still links to {v}', ['ARM64 Graviton instances', 'self-hosted Hetzner boxes', 'GitHub large runners', 'Buildkite agents on spot', 'CircleCI xlarge', 'a Mac mini farm', 'GitLab shared runners', 'Depot builders']],
  ['user', 'Our biggest client {v} threatened to churn if the export stays broken', 'which client may churn', 'The export for {v} finished without errors yesterday', ['Acme Logistics', 'Northwind', 'Globex', 'Initech', 'Umbrella Health', 'Stark Retail', 'Wayne Freight', 'Hooli Media']],
  ['assistant', 'Passwords are hashed with {v}; the old SHA-1 hashes are upgraded on next login', 'how are passwords stored', 'User login attempts are rate limited by {v} at the proxy', ['argon2id', 'bcrypt with cost 12', 'scrypt', 'PBKDF2 with 600k rounds', 'argon2i', 'bcrypt with cost 14', 'yescrypt', 'balloon hashing']],
  ['user', 'I prefer {v} for indentation, the formatter config should match', 'how should the code be indented', 'The markdown files use {v} in tables for some reason', ['two spaces', 'tabs', 'four spaces', 'tabs of width 8', 'three spaces', 'a single tab', 'two-space soft tabs', 'hard tabs']],
  ['assistant', 'The deploy broke because {v}; I rolled back to the previous image', 'why did the last rollout fail', 'The previous image still contains {v} in its labels', ['the migration locked the users table', 'a secret was missing in the new namespace', 'the health check path changed', 'the image was built for the wrong arch', 'the config map had a typo', 'DNS had not propagated', 'the disk filled up during pull', 'a readiness probe timed out']],
  ['user', 'Remember that {v} owns the payments domain, ask them before touching it', 'who is responsible for payments', 'The payments dashboard was redesigned by {v} last year', ['the Falcon squad', 'Nadia', 'the platform guild', 'Karim', 'team Orion', 'Beatriz', 'the core billing crew', 'Jonas']],
  ['assistant', 'Translations now load lazily from {v}, one chunk per language', 'where do the localized strings come from at runtime', 'Language detection uses {v} as a fallback', ['/locales on the CDN', 'the i18n service', 'Crowdin OTA', 'a JSON bundle in public/', 'Lokalise', 'the strings table', 'Phrase', 'Transifex']],
  ['user', 'My daughter starts school on {v}, I will be offline that morning', 'when will the developer be offline', 'The school holiday on {v} does not affect the release', ['Monday the 4th', 'the 1st of September', 'Tuesday', 'the 8th', 'next Thursday', 'the 15th', 'Wednesday the 3rd', 'the 22nd']],
  ['assistant', 'Websocket connections are now terminated at {v}, sticky sessions are no longer needed', 'where do realtime links end before reaching the app', 'The realtime dashboard is hosted on {v} as well', ['the Envoy edge', 'an AWS ALB', 'Cloudflare', 'the nginx ingress', 'HAProxy', 'Fly proxy', 'the Traefik gateway', 'a Caddy server']],
  ['user', 'The budget for the new monitoring tool is {v} per month, not more', 'how much can we spend on monitoring', 'The monitoring alerts cost us {v} in overtime last quarter', ['500 euros', '2,000 dollars', '800 pounds', '1,200 euros', '300 dollars', '5,000 dollars', '750 euros', '1,000 francs']],
  ['assistant', 'I replaced the homemade parser with {v}; it handles the quoted commas correctly', 'what parses the comma separated files now', 'The spreadsheet export still uses {v} for dates', ['papaparse', 'csv-parse', 'fast-csv', 'the stdlib csv module', 'd3-dsv', 'csvkit', 'Apache Commons CSV', 'encoding/csv']],
  ['user', 'Legal says we must keep audit records for {v}, no exceptions', 'how long must audit logs be kept', 'Audit records older than {v} are shown greyed out', ['seven years', 'ten years', 'five years', '18 months', 'three years', '400 days', 'six years', 'two years']],
  ['assistant', 'Image thumbnails are generated by {v} in a background queue now', 'what generates the preview pictures', 'The preview page loads {v} from the CDN', ['sharp', 'libvips', 'ImageMagick', 'Thumbor', 'imgproxy', 'Pillow', 'a Lambda with Jimp', 'GraphicsMagick']],
  ['user', 'The office wifi blocks port {v}, so use the VPN for the staging database', 'why can I not reach the test database from work', 'Staging exposes port {v} only to the VPN range', ['5432', '6379', '27017', '3306', '9200', '8443', '5433', '1433']],
  ['assistant', 'Sessions now expire after {v} of inactivity, the refresh token extends them', 'how long does a login last when idle', 'Inactive projects are archived after {v}', ['30 minutes', '15 minutes', '2 hours', '12 hours', '45 minutes', '1 hour', '8 hours', '20 minutes']],
  ['user', 'I broke my wrist skiing, so expect me to type slowly for {v}', 'why is the developer typing slowly', 'Skiing trip photos are in the shared drive for {v}', ['a couple of weeks', 'a month', 'ten days', 'six weeks', 'the rest of the sprint', 'three weeks', 'a while', 'until March']],
  ['assistant', 'Email goes out through {v}; bounces are written to the suppressions table', 'which service sends our email', 'Marketing newsletters were once sent from {v} by hand', ['Postmark', 'SendGrid', 'Amazon SES', 'Mailgun', 'Resend', 'SparkPost', 'Mandrill', 'Brevo']],
  ['user', 'We decided against {v} for the mobile app, the bundle size was too big', 'what did we decide against for the phone app', 'The mobile app analytics use {v} for charts', ['React Native', 'Flutter', 'Ionic', 'NativeScript', 'Xamarin', 'Capacitor', 'Cordova', 'Kotlin Multiplatform']],
  ['assistant', 'The search endpoint now caches results in {v} for 60 seconds', 'where are search answers kept for a minute', 'Search analytics are exported to {v} each night', ['Redis', 'Memcached', 'an in-process LRU', 'Varnish', 'the CDN edge', 'KeyDB', 'Dragonfly', 'Hazelcast']],
  ['user', 'The conference talk about our architecture is at {v}, I still need slides', 'at which conference will the developer speak', 'Slides from {v} last year are in the wiki', ['KubeCon', 'JSConf', 'FOSDEM', 'NodeConf EU', 'QCon London', 'PyCon', 'RustConf', 'DevOpsDays']],
  ['assistant', 'Uploads above {v} are rejected at the proxy with a 413', 'what is the largest upload allowed', 'Logs above {v} are rotated by the proxy', ['25 MB', '10 MB', '100 MB', '50 MB', '5 MB', '2 GB', '200 MB', '15 MB']],
  ['user', 'Our on-call rotation switches every {v}, handover is at 10:00', 'how often does on-call rotate', 'The pager bill is paid every {v}', ['Monday', 'two weeks', 'Wednesday', 'week', 'sprint', 'Friday', 'ten days', 'month']],
];

// mulberry32
export function rng(seed) {
  let s = seed;
  return () => {
    s = (s + 0x6d2b79f5) | 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Sentences from the real transcripts in test/fixtures: the filler around the facts. */
export function realSentences(root) {
  const files = [];
  const walk = (dir) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, e.name);
      if (e.isDirectory()) walk(full);
      else if (e.name.endsWith('.jsonl')) files.push(full);
    }
  };
  walk(path.join(root, 'test', 'fixtures', 'transcripts'));
  const out = new Set();
  const visit = (v, k) => {
    if (k === 'signature' || k === 'data' || k === 'uuid' || k === 'id') return;
    if (typeof v === 'string') {
      for (const piece of v.split(/(?<=[.!?])\s+|\n+/)) if (piece.length >= 40 && piece.length <= 220 && /[a-z]{3,} [a-z]{3,}/.test(piece)) out.add(piece.trim());
    } else if (Array.isArray(v)) v.forEach((x) => visit(x));
    else if (v && typeof v === 'object') for (const [kk, vv] of Object.entries(v)) visit(vv, kk);
  };
  for (const f of files.sort()) {
    for (const line of readFileSync(f, 'utf8').split('\n')) {
      try {
        visit(JSON.parse(line));
      } catch {
        /* not JSON */
      }
    }
  }
  return [...out];
}

/**
 * Writes conversation `c` (its archived sessions) into `archiveDir`; returns its questions with
 * the evidence (archive file name and line).
 */
export function writeConversation(archiveDir, c, sentences, { sessions = 24, messagesPerSession = 60, seed = 7 } = {}) {
  const rand = rng(seed * 1000 + c);
  const pick = (list) => list[Math.floor(rand() * list.length)];
  const days = Array.from({ length: sessions }, (_, s) => new Date(Date.UTC(2026, 0, 5) + (s * 3 + (c % 3)) * 86_400_000));
  // Each session: messages of 1–4 filler sentences, alternating developer and assistant.
  const plan = days.map(() => Array.from({ length: messagesPerSession }, (_, m) => ({ role: m % 2 ? 'assistant' : 'user', parts: Array.from({ length: 1 + Math.floor(rand() * 4) }, () => pick(sentences)) })));
  const questions = [];
  TEMPLATES.forEach(([speaker, fact, question, distractor, values], t) => {
    const value = values[c % values.length];
    const other = values[(c + 3) % values.length];
    const place = (text, role) => {
      const s = Math.floor(rand() * sessions);
      const candidates = plan[s].map((msg, m) => ({ msg, m })).filter(({ msg }) => msg.role === role && !msg.planted);
      const { msg, m } = pick(candidates);
      msg.planted = true;
      msg.parts.splice(Math.floor(rand() * (msg.parts.length + 1)), 0, `${text}.`);
      return { s, m };
    };
    const where = place(fact.replace('{v}', value), speaker);
    place(distractor.replace('{v}', other), pick(['user', 'assistant']));
    questions.push({ template: t, split: t % 2 ? 'test' : 'dev', conversation: c, question, answer: value, where });
  });
  const files = days.map((day) => `messages-${day.toISOString().replace(/[-:]/g, '').replace('.', '')}.jsonl`);
  mkdirSync(archiveDir, { recursive: true });
  plan.forEach((messages, s) => {
    const lines = messages.map((msg, m) => {
      const timestamp = new Date(days[s].getTime() + 9 * 3_600_000 + m * 90_000).toISOString();
      const text = msg.parts.join(' ');
      return JSON.stringify(msg.role === 'user' ? { type: 'user', timestamp, message: { role: 'user', content: text } } : { type: 'assistant', timestamp, message: { id: `msg_${c}_${s}_${m}`, role: 'assistant', content: [{ type: 'text', text }] } });
    });
    writeFileSync(path.join(archiveDir, files[s]), lines.join('\n') + '\n');
  });
  // The evidence: the archived line (1-based) holding the fact.
  return questions.map((q) => ({ ...q, file: files[q.where.s], line: q.where.m + 1 }));
}
