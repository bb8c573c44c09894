// Builds bench/data/realtalk.json, the third real-conversation set bench/search-recall.mjs reads,
// from REALTALK (Lee et al., "REALTALK: A 21-Day Real-World Dataset for Long-Term Conversation",
// arXiv 2502.13270; github.com/danny911kr/REALTALK, no licence stated: see bench/data/SOURCES.md):
// ten real messaging-app chats between two people over 21 days, and the authors' memory-probing
// questions with the messages that answer them (`qa[].evidence`, dia_ids like "D3:69").
//
//   node bench/realtalk-convert.mjs <REALTALK>/data     (the ten Chat_<n>_<a>_<b>.json at its top)
//
// Only the top-level Chat_*.json files are read. LoCoMo is held out of this project (it checks the
// result and must never be read or tuned on): the REALTALK repository ships a copy of it in
// data/locomo/, so any path naming "locomo" is refused.
//
// Shape: one conversation one wmem session, one messages file per REALTALK session (its
// session_N_date_time), each message one line "<speaker>: <clean_text>". A chat between two people
// has no assistant: in a wmem archive the assistant is the model, and both writers here are people,
// so every message is a user line and the speaker's name, in the text, says who wrote it. (Mapping
// one person to the assistant instead was measured too: bench/README.md.) Read: sessions, dates, speaker,
// clean_text, qa.question, qa.category, qa.evidence; never `answer`, events_session_*, or images.
// Evidence: dia_ids are looked up by id (their numbering does not follow session numbers:
// session_4 may start at D3:30); the authors' spellings ("D13:4. D14:4", "D5:12;D5:16",
// "D12:3-D12:5", "D 2:18") are split, and ranges in one session expanded. An id no message holds
// (messages that were only a picture were dropped by the authors) is left out; a question with no
// evidence left is left out (counted).
// Dev/test: conversations sorted by the SHA-1 of the file name, alternately dev and test.
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const dir = process.argv[2];
if (!dir) {
  console.error('usage: node bench/realtalk-convert.mjs <REALTALK>/data   (the folder holding Chat_<n>_<a>_<b>.json)');
  process.exit(2);
}
const HELD_OUT = (p) => /locomo/i.test(p);
if (HELD_OUT(path.resolve(dir))) {
  console.error(`${dir}: refused: LoCoMo is held out of this project (it checks the result; never read or tuned on). Give the folder of REALTALK's own Chat_*.json files.`);
  process.exit(2);
}
const sha = (text) => createHash('sha1').update(text).digest('hex');
const clean = (text) => String(text ?? '').replace(/\s+/g, ' ').trim();
// "DD.MM.YYYY, HH:MM:SS" → ISO (UTC: the chats carry no zone).
function isoOf(text, where) {
  const m = /^(\d{2})\.(\d{2})\.(\d{4}),\s*(\d{2}):(\d{2}):(\d{2})$/.exec(String(text).trim());
  if (!m) throw new Error(`${where}: date "${text}" is not DD.MM.YYYY, HH:MM:SS`);
  return `${m[3]}-${m[2]}-${m[1]}T${m[4]}:${m[5]}:${m[6]}.000Z`;
}
/** The dia_ids an evidence entry names, in the authors' spellings. */
function evidenceIds(entry) {
  const out = [];
  const text = String(entry).replace(/D\s+(\d)/g, 'D$1');
  for (const part of text.split(/[;,\s]+|\.(?=\s|$)|(?<=\d):(?=D)/)) {
    const range = /^D(\d+):(\d+)\s*-\s*D?(\d+):?(\d+)?\.?$/.exec(part);
    if (range && (range[4] === undefined || range[1] === range[3])) {
      const to = Number(range[4] ?? range[3]);
      for (let n = Number(range[2]); n <= to; n++) out.push(`D${range[1]}:${n}`);
      continue;
    }
    const one = /^D(\d+):(\d+)\.?$/.exec(part);
    if (one) out.push(`D${one[1]}:${one[2]}`);
    else if (part.trim()) {
      // "D12:11-D12:14;D13:25-…" splits above; a range across sessions names its two ends.
      for (const m of part.matchAll(/D(\d+):(\d+)/g)) out.push(`D${m[1]}:${m[2]}`);
    }
  }
  return out;
}

let names;
try {
  names = readdirSync(dir);
} catch (err) {
  console.error(`${dir}: cannot be read (${err.code ?? err.message}): give the folder of REALTALK's Chat_*.json files`);
  process.exit(2);
}
const files = names.filter((f) => /^Chat_\d+_.+\.json$/.test(f) && !HELD_OUT(f)).sort((a, b) => sha(a).localeCompare(sha(b)));
if (files.length !== 10) console.error(`${dir}: ${files.length} Chat_*.json files (REALTALK has ten)`);
const conversations = [];
const questions = [];
let leftOut = 0;
let idsLeftOut = 0;
files.forEach((file, f) => {
  const split = f % 2 ? 'test' : 'dev';
  const data = JSON.parse(readFileSync(path.join(dir, file), 'utf8'));
  const user = file.replace(/\.json$/, '');
  const numbers = Object.keys(data).map((k) => /^session_(\d+)$/.exec(k)?.[1]).filter(Boolean).map(Number).sort((a, b) => a - b);
  const where = new Map();
  const sessions = numbers.map((n, s) => {
    const date = isoOf(data[`session_${n}_date_time`], `${file} session_${n}_date_time`);
    const lines = [];
    for (const m of data[`session_${n}`]) {
      const text = clean(m.clean_text);
      if (!text) continue;
      where.set(m.dia_id, { session: s, line: lines.length });
      lines.push({ role: 'user', text: `${clean(m.speaker)}: ${text}` });
    }
    return { date, lines };
  });
  conversations.push({ user, split, sessions });
  for (const q of data.qa) {
    const ids = (q.evidence ?? []).flatMap(evidenceIds);
    const evidence = [...new Set(ids)].map((id) => where.get(id)).filter(Boolean);
    idsLeftOut += new Set(ids).size - evidence.length;
    if (!evidence.length) {
      leftOut++;
      continue;
    }
    questions.push({ user, split, question: clean(q.question), category: q.category, evidence });
  }
});

const out = path.join(path.dirname(fileURLToPath(import.meta.url)), 'data', 'realtalk.json');
const source = 'REALTALK (github.com/danny911kr/REALTALK, commit b903e06a9770bf4e5fe9018c3e132889666d3b4a, no licence stated; not redistributed); see bench/data/SOURCES.md';
writeFileSync(out, JSON.stringify({ source, conversations, questions }) + '\n');
const count = (s) => questions.filter((q) => q.split === s).length;
console.log(`${out}: ${conversations.length} conversations, ${conversations.reduce((n, c) => n + c.sessions.length, 0)} sessions, ${questions.length} questions (dev ${count('dev')}, test ${count('test')}); left out: ${leftOut} questions with no evidence found, ${idsLeftOut} evidence ids no message holds`);
