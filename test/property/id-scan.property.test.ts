// Property: the byte-level id scanner never misses. For random JSON lines, written by a plain
// encoder or one that escapes ASCII (as \uXXXX, and / as \/) the way some writers do, fed in
// chunks split anywhere, whenever a line parses to a string value equal to one of the ids the
// scanner says so. (It may also say so when no line does: then the caller parses; never the
// other way round.)
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { IdScanner } from '../../src/history/model/id-scan.js';
import { startGrepCheck } from '../../src/history/stream/grep-check.js';

const idChar = fc.constantFrom(...'abcXYZ019_-:/.'.split(''));
const id = fc.tuple(fc.constantFrom('msg_01', 'toolu_01', 'call', 'Bash:'), fc.array(idChar, { minLength: 1, maxLength: 8 })).map(([head, tail]) => head + tail.join(''));
/** Up to 16 ids each has an anchor of its own; with 17 more, the scanner finds them by their prefixes. */
const ids = fc.tuple(fc.array(id, { minLength: 1, maxLength: 5 }), fc.boolean()).map(([few, many]) => (many ? [...few, ...Array.from({ length: 17 }, (_, i) => `${few[0]!.slice(0, 4)}~${i}`)] : few));

/** JSON text of `value`, escaping each ASCII character of strings with probability `rate`. */
function encode(value: unknown, escapeAt: (i: number) => boolean): string {
  let counter = 0;
  const text = (s: string) =>
    '"' +
    [...JSON.stringify(s).slice(1, -1)]
      .map((c) => {
        const i = counter++;
        if (!escapeAt(i) || c === '\\' || c === '"') return c;
        const hex = c.charCodeAt(0).toString(16).padStart(4, '0');
        return c === '/' && i % 2 ? '\\/' : `\\u${i % 3 ? hex : hex.toUpperCase()}`;
      })
      .join('') +
    '"';
  const walk = (v: unknown): string => {
    if (typeof v === 'string') return text(v);
    if (Array.isArray(v)) return `[${v.map(walk).join(',')}]`;
    if (v && typeof v === 'object') return `{${Object.entries(v).map(([k, x]) => `${text(k)}:${walk(x)}`).join(',')}}`;
    return JSON.stringify(v);
  };
  return walk(value);
}

function strings(value: unknown, into: string[] = []): string[] {
  if (typeof value === 'string') into.push(value);
  else if (Array.isArray(value)) value.forEach((v) => strings(v, into));
  else if (value && typeof value === 'object') Object.entries(value).forEach(([k, v]) => (into.push(k), strings(v, into)));
  return into;
}

function scan(ids: string[], bytes: Buffer, cuts: number[]): boolean | undefined {
  const scanner = IdScanner.for(ids);
  if (!scanner) return undefined;
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  let from = 0;
  for (const to of [...points, bytes.length]) {
    if (to > from && scanner.push(bytes.subarray(from, to))) return true;
    from = Math.max(from, to);
  }
  return false;
}

const value = (ids: string[]) =>
  fc.oneof(
    fc.constantFrom(...ids),
    fc.string({ maxLength: 12 }),
    fc.constantFrom(...ids).map((i) => `${i}x`),
    fc.constantFrom(...ids).map((i) => `see ${i}`),
  );
/** Ids, lines of JSON values that may hold them, how many characters are escaped, and where the bytes are cut into chunks. */
const history = ids.chain((ids) =>
  fc.tuple(
    fc.constant(ids),
    fc.array(fc.array(fc.record({ id: value(ids), text: value(ids), content: fc.array(fc.record({ tool_use_id: value(ids) }), { maxLength: 2 }) }), { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 6 }),
    fc.double({ min: 0, max: 1, noNaN: true }),
    fc.array(fc.nat(), { maxLength: 6 }),
  ),
);
const encodeLines = (lines: unknown[], rate: number) => lines.map((l, n) => encode(l, (i) => ((i * 7919 + n * 31) % 1000) / 1000 < rate)).join('\n') + '\n';

describe('IdScanner', () => {
  it('finds every id that a line holds as a string value, however escaped and chunked', () => {
    const property = fc.property(
      history,
      ([ids, lines, rate, cuts]) => {
        const text = encodeLines(lines, rate);
        const bytes = Buffer.from(text, 'latin1');
        const truth = text.split('\n').filter(Boolean).some((line) => strings(JSON.parse(line)).some((s) => ids.includes(s)));
        const found = scan(ids, bytes, cuts);
        if (found === undefined) return;
        if (truth) expect(found).toBe(true);
      },
    );
    fc.assert(property, { numRuns: 500 });
  });

  it('grep -F with its fixed strings says "maybe" wherever it does, before a cut at any line (quick-cut.ts checks on the other core)', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'wmem-grep-'));
    try {
      /** grep's answer for the bytes before `cut`; never "no" where the scanner says "maybe". */
      const grepSays = async (ids: string[], bytes: Buffer, cut: number): Promise<boolean> => {
        const file = path.join(dir, 'messages.jsonl');
        writeFileSync(file, bytes);
        const fd = openSync(file, 'r');
        // Each grep reads through an offset of its own.
        const [again, third, fourth, fifth] = [openSync(file, 'r'), openSync(file, 'r'), openSync(file, 'r'), openSync(file, 'r')];
        try {
          const scanner = IdScanner.for(ids)!;
          // One grep with every string, and two side by side (the ids' tails from the byte the
          // history holds least, and the escapes), as quick-cut.ts runs them.
          const [tails, escapes] = scanner.fixedStringGroups(bytes);
          const checks = [
            startGrepCheck(fd, scanner.fixedStrings(), { answer: path.join(dir, '.answer') })!,
            startGrepCheck(again, tails!, { answer: path.join(dir, '.answer1'), others: { needles: escapes!, fd: third, answer: path.join(dir, '.answer2') } })!,
          ];
          // The ids' grep started directly answers exactly what the two in the script's child do.
          const inScript = startGrepCheck(fourth, tails!, { answer: path.join(dir, '.answer3'), others: { needles: escapes!, fd: fifth, answer: path.join(dir, '.answer4') }, scriptOnly: true })!;
          expect(await checks[1]!.firstMatch).toBe(await inScript.firstMatch);
          const says: boolean[] = [];
          for (const [i, check] of checks.entries()) {
            expect(check).toBeDefined();
            const first = await check.firstMatch;
            expect(first).toBeDefined();
            // Two greps answer -1 when the ids' grep found none, whatever the escapes' grep found:
            // quick-cut.ts then checks in its own thread (here the scanner).
            if (i === 1 && first === -1) says.push(scan(ids, bytes.subarray(0, cut), []) !== false);
            else says.push(first !== -1 && first! < cut);
          }
          if (scan(ids, bytes.subarray(0, cut), [])) expect(says).toEqual([true, true]);
          return says[0]!;
        } finally {
          closeSync(fd);
          closeSync(again);
          closeSync(third);
          closeSync(fourth);
          closeSync(fifth);
        }
      };
      const ids = ['msg_01AbZ', 'toolu_01/x'];
      const lines = (...texts: string[]) => Buffer.from(texts.map((t) => `{"text":"${t}"}\n`).join(''), 'latin1');
      // Only an escape in capitals spells one of the ids' characters (Z); only \/ spells its slash.
      expect(await grepSays(ids, lines('msg_01Ab\\u005A'), 100)).toBe(true);
      expect(await grepSays(ids, lines('toolu_01\\/x'), 100)).toBe(true);
      expect(await grepSays(['msg_01AbZ'], lines('toolu_01\\/x', 'a \\u001b[0m colour', 'msg_01AbZ and more'), 100)).toBe(false);
      // A string that ends with an id is taken for it ("maybe": the full way parses).
      expect(await grepSays(ids, lines('see msg_01AbZ'), 100)).toBe(true);
      // After the cut, an id is the kept part's own.
      const kept = Buffer.from('{"text":"no link here"}\n{"id":"msg_01AbZ"}\n', 'latin1');
      expect(await grepSays(ids, kept, 24)).toBe(false);
      expect(await grepSays(ids, kept, kept.length)).toBe(true);
      // At the file's very end (no newline after it), and across grep's 96 KiB reads.
      const pad = (n: number) => `{"text":"${'x'.repeat(n)}"}\n`;
      const at = (head: string, tail: string) => Buffer.from(pad(98_300 - head.length - 12) + head + tail, 'latin1');
      expect(await grepSays(ids, Buffer.from(pad(10) + '{"id":"msg_01AbZ"}', 'latin1'), 1_000)).toBe(true);
      expect(await grepSays(ids, Buffer.from(pad(10) + '{"t":"msg_01Ab\\u005A', 'latin1'), 1_000)).toBe(true);
      expect(await grepSays(ids, at('{"id":"', 'msg_01AbZ"}\n'), 200_000)).toBe(true);
      expect(await grepSays(ids, at('{"t":"msg_01Ab', '\\u005A"}\n'), 200_000)).toBe(true);
      expect(await grepSays(ids, at('{"t":"', 'toolu_01\\/x"}\n'), 200_000)).toBe(true);
      expect(await grepSays(ids, at('{"t":"', 'msg_01AbY"}\n'), 200_000)).toBe(false);

      const property = fc.asyncProperty(history, fc.nat(), async ([ids, lines, rate], at) => {
        if (!IdScanner.for(ids)) return;
        const text = encodeLines(lines, rate);
        // The cut at a line's start, as a compaction's; the lines after it are read too and ignored.
        const starts = [0, ...[...text.matchAll(/\n/g)].map((m) => m.index! + 1)];
        await grepSays(ids, Buffer.from(text, 'latin1'), starts[at % starts.length]!);
      });
      await fc.assert(property, { numRuns: 60 });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it('says no when no line holds an id, and gives up on ids it cannot find by bytes', () => {
    const ids = ['msg_01AbC', 'msg_01XyZ', 'toolu_01Q'];
    const clean = Buffer.from(['{"type":"assistant","message":{"id":"msg_01Other","content":"msg_01AbC is in text, not a value: \\"x\\""}}', '{"tool_use_id":"toolu_01Qz","text":"C:\\\\users\\n"}'].join('\n'));
    expect(scan(ids, clean, [])).toBe(false);
    expect(scan(ids, clean, [5, 40, 41, 90])).toBe(false);
    expect(scan(ids, Buffer.from('{"id":"msg_01XyZ"}'), [10])).toBe(true);
    // An escape that spells an id character: maybe.
    expect(scan(ids, Buffer.from('{"id":"msg_01\\u0058yZ"}'), [])).toBe(true);
    expect(scan([], clean, [])).toBe(false);
    // The same by prefixes (more ids than get an anchor each).
    const many = [...ids, ...Array.from({ length: 17 }, (_, i) => `msg_01~${i}`)];
    expect(scan(many, clean, [5, 40, 41, 90])).toBe(false);
    expect(scan(many, Buffer.from('{"id":"msg_01XyZ"}'), [10])).toBe(true);
    expect(IdScanner.for(['ab'])).toBeUndefined();
    expect(IdScanner.for(['caf\u00e9!'])).toBeUndefined();
    expect(IdScanner.for(['has"quote'])).toBeUndefined();
    // Many ids with many prefixes: as many passes as parsing costs. Few: an anchor each.
    expect(IdScanner.for(Array.from({ length: 17 }, (_, i) => `${'abcdefghijklmnopq'[i]}ooo1`))).toBeUndefined();
    expect(IdScanner.for(Array.from({ length: 9 }, (_, i) => `${'abcdefghi'[i]}ooo1`))).toBeDefined();
  });
});
