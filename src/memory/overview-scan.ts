// A line scanner for the overview.md that wmem and agents write: plain lines, list items, "## "
// headings and the template's <!-- guidance --> comments. For such text it finds what remark and
// gray-matter would (the level-2 headings with their offsets and titles, the guidance after each,
// the front matter's data) in microseconds instead of a Markdown parse of ~40 ms and ~60 ms of
// loading per hook. Anything it does not model exactly (a code fence, other HTML, a setext
// underline, an indented heading, a link definition, a title with inline markup, front matter
// beyond flat keys and one level of { key: value } maps) makes it answer undefined, and the
// caller parses with remark and gray-matter as before. test/unit/overview-scan.test.ts holds it
// to remark's and gray-matter's answers on generated documents.

export interface ScannedHeading {
  /** Offsets into the body: the heading line's start and end (before its line feed). */
  start: number;
  end: number;
  /** Where the leading guidance comments after the heading end (= end when there are none). */
  guidanceEnd: number;
  title: string;
}

// Printable non-ASCII text that no Markdown or YAML construct starts with and neither trims:
// no C1 controls, no Unicode spaces or line separators, no BOM. Spelled as ranges: a \p{L}
// class costs a hook ~10 ms to compile.
const WIDE = '\\u00A1-\\u167F\\u1681-\\u1FFF\\u200B-\\u2027\\u202A-\\u202E\\u2030-\\u205E\\u2060-\\u2FFF\\u3001-\\uFEFE\\uFF00-\\uFFFD';
// A title remark reads as its own text: letters, digits, spaces and punctuation that opens no
// inline construct (no * _ ` [ ] < > & \ ! #), starting with a letter or digit, not ending in a space.
const PLAIN_TITLE = new RegExp(`^[A-Za-z0-9${WIDE}](?:[A-Za-z0-9${WIDE} ,.'"()/:;?+-]*[A-Za-z0-9${WIDE},.'"()/:;?+-])?$`);

/** What a line is to the top level, or 'unsure' when only a Markdown parser can tell. */
function lineKind(line: string): 'heading' | 'comment' | 'plain' | 'unsure' {
  if (line.startsWith('## ')) return PLAIN_TITLE.test(line.slice(3).replace(/^ +/, '')) ? 'heading' : 'unsure';
  if (line.startsWith('<!--')) return line.startsWith('<!-->') || line.startsWith('<!---') ? 'unsure' : 'comment';
  if (/^##(?:[\t#]|$)/.test(line) && !line.startsWith('###')) return 'unsure';
  if (/^ {0,3}[<[]/.test(line) || /^ {1,3}#/.test(line) || /^ *\t/.test(line)) return 'unsure';
  // A setext underline (or a thematic break, or an empty list item: not worth telling apart).
  if (/^ {0,3}(?:=+|-+)[ \t]*$/.test(line)) return 'unsure';
  if (line.includes('```') || line.includes('~~~')) return 'unsure';
  return 'plain';
}

/** The top-level level-2 headings of a Markdown body as remark sees them, or undefined. */
export function scanHeadings(body: string): ScannedHeading[] | undefined {
  // A byte order mark (remark strips it and counts offsets without it) and blank-looking lines
  // that Markdown does not call blank (only spaces and tabs are) are the parser's to read.
  if (body.includes('\r') || body.includes('\0') || body.includes('\uFEFF') || /^[ \t]*[^\S \t\n][\s]*$/m.test(body)) return undefined;
  const headings: ScannedHeading[] = [];
  // The heading whose guidance is still being read: only comments and blank lines continue it.
  let open: ScannedHeading | undefined;
  let at = 0;
  while (at <= body.length) {
    const nl = body.indexOf('\n', at);
    const lineEnd = nl === -1 ? body.length : nl;
    const line = body.slice(at, lineEnd);
    const kind = lineKind(line);
    if (kind === 'unsure') return undefined;
    if (kind === 'heading') {
      open = { start: at, end: lineEnd, guidanceEnd: lineEnd, title: line.slice(3).trim() };
      headings.push(open);
    } else if (kind === 'comment') {
      // An HTML comment block runs to the line holding "-->", whatever lies between.
      const close = body.indexOf('-->', at + 4);
      if (close === -1) return undefined;
      const closeNl = body.indexOf('\n', close);
      const blockEnd = closeNl === -1 ? body.length : closeNl;
      if (open && /-->$/.test(body.slice(at, blockEnd).trimEnd())) open.guidanceEnd = blockEnd;
      else open = undefined;
      if (closeNl === -1) break;
      at = closeNl + 1;
      continue;
    } else if (line.trim() !== '') {
      open = undefined;
    }
    if (nl === -1) break;
    at = nl + 1;
  }
  return headings;
}

/**
 * Whether the text holds a top-level heading of level 1 or 2: false when no line could start
 * one (an ATX "#"/"##" within three spaces, or a setext underline), undefined when one might.
 */
export function mayHoldSectionHeading(text: string): false | undefined {
  // remark drops a byte order mark before the first line: "\uFEFF## Task" is a heading to it.
  return text.includes('\uFEFF') || /^ {0,3}#{1,2}(?:[ \t]|$)/m.test(text) || /^ {0,3}(?:=+|-+)[ \t]*$/m.test(text) ? undefined : false;
}

// Words YAML reads as a plain string: no indicator, no number (a first letter), single spaces.
const SCALAR_WORDS = new RegExp(`^[A-Za-z${WIDE}][A-Za-z0-9${WIDE}]*(?: [A-Za-z0-9${WIDE}]+)*$`);
// Plain scalars YAML reads as something other than a string (js-yaml's core schema and YAML 1.1's).
const NOT_A_STRING = /^(?:null|true|false|yes|no|on|off|y|n)$/i;
const KEY = /^[A-Za-z][\w-]*$/;
const NO = Symbol('no');

function scalar(text: string): unknown {
  if (/^(?:0|[1-9][0-9]{0,8})$/.test(text)) return Number(text);
  if (text === 'true' || text === 'false') return text === 'true';
  return SCALAR_WORDS.test(text) && !NOT_A_STRING.test(text) ? text : NO;
}

/** `{ a: 1, b: word }` with plain scalars, or NO. */
function flowMap(text: string): unknown {
  const m = /^\{ *(.*?) *\}$/.exec(text);
  if (!m) return scalar(text);
  const out: Record<string, unknown> = {};
  if (m[1] === '') return out;
  for (const part of m[1].split(',')) {
    const kv = /^ *([A-Za-z][\w-]*): +(.*?) *$/.exec(part);
    if (!kv || Object.hasOwn(out, kv[1])) return NO;
    const value = scalar(kv[2]);
    if (value === NO) return NO;
    out[kv[1]] = value;
  }
  return out;
}

/** A front matter block of `key: value` lines and `key:` with two-space `id: value` lines under it. */
function yamlSubset(block: string): Record<string, unknown> | undefined {
  const data: Record<string, unknown> = {};
  let nested: Record<string, unknown> | undefined;
  for (const line of block.split('\n')) {
    if (line === '') continue;
    const top = /^([^ ].*?):(?: +(.*))?$/.exec(line);
    const inner = top ? undefined : /^ {2}([^ ].*?): +(.*)$/.exec(line);
    const [key, raw] = top ? [top[1], top[2]] : inner ? [inner[1], inner[2]] : [];
    if (key === undefined || !KEY.test(key)) return undefined;
    const into = top ? data : nested;
    if (!into || Object.hasOwn(into, key)) return undefined;
    if (top && raw === undefined) {
      nested = data[key] = {};
      continue;
    }
    if (top) nested = undefined;
    const value = flowMap(raw!);
    if (value === NO) return undefined;
    into[key] = value;
  }
  // A `key:` with nothing under it is null to YAML: left to js-yaml.
  return Object.values(data).some((v) => v !== null && typeof v === 'object' && Object.keys(v).length === 0) ? undefined : data;
}

/**
 * The front matter as gray-matter splits and reads it (raw block with fences, data, body), or
 * undefined when the text starts with a front matter this subset does not read.
 */
export function scanFrontMatter(text: string): { raw: string; data: Record<string, unknown>; body: string } | undefined {
  if (!text.startsWith('---\n')) return undefined;
  const close = text.indexOf('\n---', 3);
  if (close === -1) return undefined;
  const data = yamlSubset(text.slice(4, close));
  if (!data) return undefined;
  let body = text.slice(close + 4);
  if (body[0] === '\r') body = body.slice(1);
  if (body[0] === '\n') body = body.slice(1);
  return { raw: text.slice(0, text.length - body.length), data, body };
}
