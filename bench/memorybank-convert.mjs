// Builds bench/data/memorybank-en.json, the real-conversation set bench/search-recall.mjs reads,
// from MemoryBank-SiliconFriend's English evaluation data (MIT; see bench/data/SOURCES.md):
// 15 users, each with 10 daily sessions of chat with an AI companion (2023-04-27 … 05-06), and the
// authors' probing questions (7 or fewer per user) asked after those ten days.
//
//   node bench/memorybank-convert.mjs <memory_bank_en.json> <probing_questions_en.jsonl>
//
// The authors publish no evidence for their questions, so EVIDENCE below marks, for each question,
// the turns ("MM-DD#n", the n-th query/response pair of that day, 0-based) that answer it; it was
// written by reading the conversations once, before any ranking was measured on them. A question
// the conversations cannot answer (John Zhang has no session on May 5th) is left out.
// Dev/test: users sorted by the SHA-1 of their name, alternately dev and test (fixed, and blind to
// the ranking).
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const EVIDENCE = {
  Emily: [['04-30#3'], ['05-01#0'], ['05-03#2'], ['04-28#1'], ['04-30#1', '04-30#2'], ['05-02#1'], ['05-04#1']],
  Frank: [['04-27#2'], ['04-28#8'], ['04-29#1'], ['05-05#1', '05-05#2'], ['05-06#1'], ['04-30#1'], ['04-28#2']],
  Lucy: [['04-27#3'], ['04-29#1', '04-29#2'], ['04-28#1'], ['04-30#1'], ['05-03#0', '04-30#2'], ['05-02#1'], ['04-28#1']],
  Sunny: [['04-28#1'], ['04-27#3', '04-27#4'], ['05-03#1'], ['05-01#1'], ['04-27#2'], ['04-30#1'], ['05-04#0']],
  Jason: [['04-28#2'], ['04-29#3'], ['04-28#1', '04-28#2'], ['04-27#4'], ['05-01#1'], ['05-02#3'], ['05-04#1']],
  Linda: [['05-06#1'], ['05-06#1', '05-06#3'], ['04-27#2'], ['04-28#2', '04-28#3'], ['05-02#1'], ['05-01#1'], ['05-04#1']],
  'John Zhang': [['04-28#1'], ['04-29#0', '04-29#1'], ['04-28#2'], ['04-30#0'], null, ['05-04#0'], ['05-06#0']],
  Ivy: [['04-27#1', '04-27#2'], ['05-06#1', '05-06#2'], ['05-02#0'], ['04-28#2'], ['04-27#3'], ['05-05#0'], ['05-02#0']],
  Henry: [['04-27#1'], ['04-30#0'], ['04-30#1'], ['05-04#1'], ['05-06#1'], ['04-28#2'], ['05-02#0']],
  Gary: [['04-28#2'], ['05-04#0'], ['05-05#1'], ['05-04#1'], ['05-02#0', '05-02#1'], ['04-30#0'], ['05-03#0']],
  Jack: [['04-27#2'], ['04-27#2'], ['05-05#2'], ['04-30#1'], ['05-03#1'], ['05-02#1'], ['05-04#0']],
  Roland: [['04-30#1', '04-30#5'], ['04-30#2', '04-30#6'], ['04-30#1', '04-30#2', '04-30#5', '04-30#6'], ['05-02#1'], ['04-28#1', '04-28#2'], ['04-27#2']],
  Susan: [['04-27#1', '04-27#2'], ['04-27#2'], ['04-30#1'], ['04-29#1'], ['05-04#1']],
  Luna: [['04-28#1', '04-28#2'], ['04-30#1'], ['05-04#0'], ['05-03#2'], ['04-28#4']],
  Leo: [['04-27#2'], ['05-02#1'], ['05-02#2'], ['05-03#1'], ['05-03#1'], ['05-04#1'], ['05-06#0', '05-06#1']],
};

const [memoryFile, questionsFile] = process.argv.slice(2);
if (!memoryFile || !questionsFile) {
  console.error('usage: node bench/memorybank-convert.mjs <memory_bank_en.json> <probing_questions_en.jsonl>');
  process.exit(2);
}
const memory = JSON.parse(readFileSync(memoryFile, 'utf8'));
const asked = {};
for (const line of readFileSync(questionsFile, 'utf8').split('\n').filter(Boolean)) for (const [user, list] of Object.entries(JSON.parse(line))) asked[user.trim()] = list;

const conversations = [];
const questions = [];
const sha = (user) => createHash('sha1').update(user).digest('hex');
const order = Object.keys(memory).map((k) => k.trim()).sort((a, b) => (sha(a) < sha(b) ? -1 : 1));
for (const [key, entry] of Object.entries(memory)) {
  const user = key.trim();
  const split = order.indexOf(user) % 2 ? 'test' : 'dev';
  const sessions = Object.entries(entry.history).map(([date, turns]) => ({ date, turns: turns.map((t) => ({ user: t.query.trim(), assistant: t.response.trim() })) }));
  conversations.push({ user, split, sessions });
  const marks = EVIDENCE[user];
  if (!marks || marks.length !== asked[user].length) throw new Error(`evidence for ${user}: ${marks?.length} marks for ${asked[user].length} questions`);
  asked[user].forEach((raw, i) => {
    if (!marks[i]) return;
    const evidence = marks[i].map((m) => {
      const [, md, n] = /^(\d\d-\d\d)#(\d+)$/.exec(m);
      const s = sessions.find((x) => x.date.endsWith(md));
      if (!s || !s.turns[Number(n)]) throw new Error(`${user}: no turn ${m}`);
      return { date: s.date, turn: Number(n) };
    });
    questions.push({ user, split, question: raw.trim().replace(/^"|"$/g, ''), evidence });
  });
}
const out = path.join(path.dirname(fileURLToPath(import.meta.url)), 'data', 'memorybank-en.json');
writeFileSync(out, JSON.stringify({ source: 'zhongwanjun/MemoryBank-SiliconFriend eval_data/en (MIT)', conversations, questions }, null, 1) + '\n');
const count = (s) => questions.filter((q) => q.split === s).length;
console.error(`${out}: ${conversations.length} conversations, ${questions.length} questions (dev ${count('dev')}, test ${count('test')})`);
