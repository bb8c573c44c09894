// Pure: words for search and for pointer keywords — tokenizing (Latin words, numbers, CJK
// characters as bigrams), a light English stemmer, stopwords, and distinctive keywords.
import { entryOf } from '../ui/json.js';

export const STOPWORDS = new Set(
  (
    'a an and are as at be been but by can could did do does doing done for from had has have how i if in into is it its ' +
    'me my no not of on or our out so than that the their them then there these they this those to too up us was we were ' +
    'what when where which while who whom why will with would you your yours about after again all also am any because ' +
    'before being below between both each few further here just more most much must need now only other over own same ' +
    'should some such through under until very via want wants wanted get got use used using make made know tell say said ' +
    'one thing things way ever still yet'
  ).split(' '),
);

/** Whitespace other than single plain spaces: what `.replace(/\s+/g, ' ')` would change. */
const UNEVEN_SPACE = /\s\s|[^\S ]/;

/**
 * Runs of whitespace made one space, and the ends trimmed, without a copy when already so: the
 * search text of every archived line goes through it, and a global replace copies the line even
 * when nothing changes (the largest single cost of extracting a line's text, in a profile).
 */
export function oneSpaced(text: string): string {
  return (UNEVEN_SPACE.test(text) ? text.replace(/\s+/g, ' ') : text).trim();
}

const CJK = /[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]/u;
// The apostrophe ’ spelled \u2019 here and in search-shape.ts: esbuild escapes non-ASCII in strings
// (its default charset) but leaves regular expression literals as written, and an ASCII bundle is
// a one-byte string for V8 (fast-search.cjs: bench/README.md, sstart20).
const TOKEN = /[\p{L}\p{N}]+(?:['\u2019][\p{L}]+)?/gu;

/**
 * A light English stemmer: folds the inflections that separate a question's words from a note's
 * (deploys/deployed/deploying → deploy, failures → failur, configuration → configur). Not
 * Porter: fewer rules, no surprises on code identifiers.
 */
// Irregular verbs: the past tense a note is written in, the present a question asks in.
export const IRREGULAR: Readonly<Record<string, string>> = {
  kept: 'keep', ran: 'run', chose: 'choose', chosen: 'choose', broke: 'break', broken: 'break', sent: 'send', built: 'build',
  made: 'make', went: 'go', gone: 'go', wrote: 'write', written: 'write', found: 'find', took: 'take', taken: 'take',
  gave: 'give', given: 'give', held: 'hold', paid: 'pay', lost: 'lose', left: 'leave', began: 'begin', begun: 'begin',
  got: 'get', gotten: 'get', thought: 'think', brought: 'bring', bought: 'buy', caught: 'catch', sold: 'sell',
  told: 'tell', said: 'say', saw: 'see', seen: 'see', knew: 'know', known: 'know', rode: 'ride', spent: 'spend',
  felt: 'feel', meant: 'mean', met: 'meet', led: 'lead', fed: 'feed', hid: 'hide', hidden: 'hide', shown: 'show',
  fell: 'fall', fallen: 'fall', grew: 'grow', grown: 'grow', threw: 'throw', thrown: 'throw', drew: 'draw', drawn: 'draw',
  stood: 'stand', understood: 'understand', forgot: 'forget', forgotten: 'forget', froze: 'freeze', frozen: 'freeze',
  children: 'child', data: 'data', indices: 'index', indexes: 'index', analyses: 'analysis', queries: 'query',
};

/**
 * The irregular words whose stem is `term` (kept → keep): a search looks for these too. An
 * irregular word's stem starts with its base's first letter (stem() rewrites only a word's end),
 * so only those words are stemmed, not the whole table (relatedStems in search.ts does the same).
 */
export function irregularForms(term: string): string[] {
  const out: string[] = [];
  for (const [word, base] of Object.entries(IRREGULAR)) if (base[0] === term[0] && stem(word) === term) out.push(word);
  return out;
}

/**
 * The first letters (lowercase) a word may have when its stem starts with one of `initials`:
 * stem() rewrites only a word's end, so a word keeps its first letter, except an irregular one
 * (went → go). The proximity boost skips the other words of a line unread.
 */
export function stemInitials(initials: string): string {
  let out = initials;
  for (const [word, base] of Object.entries(IRREGULAR)) if (initials.includes(base[0]) && !out.includes(word[0])) out += word[0];
  return out;
}

/** Suffixes stem() strips, the first that matches (made once: a search stems thousands of words). */
const STEM_RULES: readonly [RegExp, string][] = [
  [/ational$/, 'ate'],
  [/(?:ization|isation)$/, 'ize'],
  [/ations?$/, 'ate'],
  [/fulness$/, 'ful'],
  [/iveness$/, 'ive'],
  [/ousness$/, 'ous'],
  [/ments?$/, ''],
  [/ness$/, ''],
  [/ingly$/, ''],
  [/edly$/, ''],
  [/ing$/, ''],
  [/ed$/, ''],
  [/ers?$/, ''],
  [/ly$/, ''],
  [/ion$/, ''],
  [/ity$/, ''],
  [/able$/, ''],
  [/ible$/, ''],
  [/ive$/, ''],
  [/ize$/, ''],
  [/ise$/, ''],
  [/ate$/, ''],
  [/al$/, ''],
  [/e$/, ''],
];

export function stem(word: string): string {
  let w = word.toLowerCase();
  // Own keys only: 'constructor' is no irregular word (its inherited value, Object, was a stem).
  const irregular = entryOf(IRREGULAR, w);
  if (irregular) w = irregular;
  if (w.length <= 3 || /\d/.test(w) || CJK.test(w)) return w;
  w = w.replace(/['\u2019]s$/, '');
  if (w.endsWith('ies') && w.length > 4) w = w.slice(0, -3) + 'y';
  else if (w.endsWith('sses')) w = w.slice(0, -2);
  else if (w.endsWith('s') && !w.endsWith('ss') && !w.endsWith('us') && !w.endsWith('is') && w.length > 3) w = w.slice(0, -1);
  let stripped = false;
  for (const [pattern, replacement] of STEM_RULES) {
    if (!pattern.test(w)) continue;
    const next = w.replace(pattern, replacement);
    if (next.length >= 3) {
      stripped = next !== w;
      w = next;
    }
    break;
  }
  // runn-ing, stopp-ed: undouble a final consonant pair left by a suffix.
  if (stripped && /([bdfgkmnprt])\1$/.test(w)) w = w.slice(0, -1);
  // authenticate / authenticated: a final e never tells two words apart.
  if (w.length > 4 && w.endsWith('e')) w = w.slice(0, -1);
  return w;
}

/** Raw word tokens in order (lowercased); CJK runs become overlapping bigrams. */
export function words(text: string): string[] {
  const out: string[] = [];
  for (const match of text.toLowerCase().matchAll(TOKEN)) {
    const token = match[0];
    if (CJK.test(token)) {
      const chars = [...token];
      if (chars.length === 1) out.push(token);
      for (let i = 0; i + 1 < chars.length; i++) out.push(chars[i] + chars[i + 1]);
    } else {
      out.push(token);
    }
  }
  return out;
}

/** Index terms: stems of the words that are not stopwords. */
export function terms(text: string): string[] {
  const out: string[] = [];
  for (const w of words(text)) if (!STOPWORDS.has(w) && (w.length > 1 || /\d/.test(w))) out.push(stem(w));
  return out;
}

/**
 * A few distinctive words of `lines` for a pointer (`search: \`…\``): frequent, not stopwords,
 * preferring words that look like names (capitals, digits, dots or dashes inside), in the order
 * they first appear.
 */
export function keywordsOf(lines: string[], count = 4): string[] {
  const seen = new Map<string, { word: string; score: number; first: number }>();
  let position = 0;
  for (const line of lines) {
    for (const match of line.matchAll(/[\p{L}\p{N}][\p{L}\p{N}._-]*[\p{L}\p{N}]|[\p{L}]/gu)) {
      const word = match[0];
      const lower = word.toLowerCase();
      if (STOPWORDS.has(lower) || lower.length < 3 || /^\d+$/.test(lower) || /^(?:past|search|importance|note|notes)$/.test(lower)) continue;
      const key = stem(lower);
      const nameLike = /[A-Z]/.test(word.slice(1)) || /^[A-Z]{2,}/.test(word) || /[._-]/.test(word) || /\d/.test(word) ? 1.5 : 0;
      const entry = seen.get(key) ?? { word, score: 0, first: position++ };
      entry.score += 1 + nameLike + Math.min(word.length, 12) / 24;
      seen.set(key, entry);
    }
  }
  return [...seen.values()]
    .sort((a, b) => b.score - a.score || a.first - b.first)
    .slice(0, count)
    .sort((a, b) => a.first - b.first)
    .map((e) => e.word);
}
