import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import {
  assertSectionText,
  assertWithinLimit,
  findSection,
  isMaintained,
  joinContent,
  parseOverview,
  replaceSectionContent,
} from '../../src/memory/overview.js';
import { ROOT } from '../helpers/cli.js';

const en = readFileSync(path.join(ROOT, 'templates/overview.md'), 'utf8');
const zh = readFileSync(path.join(ROOT, 'templates/overview.zh.md'), 'utf8');

describe('parseOverview', () => {
  it('reads the English template: ids, titles, limits, guidance', () => {
    const overview = parseOverview(en);
    expect(overview.sections.map((s) => s.id)).toEqual(['task', 'progress', 'decisions', 'context', 'open', 'recent', 'pointers', 'details']);
    // The limits add up within the 8,000-character memory part (issue 28, docs/context.md).
    expect(findSection(overview, 'task').maxChars).toBe(500);
    expect(findSection(overview, 'progress').maxChars).toBe(1000);
    expect(findSection(overview, 'decisions').maxChars).toBe(1200);
    expect(findSection(overview, 'context').maxChars).toBe(900);
    expect(findSection(overview, 'open').maxChars).toBe(500);
    expect(findSection(overview, 'recent').maxChars).toBeUndefined();
    expect(overview.sections.every((s) => s.guidance.startsWith('<!--') && s.content === '')).toBe(true);
    expect(isMaintained(overview)).toBe(false);
  });

  it('reads the Chinese template with the same ids', () => {
    const overview = parseOverview(zh);
    expect(overview.sections.map((s) => s.id)).toEqual(['task', 'progress', 'decisions', 'context', 'open', 'recent', 'pointers', 'details']);
    expect(findSection(overview, 'decisions').title).toBe('关键决策');
    expect(findSection(overview, '待解决').id).toBe('open');
  });

  it('finds sections by id, title or slug', () => {
    const overview = parseOverview(en);
    expect(findSection(overview, 'Current Task').id).toBe('task');
    expect(findSection(overview, 'key-decisions').id).toBe('decisions');
    expect(() => findSection(overview, 'nope')).toThrow(/unknown section "nope".*/);
  });

  it('gives headings without front matter a slug id', () => {
    const overview = parseOverview('# T\n\n## Build Notes\nx\n\n## Next\n');
    expect(overview.sections.map((s) => s.id)).toEqual(['build-notes', 'next']);
    expect(findSection(overview, 'build-notes').content).toBe('x');
  });

  it('refuses bad front matter, no sections and missing required sections', () => {
    expect(() => parseOverview('---\nsections: [unclosed\n---\n## A\n')).toThrow(/front matter is not valid YAML/);
    expect(() => parseOverview('just text, no headings\n')).toThrow(/has no sections/);
    expect(() => parseOverview(en.replace('## Current Task', '## Something Else'))).toThrow(/missing the required section "task"/);
    expect(() => parseOverview('---\nsections:\n  a: { max_chars: -3 }\n---\n## a\n')).toThrow(/max_chars must be a positive whole number/);
  });

  it('does not take a ## inside a code block for a section', () => {
    const overview = parseOverview('## One\n```\n## not a heading\n```\n\n## Two\n');
    expect(overview.sections.map((s) => s.id)).toEqual(['one', 'two']);
  });
});

describe('editing', () => {
  it('refuses an edit that would swallow later sections', () => {
    const overview = parseOverview(en);
    for (const text of ['```', '<!-- open comment', '<pre>\nx']) {
      expect(() => replaceSectionContent(overview, findSection(overview, 'task'), text)).toThrow(/would change the sections/);
    }
    expect(() => replaceSectionContent(overview, findSection(overview, 'task'), '```\ncode\n```')).not.toThrow();
  });

  it('keeps indentation: an indented ## stays code, not a heading', () => {
    const overview = parseOverview(en);
    const next = replaceSectionContent(overview, findSection(overview, 'task'), '    ## not a heading');
    expect(parseOverview(next).sections).toHaveLength(8);
    expect(findSection(parseOverview(next), 'task').content).toBe('    ## not a heading');
  });

  it('refuses duplicate sections when editing, accepts them leniently', () => {
    const twice = en.replace('## Progress', '## Current Task\nagain\n\n## Progress');
    expect(() => parseOverview(twice)).toThrow(/two "## Current Task" sections/);
    expect(parseOverview(twice, 'f', { lenient: true }).problem).toMatch(/two "## Current Task" sections/);
  });

  it('matches titles case-insensitively and counts characters, not UTF-16 units', () => {
    expect(parseOverview(en.replace('## Current Task', '## current task')).sections[0].id).toBe('task');
    const task = findSection(parseOverview(en), 'task');
    expect(() => assertWithinLimit(task, '😀'.repeat(500), 'f')).not.toThrow();
  });

  it('renders what it can of a broken file in lenient mode', () => {
    expect(parseOverview('no headings', 'f', { lenient: true })).toMatchObject({ preamble: 'no headings', sections: [] });
    const badYaml = parseOverview('---\nsections: [x\n---\n## A\nbody\n', 'f', { lenient: true });
    expect(badYaml.problem).toMatch(/not valid YAML/);
    expect(badYaml.sections.map((s) => s.content)).toEqual(['body']);
  });

  it('replaces one section and leaves every other byte alone', () => {
    const overview = parseOverview(en);
    const task = findSection(overview, 'task');
    const next = replaceSectionContent(overview, task, 'Ship the parser');
    const after = parseOverview(next);
    expect(findSection(after, 'task').content).toBe('Ship the parser');
    expect(findSection(after, 'task').guidance).toBe(task.guidance);
    const tail = (text: string) => text.slice(text.indexOf('## Progress'));
    expect(tail(next)).toBe(tail(en));
    expect(next.startsWith(overview.frontMatterRaw)).toBe(true);
    expect(isMaintained(after)).toBe(true);
  });

  it('replacing twice is stable', () => {
    const once = (() => {
      const o = parseOverview(en);
      return replaceSectionContent(o, findSection(o, 'progress'), '- a\n- b');
    })();
    const o2 = parseOverview(once);
    expect(replaceSectionContent(o2, findSection(o2, 'progress'), '- a\n- b')).toBe(once);
  });

  it('joins list items into one list and paragraphs with a blank line', () => {
    expect(joinContent('- a', '- b')).toBe('- a\n- b');
    expect(joinContent('para', 'more')).toBe('para\n\nmore');
    expect(joinContent('', '\n  first  ')).toBe('  first');
    expect(joinContent('    code line', 'more')).toBe('    code line\n\nmore');
  });

  it('refuses text that would start a section, allows ### headings', () => {
    expect(() => assertSectionText('## Sneaky\nx', 'the text')).toThrow(/level-2 heading/);
    expect(() => assertSectionText('Title\n=====', 'the text')).toThrow(/level-1 heading/);
    expect(() => assertSectionText('### fine\ntext', 'the text')).not.toThrow();
  });

  it('enforces max_chars', () => {
    const task = findSection(parseOverview(en), 'task');
    expect(() => assertWithinLimit(task, 'x'.repeat(500), 'f')).not.toThrow();
    expect(() => assertWithinLimit(task, 'x'.repeat(501), 'f')).toThrow(/limited to 500 characters; the new text would make it 501/);
  });
});
