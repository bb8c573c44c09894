// Builds bench/data/prefeval-choice.json, the second real-conversation set bench/search-recall.mjs
// reads, from PrefEval's implicit, choice-based preferences (CC BY-NC 4.0; see bench/data/SOURCES.md).
// Each of the authors' records pairs a short conversation in which the user reveals a preference by
// what they pick (the assistant offers options, the user takes one and says why not the others)
// with a later question whose good answer depends on that preference. The pairing is the
// authors': the record's conversation is the question's evidence, nothing here is marked by us.
//
//   node bench/prefeval-convert.mjs <PrefEval>/benchmark_dataset/implicit_preference/choice-based
//
// Shape: one person per topic file (20), one session a day per record (both turns of its
// conversation), days in the order of the SHA-1 of the record's question, so where a session sits
// says nothing of its question. Every question is asked after all of its person's days.
// Dev/test: topics sorted by the SHA-1 of their name, alternately dev and test (fixed, blind to the
// ranking).
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const dir = process.argv[2];
if (!dir) {
  console.error('usage: node bench/prefeval-convert.mjs <PrefEval>/benchmark_dataset/implicit_preference/choice-based');
  process.exit(2);
}
const sha = (text) => createHash('sha1').update(text).digest('hex');
const clean = (text) => String(text).replace(/\s+/g, ' ').trim();
const day = (n) => new Date(Date.UTC(2024, 0, 1) + n * 86_400_000).toISOString().slice(0, 10);

const topics = readdirSync(dir).filter((f) => f.endsWith('.json')).map((f) => f.slice(0, -5)).sort((a, b) => sha(a).localeCompare(sha(b)));
const conversations = [];
const questions = [];
topics.forEach((topic, t) => {
  const split = t % 2 ? 'test' : 'dev';
  const records = JSON.parse(readFileSync(path.join(dir, `${topic}.json`), 'utf8'));
  // A question asked twice in a topic would have two evidence sessions: keep its first record only.
  const seen = new Set();
  const kept = records.filter((r) => !seen.has(r.question) && seen.add(r.question)).sort((a, b) => sha(a.question).localeCompare(sha(b.question)));
  const sessions = kept.map((r, n) => ({
    date: day(n),
    turns: [
      { user: clean(r.conversation.query), assistant: clean(r.conversation.assistant_options) },
      { user: clean(r.conversation.user_selection), assistant: clean(r.conversation.assistant_acknowledgment) },
    ],
  }));
  conversations.push({ user: topic, split, sessions });
  kept.forEach((r, n) => questions.push({ user: topic, split, question: clean(r.question), evidence: [{ date: day(n), turn: 0 }, { date: day(n), turn: 1 }] }));
});

const out = path.join(path.dirname(fileURLToPath(import.meta.url)), 'data', 'prefeval-choice.json');
const source = 'PrefEval (github.com/amazon-science/PrefEval, CC BY-NC 4.0), implicit_preference/choice-based; see bench/data/SOURCES.md';
writeFileSync(out, JSON.stringify({ source, conversations, questions }) + '\n');
console.log(`${out}: ${conversations.length} people, ${conversations.reduce((n, c) => n + c.sessions.length, 0)} sessions, ${questions.length} questions (dev ${questions.filter((q) => q.split === 'dev').length}, test ${questions.filter((q) => q.split === 'test').length})`);
