// Consolidation, pure: routing, folding duplicates, pushing old lines out as pointers, the
// guards on an LLM's synthesis, and losslessness over random note sets.
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { ROOT } from '../helpers/cli.js';
import { UNBOUNDED_SECTION_MAX, addIndexLines, appendSynthesis, checkSynthesis, mergeNotes, normalizeCandidate, removeLines, routeNote, type MergePlan } from '../../src/memory/consolidate.js';
import { findSection, parseOverview, replaceSectionContent } from '../../src/memory/overview.js';
import { formatNote, parseScratch, type Note } from '../../src/memory/scratch.js';
import { canonical } from '../../src/memory/workspace.js';

const TEMPLATE = readFileSync(path.join(ROOT, 'templates/overview.md'), 'utf8');
const T = new Date('2026-03-12T14:30:00Z');

function notes(...specs: { text: string; importance?: number; tags?: string[] }[]): Note[] {
  const text = specs.map((s, i) => formatNote({ time: new Date(T.getTime() + i * 1000), importance: s.importance ?? 0.5, text: s.text, tags: s.tags })).join('\n');
  return parseScratch(text).notes;
}

const section = (text: string, id: string) => findSection(parseOverview(text), id).content;

describe('routing', () => {
  it('puts a note under its tagged section, else decisions from 0.8, else context', () => {
    const overview = parseOverview(TEMPLATE);
    expect(routeNote({ tags: ['progress'], importance: 0.9 }, overview).id).toBe('progress');
    expect(routeNote({ tags: ['open-questions'], importance: 0.1 }, overview).id).toBe('open'); // by title slug
    expect(routeNote({ tags: ['nosuch'], importance: 0.8 }, overview).id).toBe('decisions');
    expect(routeNote({ tags: [], importance: 0.79 }, overview).id).toBe('context');
  });

  it('merges notes into their sections, dropping the routing tag', () => {
    const plan = mergeNotes({ overviewText: TEMPLATE, notes: notes({ text: 'Chose Postgres for JSONB', importance: 0.9 }, { text: 'Build with npm run build', tags: ['progress'] }, { text: 'API on port 8080' }) });
    expect(section(plan.text, 'decisions')).toContain('- Chose Postgres for JSONB');
    expect(section(plan.text, 'progress')).toBe('<!-- What is finished, what is in flight, what is next. Keep it current; move finished detail to detail/ and leave one line here. -->\n- Build with npm run build'.split('\n')[1]);
    expect(section(plan.text, 'context')).toBe('- API on port 8080');
    expect(plan.placed).toEqual({ decisions: 1, progress: 1, context: 1 });
  });
});

describe('duplicates', () => {
  it('folds canonical duplicates among notes and against the overview', () => {
    const first = mergeNotes({ overviewText: TEMPLATE, notes: notes({ text: 'The API listens on port 8080' }, { text: 'the api listens on PORT 8080!' }) });
    expect(first.folded).toBe(1);
    const second = mergeNotes({ overviewText: first.text, notes: notes({ text: 'The API listens on port 8080.' }) });
    expect(second.folded).toBe(1);
    expect(second.text).toBe(first.text);
  });
});

describe('pushing out to pointers', () => {
  it('a section over max_chars pushes its oldest lines out as one pointer', () => {
    const many = Array.from({ length: 40 }, (_, i) => ({ text: `Fact ${i}: the ${['CORS', 'proxy', 'webpack', 'redis'][i % 4]} setting number ${i} matters for the staging environment` }));
    const plan = mergeNotes({ overviewText: TEMPLATE, notes: notes(...many) });
    const context = section(plan.text, 'context');
    expect(context.length).toBeLessThanOrEqual(900);
    expect(context).toContain('Fact 39');
    expect(plan.evictions).toHaveLength(1);
    expect(plan.evictions[0].lines[0]).toContain('Fact 0:');
    const pointers = section(plan.text, 'pointers');
    expect(pointers).toMatch(/^- Past: Known Context: Fact 0: .* → search: `[^`]+`$/m);
    // Every note is in the overview or in the eviction (which becomes a detail file).
    for (const n of many) expect(context.includes(n.text) || plan.evictions[0].lines.some((l) => l.includes(n.text))).toBe(true);
  });

  it('keeps at most 20 pointers, folding the oldest into one', () => {
    let text = TEMPLATE;
    for (let round = 0; round < 24; round++) {
      const batch = Array.from({ length: 12 }, (_, i) => ({ text: `Round ${round} fact ${i} about subsystem${round} and its configuration details` }));
      text = mergeNotes({ overviewText: text, notes: notes(...batch) }).text;
    }
    const pointers = section(text, 'pointers').split('\n').filter((l) => l.startsWith('- Past:'));
    expect(pointers.length).toBeLessThanOrEqual(20);
  });

  it('after a MEMORY.md seed, the existing text never moves; new lines append below', () => {
    const seeded = parseOverview(TEMPLATE);
    const ctx = findSection(seeded, 'context');
    const hand = Array.from({ length: 30 }, (_, i) => `- Hand-written fact ${i} from MEMORY.md about the system`).join('\n');
    const start = replaceSectionContent(seeded, ctx, hand);
    const plan = mergeNotes({ overviewText: start, notes: notes({ text: 'A new note after the seed' }), appendOnly: true });
    const content = section(plan.text, 'context');
    expect(content.startsWith(hand)).toBe(true);
    // The new line did not fit: it went out as a pointer, not the seeded text.
    expect(plan.evictions[0]?.lines).toEqual(['- A new note after the seed']);
  });
});

describe('index lines', () => {
  it('adds detail index lines once', () => {
    const once = addIndexLines(TEMPLATE, ['- detail/x.md — X']);
    expect(addIndexLines(once, ['- detail/x.md — X'])).toBe(once);
    expect(section(once, 'details')).toBe('- detail/x.md — X');
  });
});

describe('removeLines', () => {
  it('removes exactly the consumed lines, keeping the rest and later notes', () => {
    const text = '<!-- header -->\n- a\nnot a note\n- b\n- a\n- c\n';
    expect(removeLines(text, ['- a', '- b'])).toBe('<!-- header -->\nnot a note\n- a\n- c\n');
  });
});

describe('guards', () => {
  const filled = mergeNotes({ overviewText: TEMPLATE, notes: notes({ text: 'Current task is to add the search command to the CLI', tags: ['task'] }, { text: 'Chose a line-level BM25 with stemming for ranking', importance: 0.9 }) }).text;
  const good = normalizeCandidate(filled.replace(/^---[\s\S]*?---\n/, '').replace('- Chose a line-level', '- Decided: a line-level'), filled);

  it('accepts a sound synthesis', () => {
    expect(checkSynthesis({ candidate: good, previous: filled, budget: 8000 })).toBeUndefined();
  });

  it('refuses a synthesis missing a required section', () => {
    const candidate = good.replace(/## Key Decisions[\s\S]*?(?=## Known Context)/, '');
    expect(checkSynthesis({ candidate, previous: filled, budget: 8000 })?.guard).toBe('required-sections');
  });

  it('refuses a synthesis under 50 % of a previous overview over 2000 characters', () => {
    const big = mergeNotes({ overviewText: TEMPLATE, notes: notes(...Array.from({ length: 60 }, (_, i) => ({ text: `Decision ${i}: we keep the ${i}th module small because reviews go faster`, importance: i % 2 ? 0.9 : 0.5 }))) }).text;
    expect(big.replace(/^---[\s\S]*?---\n/, '').length).toBeGreaterThan(2000);
    expect(checkSynthesis({ candidate: good, previous: big, budget: 8000 })?.guard).toBe('shrink');
    expect(checkSynthesis({ candidate: big, previous: big, budget: 8000 })).toBeUndefined();
  });

  it('refuses more than 20 pointers', () => {
    const pointers = Array.from({ length: 21 }, (_, i) => `- Past: topic ${i} → search: \`topic${i}\``).join('\n');
    const candidate = good.replace(/(## Pointers\n<!--[\s\S]*?-->)/, `$1\n${pointers}`);
    expect(checkSynthesis({ candidate, previous: filled, budget: 8000 })?.guard).toBe('pointers');
  });

  it('refuses a synthesis with under 50 characters of substance', () => {
    expect(checkSynthesis({ candidate: normalizeCandidate(TEMPLATE.replace(/^---[\s\S]*?---\n/, ''), filled), previous: filled, budget: 8000 })?.guard).toBe('substance');
  });

  it('refuses a synthesis over the budget or a section limit', () => {
    expect(checkSynthesis({ candidate: good.replace('## Progress', `## Progress\n${'x'.repeat(2100)}`), previous: filled, budget: 8000 })?.guard).toBe('budget');
    const long = good.replace('## Key Decisions', `## Key Decisions\n${'- a long decision line\n'.repeat(400)}`);
    expect(checkSynthesis({ candidate: long, previous: filled, budget: 8000 })?.guard).toBe('budget');
  });

  it('refuses garbage', () => {
    expect(checkSynthesis({ candidate: normalizeCandidate('Sure! Here is your overview: I could not do it.', filled), previous: filled, budget: 8000 })?.guard).toMatch(/unparseable|required-sections/);
  });

  it('strips a code fence and restores the front matter', () => {
    const fenced = '```markdown\n' + good.replace(/^---[\s\S]*?---\n/, '') + '```';
    expect(normalizeCandidate(fenced, filled)).toBe(good);
  });

  it('keeps wmem\'s front matter even when the model rewrote it', () => {
    const loosened = good.replace('max_chars: 900', 'max_chars: 99999');
    expect(loosened).not.toBe(good);
    expect(normalizeCandidate(loosened, filled)).toBe(good);
  });

  it('appendSynthesis keeps the seeded text and adds only new lines', () => {
    const out = appendSynthesis(filled, good);
    expect(section(out, 'decisions')).toContain('- Chose a line-level BM25');
    expect(section(out, 'decisions')).toContain('- Decided: a line-level BM25');
  });
});

describe('losslessness (property)', () => {
  it('every note ends up in the overview or an eviction', () => {
    const noteArb = fc.record({
      text: fc.stringMatching(/^[A-Za-z][A-Za-z0-9 ,.:-]{4,90}$/).filter((s) => canonical(s).length > 0),
      importance: fc.double({ min: 0, max: 1, noNaN: true }),
      tags: fc.subarray(['progress', 'open', 'decisions', 'recent', 'task']),
    });
    fc.assert(
      fc.property(fc.array(noteArb, { minLength: 1, maxLength: 80 }), (specs) => {
        const parsed = notes(...specs);
        const plan: MergePlan = mergeNotes({ overviewText: TEMPLATE, notes: parsed });
        const kept = new Set<string>();
        for (const line of plan.text.split('\n')) kept.add(canonical(line.replace(/^- /, '')));
        for (const e of plan.evictions) for (const line of e.lines) kept.add(canonical(line.replace(/^- /, '')));
        for (const n of parsed) {
          const key = canonical(n.text.replace(/\s*#[\w-]+/g, ' '));
          const found = [...kept].some((k) => k.includes(key) || canonical(k.replace(/\s*#[\w-]+/g, ' ')) === key);
          if (!found) return false;
        }
        return true;
      }),
      { numRuns: 60 },
    );
  });
});

describe('sections without a max_chars', () => {
  it('are bounded too: what goes past the bound moves to detail/ with a pointer', () => {
    const many = notes(...Array.from({ length: 400 }, (_, i) => ({ text: `Decision ${i}: chose option ${i} over ${i + 1} because it measured faster`, importance: 0.9 })));
    const plan = mergeNotes({ overviewText: TEMPLATE, notes: many });
    const decisions = section(plan.text, 'decisions');
    expect(decisions.length).toBeLessThanOrEqual(UNBOUNDED_SECTION_MAX);
    const moved = plan.evictions.find((e) => e.sectionId === 'decisions')!;
    expect(moved.lines.length + decisions.split('\n').filter((l) => l.startsWith('- Decision')).length).toBe(400);
    expect(plan.text).toContain(moved.pointer);
  });
});

describe('the duplicate key', () => {
  it('hashes a line as its canonical form: the ASCII fast path agrees with canonical() for any text', async () => {
    const { KEY, hashText, lineKey } = await import('../../src/memory/consolidate.js');
    const strip = (l: string) => l.replace(/^\s*(?:[-*+]|\d+[.)])\s+(?:\[[ xX]\]\s+)?/, '');
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.string({ unit: 'grapheme' }), fc.constantFrom('- ', '* [x] ', '1. ').chain((m) => fc.string().map((t) => m + t))), (line) => {
        const some = lineKey(line);
        const [a, b] = [KEY.a, KEY.b];
        const text = canonical(strip(line));
        expect(some).toBe(text.length > 0);
        if (some) {
          hashText(text);
          expect([a, b]).toEqual([KEY.a, KEY.b]);
        }
      }),
      { numRuns: 2000 },
    );
  });
});
