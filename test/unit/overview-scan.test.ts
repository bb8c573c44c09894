// The overview's line scanner (src/memory/overview-scan.ts) against the parsers it stands in for:
// on every generated document it either declines (undefined) or gives exactly what remark's tree
// and gray-matter give. The generators lean on the constructs that change Markdown's block
// structure (fences, HTML, setext underlines, indented headings, lists, quotes, comments).
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import matter from 'gray-matter';
import { unified } from 'unified';
import remarkParse from 'remark-parse';
import type { Heading, Root, RootContent } from 'mdast';
import { mayHoldSectionHeading, scanFrontMatter, scanHeadings } from '../../src/memory/overview-scan.js';
import { parseOverview } from '../../src/memory/overview.js';
import { ROOT } from '../helpers/cli.js';

const markdown = unified().use(remarkParse);
const text = (node: RootContent | Root): string =>
  'value' in node && typeof node.value === 'string' ? node.value : 'children' in node ? (node.children as RootContent[]).map(text).join('') : '';

/** The oracle: level-2 headings and their guidance comments straight from remark's tree. */
function byRemark(body: string) {
  const tree = markdown.parse(body) as Root;
  const found = tree.children.map((node, index) => ({ node, index })).filter(({ node }) => node.type === 'heading' && (node as Heading).depth === 2);
  return found.map(({ node, index }, i) => {
    const end = i + 1 < found.length ? found[i + 1].node.position!.start.offset! : body.length;
    let guidanceEnd = node.position!.end.offset!;
    for (const child of tree.children.slice(index + 1)) {
      if (child.position!.start.offset! >= end || child.type !== 'html' || !/^<!--[\s\S]*-->$/.test(child.value.trim())) break;
      guidanceEnd = child.position!.end.offset!;
    }
    return { start: node.position!.start.offset!, end: node.position!.end.offset!, guidanceEnd, title: text(node).trim() };
  });
}

// Lines the scanner reads (some only look simple: quoted or listed headings, comments in lists
// or code, text after a comment's end) and lines it must decline; mostly the first kind, so that
// most documents are scanned and compared rather than declined.
const READ = [
  '## Progress', '## Key Decisions', '##  Spaced  Title', '## 当前任务', '## Q: what (now)?', '# Working Memory', '### Sub', '    ## Code', '#hashtag',
  '<!-- guidance -->', '<!-- guidance -->  ', '<!-- open', 'still open', '## inside a comment', 'closed -->', 'closed --> after', '<!-- a --> <!-- b -->',
  '    <!-- code -->', '- item', '  - nested', '1. first', '* star', '> quote', '> ## quoted', '- ## listed', '- <!-- listed', '> <!-- quoted',
  'plain text', 'text: with colon', '', '', '', '   ', '***', '    indented code', '"title"',
];
const DECLINED = [
  '## Title ##', '## a *b*', '## x &amp; y', '##', '## ', '##\tTab', ' ## Indented', '\t## Tab code', '<!-->', '<!---->', '  <!-- indented -->',
  '<div>', '<pre>', '</div>', '- ', '-', '---', '===', '```', '```js', '~~~', '[ref]: /url "title',
  // Blank to String#trim but not to Markdown (only spaces and tabs are), and a byte order mark.
  '\u00A0', ' \u3000 ', '\v', '\f', '\uFEFF## Current Task',
];
const lineArb = fc.oneof({ weight: 12, arbitrary: fc.constantFrom(...READ) }, { weight: 1, arbitrary: fc.constantFrom(...DECLINED) });
const bodyArb = fc.array(lineArb, { maxLength: 24 }).map((lines) => lines.join('\n'));

describe('scanHeadings', () => {
  it('declines or agrees with remark on generated bodies', () => {
    fc.assert(
      fc.property(bodyArb, fc.boolean(), (body, finalNewline) => {
        const text = finalNewline ? body + '\n' : body;
        const scanned = scanHeadings(text);
        if (scanned) expect(scanned).toEqual(byRemark(text));
        else expect(DECLINED.some((l) => text.split('\n').includes(l)) || text.includes('<!-- open')).toBe(true);
      }),
      { numRuns: 3000 },
    );
  });

  it('reads the templates and a filled overview without remark', () => {
    for (const name of ['overview.md', 'overview.zh.md']) {
      const { body } = scanFrontMatter(readFileSync(path.join(ROOT, 'templates', name), 'utf8'))!;
      const filled = body.replace('## Progress\n', '## Progress\n- one\n- two: done\n  - nested\n\n');
      for (const b of [body, filled]) {
        expect(scanHeadings(b)).toBeDefined();
        expect(scanHeadings(b)).toEqual(byRemark(b));
      }
    }
  });
});

describe('mayHoldSectionHeading', () => {
  it('is false only when remark finds no top-level heading of level 1 or 2', () => {
    fc.assert(
      fc.property(bodyArb, (body) => {
        if (mayHoldSectionHeading(body) === false) {
          const tree = markdown.parse(body) as Root;
          expect(tree.children.some((n) => n.type === 'heading' && (n as Heading).depth <= 2)).toBe(false);
        }
      }),
      { numRuns: 2000 },
    );
  });
});

const FRONT_LINES = [
  'wmem: overview', 'version: 1', 'lang: en', 'lang: zh', 'sections:', '  task: { title: Current Task, max_chars: 500, required: true }',
  '  open: { title: Open Questions, max_chars: 500 }', '  recent: { title: Recent Actions }', '  zh: { title: 当前任务 }', '  bad: { title: a: b }',
  '  empty: {}', '  word: Pointers', '  yes: yes', 'flag: true', 'flag: no', 'nothing:', 'n: 0123', 'n: 0', 'n: 1e3', 'title: Null', 'title: ~',
  '# a comment', 'key: value # note', 'list:', '  - item', 'dup: 1', 'dup: 2', '', 'date: 2026-11-26', 'quoted: "x"', 'x: { a: 1, }', '  trailing: word  ',
];
const frontArb = fc.tuple(fc.array(fc.constantFrom(...FRONT_LINES), { maxLength: 12 }), fc.constantFrom('---', '--- x', '----'), fc.constantFrom('', '\n', '# Body\n')).map(
  ([lines, close, body]) => `---\n${lines.join('\n')}\n${close}\n${body}`,
);

describe('scanFrontMatter', () => {
  it('declines or agrees with gray-matter on generated front matter', () => {
    fc.assert(
      fc.property(frontArb, (doc) => {
        const scanned = scanFrontMatter(doc);
        if (!scanned) return;
        const parsed = matter(doc, {});
        expect(scanned.data).toEqual(parsed.data);
        expect(scanned.body).toBe(parsed.content);
      }),
      { numRuns: 3000 },
    );
  });

  it('reads both templates', () => {
    for (const name of ['overview.md', 'overview.zh.md']) {
      const doc = readFileSync(path.join(ROOT, 'templates', name), 'utf8');
      const scanned = scanFrontMatter(doc);
      expect(scanned).toBeDefined();
      expect(scanned!.data).toEqual(matter(doc, {}).data);
      expect(scanned!.body).toBe(matter(doc, {}).content);
    }
  });

  it('leaves parseOverview unchanged on the template', () => {
    const doc = readFileSync(path.join(ROOT, 'templates', 'overview.md'), 'utf8');
    expect(parseOverview(doc).sections.map((s) => s.id)).toEqual(['task', 'progress', 'decisions', 'context', 'open', 'recent', 'pointers', 'details']);
  });
});
