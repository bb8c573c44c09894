// Conversation shape, pure: dates a query names, the day of a line, and the rescoring of a shortlist
// by the lines before and after each line and by the named day, neighbours of a better line after
// the other hits, bare headings lowered.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { CUE_BOOST, HEADING_WEIGHT, SHORT_DAY, SPEAKER_BOOST, answerCue, dateMatches, dateOfLine, dayOf, lends, queryDates, querySpeakers, reshape, roleOf, speakerOf, spreadNeighbours, type DayRun, type ShapeSource } from '../../src/memory/search-shape.js';
import type { Scored } from '../../src/memory/search.js';

const entry = (source: number, line: number, score: number, text = `line ${line}`): Scored => ({ candidate: { source, line, text, length: text.length, tf: [] }, score, matched: score ? 1 : 0 });
const order = (list: Scored[]) => list.map((s) => s.candidate.line);

describe('queryDates', () => {
  it('reads the usual ways of naming a day', () => {
    expect(queryDates('what did I say on May 2nd?')).toEqual([{ month: 5, day: 2 }]);
    expect(queryDates('the 27th of April, 2023 and 2023-05-06')).toEqual([{ year: 2023, month: 5, day: 6 }, { month: 4, day: 27, year: 2023 }]);
    expect(queryDates('Sept 3 deploy')).toEqual([{ month: 9, day: 3 }]);
    expect(queryDates('may I ask about 3 tests')).toEqual([]);
    expect(queryDates('April 31st is no day: 2023-13-01 neither')).toEqual([{ month: 4, day: 31 }]);
  });

  it('reads a dotted date day first, month first only when the day cannot be one', () => {
    expect(queryDates('what did Kevin do on 14.01.2024?')).toEqual([{ day: 14, month: 1, year: 2024 }]);
    expect(queryDates('on 03.02.2024')).toEqual([{ day: 3, month: 2, year: 2024 }]);
    expect(queryDates('on 01.14.2024')).toEqual([{ month: 1, day: 14, year: 2024 }]);
    expect(queryDates('version 1.2.2024 and 40.01.2024')).toEqual([{ day: 1, month: 2, year: 2024 }]);
  });

  it('matches a date with or without its year', () => {
    expect(dateMatches('2023-05-02', [{ month: 5, day: 2 }])).toBe(true);
    expect(dateMatches('2023-05-02', [{ month: 5, day: 2, year: 2024 }])).toBe(false);
    expect(dateMatches('2023-05-03', [{ month: 5, day: 2 }])).toBe(false);
  });
});

describe('dateOfLine', () => {
  it('is the date of the last run starting at or before the line', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.integer({ min: 1, max: 500 }), { minLength: 1, maxLength: 20 }), fc.integer({ min: 0, max: 600 }), (starts, line) => {
        const days: DayRun[] = starts.sort((a, b) => a - b).map((s, i) => [s, `2023-01-${String(i + 1).padStart(2, '0')}`]);
        const expected = [...days].reverse().find(([s]) => s <= line)?.[1];
        expect(dateOfLine(days, line)).toBe(expected);
      }),
    );
  });
});

describe('reshape', () => {
  const conversation: ShapeSource[] = [{ conversation: true, lines: 10, days: [[1, '2023-05-01'], [6, '2023-05-02']] }];
  const lineAt = (source: number, line: number) => entry(source, line, 0);

  it('lifts the reply after a line that holds the question, above lines that merely match', () => {
    // Line 3 asks with the query's words; line 4 answers without them; line 8 matches a little.
    // Line 4 is in line 3's context (the hit's neighbours), so it comes after the other hits.
    const out = reshape([entry(0, 3, 10), entry(0, 8, 6)], { sources: conversation, dates: [], lineAt });
    expect(order(out)).toEqual([3, 8, 5, 10, 4, 9]);
    expect(out.find((s) => s.candidate.line === 4)!.score).toBeCloseTo(8);
  });

  it('lends no neighbour credit through user lines alone: between people the line with the words stays first', () => {
    // Two people writing to each other: every line a user line. Line 3 states the fact with the
    // query's words; line 4, the other person's reply, echoes one of them. Line 4 gets no share of
    // line 3, so line 3 keeps the first place (with the credit, 3 + 0.8 × 10 would put 4 first and
    // send 3 after the other hits as its neighbour).
    const said = (line: number, score: number) => entry(0, line, score, `user: Paola: line ${line}`);
    const chat = reshape([said(3, 10), said(4, 3), said(8, 6)], { sources: conversation, dates: [], lineAt: (s, l) => said(l, 0) });
    expect(order(chat).slice(0, 3)).toEqual([3, 8, 5]);
    expect(chat.find((s) => s.candidate.line === 4)!.score).toBe(3);
    // The same words as a request and the model's answer: the answer gets its share, as before.
    const asked = (line: number, score: number) => entry(0, line, score, `${line % 2 ? 'user' : 'assistant'}: line ${line}`);
    const exchange = reshape([asked(3, 10), asked(4, 3), asked(8, 6)], { sources: conversation, dates: [], lineAt: (s, l) => asked(l, 0) });
    expect(order(exchange)[0]).toBe(4);
    expect(exchange.find((s) => s.candidate.line === 4)!.score).toBeCloseTo(11);
  });

  it('lifts the lines of the speaker the query names, whatever the case of the label; other lines and notes stay', () => {
    const said = (line: number, score: number, who: string) => entry(0, line, score, `user: ${who}: line ${line}`);
    const shortlist = [said(2, 10, 'Nicolas'), said(4, 5, 'kate'), said(8, 4, 'Kate')];
    const out = reshape(shortlist, { sources: conversation, dates: [], speakers: querySpeakers("What are Kate's hobbies?"), lineAt: (s, l) => said(l, 0, 'Nicolas') });
    expect(order(out).slice(0, 3)).toEqual([4, 8, 2]);
    expect(out.find((s) => s.candidate.line === 4)!.score).toBe(5 * SPEAKER_BOOST);
    expect(out.find((s) => s.candidate.line === 2)!.score).toBe(10);
    // No name in the query, or a source that is not a conversation: as ranked.
    expect(order(reshape(shortlist, { sources: conversation, dates: [], speakers: querySpeakers('hobbies'), lineAt }))[0]).toBe(2);
    const notes: ShapeSource[] = [{ conversation: false }];
    expect(reshape([entry(0, 1, 2, 'Kate: skiing')], { sources: notes, dates: [], speakers: querySpeakers('What did Kate say'), lineAt })[0].score).toBe(2);
  });

  it('lifts the lines that hold what a when or how-many question asks for: a time, a number', () => {
    const said = (line: number, score: number, text: string) => entry(0, line, score, `user: Kevin: ${text}`);
    const shortlist = [said(2, 10, 'Hawaii is one of my favourite places'), said(8, 9, 'My summer will start in Hawaii')];
    const out = reshape(shortlist, { sources: conversation, dates: [], query: 'When does Kevin plan to visit Hawaii?', lineAt: (s, l) => said(l, 0, 'ok') });
    expect(order(out).slice(0, 2)).toEqual([8, 2]);
    expect(out.find((s) => s.candidate.line === 8)!.score).toBeCloseTo(9 * (1 + CUE_BOOST));
    expect(out.find((s) => s.candidate.line === 2)!.score).toBe(10);
    // Any other question, or none: as ranked.
    expect(order(reshape(shortlist, { sources: conversation, dates: [], query: 'Does Kevin plan to visit Hawaii?', lineAt }))[0]).toBe(2);
    expect(order(reshape(shortlist, { sources: conversation, dates: [], lineAt }))[0]).toBe(2);
  });

  it('reads the kind of answer from the question, the line without its role and speaker label', () => {
    const howMany = answerCue('How many cats does Vanessa have?')!;
    expect(howMany('user: Vanessa: I have two cats')).toBe(true);
    expect(howMany('user: Vanessa: 3 of them')).toBe(true);
    expect(howMany('user: Vanessa: cats are great')).toBe(false);
    const when = answerCue('when did we switch the deploy to fly.io')!;
    expect(when('assistant: Switched it last week')).toBe(true);
    expect(when('assistant: Switched it')).toBe(false);
    // A label that is a time word is the speaker's, not the answer's.
    expect(when('user: Summer: switched it')).toBe(false);
    expect(answerCue('what did we decide about the deploy')).toBeUndefined();
    expect(answerCue('the flaky test, when it fails')).toBeUndefined();
  });

  it('reads a speaker from a leading "Name:" label only', () => {
    expect(speakerOf('user: Kate: I took up skiing')).toBe('kate');
    expect(speakerOf('assistant: elise: hi')).toBe('elise');
    expect(speakerOf('Kate: hi')).toBe('kate');
    expect(speakerOf('User: hi')).toBeUndefined();
    expect(speakerOf('user: Assistant: hi')).toBeUndefined();
    expect(speakerOf('user: I met Kate: she skis')).toBeUndefined();
    expect(speakerOf('user: see https://example.com')).toBeUndefined();
    expect(speakerOf('user: Kate:skiing')).toBeUndefined();
    expect([...querySpeakers("Is Nicolas' behavior Kate's?")]).toEqual(['nicolas', 'kate']);
    expect([...querySpeakers("Kate's hobbies")]).toEqual(['kate']);
    // A capitalised first word is the sentence's, not a name; lowercase words name no one.
    expect([...querySpeakers('Error in the deploy')]).toEqual([]);
    expect([...querySpeakers('note on kate and retries')]).toEqual([]);
  });

  it('lends between user lines two apart only across a line that is not the user\'s', () => {
    const line = (role: string) => entry(0, 1, 1, `${role}: text`);
    const back = (role?: string) => () => (role ? line(role) : undefined);
    expect(roleOf('user: hi')).toBe('user');
    expect(roleOf('assistant: hi')).toBe('assistant');
    expect(roleOf('…a window of a long line')).toBeUndefined();
    expect(lends(line('user'), line('assistant'), 0, back())).toBe(true);
    expect(lends(line('assistant'), line('user'), 0, back())).toBe(true);
    expect(lends(line('user'), line('user'), 0, back())).toBe(false);
    expect(lends(line('user'), line('user'), 1, back('assistant'))).toBe(true);
    expect(lends(line('user'), line('user'), 1, back('user'))).toBe(false);
    expect(lends(line('user'), line('user'), 1, back())).toBe(false);
    // A role the text does not show lends as before.
    expect(lends(entry(0, 1, 1, '…window'), line('user'), 0, back())).toBe(true);
  });

  it('puts a conversation line next to a better one after the other hits, in score order; notes stay as ranked', () => {
    const sorted = [entry(0, 5, 9), entry(0, 6, 8), entry(0, 9, 7), entry(0, 4, 6), entry(0, 2, 5), entry(1, 3, 4), entry(1, 4, 3)];
    const out = spreadNeighbours(sorted, [{ conversation: true }, { conversation: false }]);
    expect(out.map((s) => [s.candidate.source, s.candidate.line])).toEqual([[0, 5], [0, 9], [0, 2], [1, 3], [1, 4], [0, 6], [0, 4]]);
    // Property: the same entries, each once.
    expect(new Set(out)).toEqual(new Set(sorted));
  });

  it('a bare heading of a memory file keeps a share of its score; a heading with more words, all of it', () => {
    const notes: ShapeSource[] = [{ conversation: false }];
    const out = reshape([entry(0, 1, 10, '## Current Task'), entry(0, 2, 6, '- the worker memory limit is 2 GiB'), entry(0, 3, 5, '## Why the worker ran out of memory last week')], { sources: notes, dates: [], lineAt });
    expect(order(out)).toEqual([2, 3, 1]);
    expect(out.find((s) => s.candidate.line === 1)!.score).toBeCloseTo(10 * HEADING_WEIGHT);
  });

  it('leaves other sources as they were ranked', () => {
    const notes: ShapeSource[] = [{ conversation: false }];
    const out = reshape([entry(0, 3, 10), entry(0, 8, 6)], { sources: notes, dates: [], lineAt });
    expect(out.map((s) => [s.candidate.line, s.score])).toEqual([[3, 10], [8, 6]]);
  });

  it('lifts the day a query names, and opens a named day nothing matched', () => {
    const named = reshape([entry(0, 2, 10), entry(0, 7, 6)], { sources: conversation, dates: [{ month: 5, day: 2 }], lineAt });
    expect(order(named)[0]).toBe(7);
    const opened = reshape([entry(0, 2, 10)], { sources: [{ conversation: true, lines: 10, days: [[1, '2023-05-01'], [6, '2023-05-02']] }], dates: [{ month: 5, day: 2 }], lineAt });
    expect(order(opened)).toEqual(expect.arrayContaining([6, 7, 8, 9]));
    expect(opened.filter((s) => s.candidate.line >= 6).every((s) => s.score > 0)).toBe(true);
  });

  it('never invents a line outside the file, and is the same whatever order the shortlist comes in', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.record({ line: fc.integer({ min: 1, max: 10 }), score: fc.double({ min: 0.1, max: 50, noNaN: true }) }), { selector: (r) => r.line, minLength: 1, maxLength: 10 }), (picks) => {
        const list = picks.map((p) => entry(0, p.line, p.score));
        const a = reshape(list, { sources: conversation, dates: [], lineAt });
        const b = reshape([...list].reverse(), { sources: conversation, dates: [], lineAt });
        expect(a.map((s) => [s.candidate.line, s.score])).toEqual(b.map((s) => [s.candidate.line, s.score]));
        for (const s of a) expect(s.candidate.line >= 1 && s.candidate.line <= 10).toBe(true);
      }),
    );
  });

  it('gives a short day (one exchange) one place among the first hits; a longer day keeps its lines apart', () => {
    expect(SHORT_DAY).toBe(4);
    // Day one: lines 1-4 (short); day two: lines 5-14 (long).
    const sources: ShapeSource[] = [{ conversation: true, lines: 14, days: [[1, '2024-01-01'], [5, '2024-01-02']] }];
    const sorted = [entry(0, 1, 9), entry(0, 4, 8), entry(0, 6, 7), entry(0, 10, 6), entry(0, 13, 5)];
    const out = spreadNeighbours(sorted, sources);
    expect(order(out)).toEqual([1, 6, 10, 13, 4]);
  });

});

describe('dayOf', () => {
  it('is the run holding the line, with its first line and length', () => {
    const info: ShapeSource = { conversation: true, lines: 12, days: [[1, '2024-01-01'], [5, '2024-01-02']] };
    expect(dayOf(info, 3)).toEqual({ run: 0, start: 1, lines: 4 });
    expect(dayOf(info, 12)).toEqual({ run: 1, start: 5, lines: 8 });
    expect(dayOf({ conversation: true, lines: 3, days: [[2, '2024-01-01']] }, 1)).toBeUndefined();
    expect(dayOf({ conversation: true }, 1)).toBeUndefined();
  });
});
