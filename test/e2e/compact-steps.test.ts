// `wmem compact --keep-steps M` (docs/compaction.md): a history that is one long user turn — three of the
// twelve real transcripts in test/fixtures — is compacted inside that turn, at a step, with the
// turn's opening message repeated after the marker; restore gives back the original bytes.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { FIXTURES, runJson, sandbox, type Sandbox } from '../helpers/cli.js';
import { leadingMarker, linkIds, sessionWith, type SessionFiles } from '../helpers/history-e2e.js';
import { splitLines } from '../helpers/history-session.js';
import { lineFacts } from '../../src/history/model/messages.js';

/** The real transcripts that are one user turn with many tool calls, and how many steps each holds. */
const SINGLE_TURN = [
  { fixture: 'kimi-cli/pr127-context/531d195b-6436-426e-b010-4bf723a992de.jsonl', format: 'OpenAI-style messages (Kimi CLI)' },
  { fixture: 'claude-code-log/ef958aa1-0e93-49f0-bb71-150f63befcd1/subagents/agent-a4ca7529859c158c2.jsonl', format: 'Claude Code subagent' },
  { fixture: 'claude-code-log/89488521-e2e7-4d97-bc02-38197efdddc8.jsonl', format: 'Claude Code 1.0' },
];

let box: Sandbox;
beforeEach(async () => {
  box = await sandbox();
});
afterEach(async () => {
  await box.cleanup();
});

function openingLine(bytes: Buffer): Buffer {
  return splitLines(bytes).find((line) => lineFacts(line.toString('utf8')).turnStart)!;
}

/** After a cut inside the turn: archive + kept lines are the old file, the repeat is its opening, no pair is split. */
async function expectCutInsideTurn(files: SessionFiles, result: any, before: Buffer, keepSteps: number): Promise<void> {
  expect(result).toMatchObject({ compacted: true, cutInsideTurn: true, keepSteps });
  expect(result.counts.stepsKept).toBeGreaterThan(0);
  expect(result.counts.stepsKept).toBeLessThanOrEqual(keepSteps);
  const lead = (await leadingMarker(files))!;
  expect(lead.marker.archive).toBe(result.archive);
  const archived = await readFile(path.join(files.workingMemory, result.archive));
  expect(Buffer.concat([archived, lead.rest]).equals(before)).toBe(true);
  // The repeated line is the turn's opening message, byte for byte, and the marker says so.
  expect(lead.replaced.equals(openingLine(archived))).toBe(true);
  expect(lead.marker.openingBytes).toBe(lead.replaced.length);
  expect(JSON.parse(splitLines(await readFile(files.messages))[0]!.toString('utf8')).content ?? '').toMatch(/repeated on the next line/);
  expect([...linkIds(archived)].filter((id) => linkIds(lead.rest).has(id))).toEqual([]);
  expect(linkIds(lead.replaced).size).toBe(0);
}

describe('wmem compact --keep-steps on the single-turn transcripts', () => {
  for (const { fixture, format } of SINGLE_TURN) {
    it(`${path.basename(fixture)} (${format}): compacts inside its one turn, twice, and restores byte for byte`, async () => {
      const original = await readFile(path.join(FIXTURES, fixture));
      const files = await sessionWith(box, { fixture: path.join(FIXTURES, fixture) });
      // Turns alone leave it whole: it is one turn.
      const byTurns = await runJson(box, ['compact', '--keep-recent', '1', '--keep-steps', '1000']);
      expect(byTurns).toMatchObject({ compacted: false, counts: { turnsBefore: 1 } });
      expect(byTurns.reason).toMatch(/^nothing to compact \(1 turn, \d+ steps; keeping the last 1 turn and at most 1000 steps\)$/);
      expect(byTurns.counts.stepsKept).toBeGreaterThan(8);

      const first = await runJson(box, ['compact', '--keep-steps', '5']);
      await expectCutInsideTurn(files, first, original, 5);
      expect(first.counts).toMatchObject({ turnsArchived: 1, turnsKept: 0 });
      const transcript = await readFile(path.join(files.workingMemory, first.details[0]), 'utf8');
      expect(transcript).toMatch(/kind: "conversation"/);

      // Again on the compacted file: the repeated opening is the turn's start now.
      const middle = await readFile(files.messages);
      const second = await runJson(box, ['compact', '--keep-steps', '2']);
      await expectCutInsideTurn(files, second, middle, 2);

      await runJson(box, ['restore', second.archive]);
      expect((await readFile(files.messages)).equals(middle)).toBe(true);
      await runJson(box, ['restore', first.archive]);
      expect((await readFile(files.messages)).equals(original)).toBe(true);
    });
  }

  it('keeps 20 steps by default, and says in plain words that the cut fell inside the turn', async () => {
    const fixture = path.join(FIXTURES, SINGLE_TURN[0]!.fixture);
    const original = await readFile(fixture);
    const files = await sessionWith(box, { fixture });
    const dry = await box.run(['compact', '--dry-run']);
    expect(dry.exitCode).toBe(0);
    expect(String(dry.stdout)).toMatch(/^Dry run: would move 1 of 1 turns \(the last in part\) .*would keep the last 20 steps; the cut falls inside a turn, whose opening message would be repeated after the marker\.$/m);
    expect((await readFile(files.messages)).equals(original)).toBe(true);
    const run = await box.run(['compact']);
    expect(run.exitCode).toBe(0);
    expect(String(run.stdout)).toMatch(/kept the last 20 steps; the cut falls inside a turn, whose opening message is repeated after the marker\./);
    const archive = /Undo: wmem restore (\S+)/.exec(String(run.stdout))![1]!;
    const lead = (await leadingMarker(files))!;
    expect(lead.replaced.equals(openingLine(original))).toBe(true);
    await runJson(box, ['restore', archive]);
    expect((await readFile(files.messages)).equals(original)).toBe(true);
  });
});

describe('--keep-steps with --keep-recent', () => {
  // Four turns, the second holding most of the 40 tool calls.
  const fixture = path.join(FIXTURES, 'claude-code-log/ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl');

  it('changes nothing from a turn cut when the last N turns hold no more than M steps', async () => {
    const original = await readFile(fixture);
    const files = await sessionWith(box, { fixture });
    const plain = await runJson(box, ['compact', '--keep-recent', '3', '--keep-steps', '1000', '--dry-run']);
    expect(plain.cutInsideTurn).toBeUndefined();
    const steps = plain.counts.stepsKept as number;
    // Exactly as many steps as the last turn holds: the same turn cut.
    expect(steps).toBeGreaterThan(1);
    const same = await runJson(box, ['compact', '--keep-recent', '3', '--keep-steps', String(steps), '--dry-run']);
    expect(same.counts).toEqual(plain.counts);
    expect(same.cutInsideTurn).toBeUndefined();
    const cut = await runJson(box, ['compact', '--keep-recent', '3', '--keep-steps', String(steps)]);
    expect(cut.counts).toMatchObject({ turnsKept: 3, stepsKept: steps, linesArchived: plain.counts.linesArchived });
    // One step fewer, and the cut moves inside those turns.
    expect((await runJson(box, ['compact', '--keep-recent', '3', '--keep-steps', String(steps - 1), '--dry-run'])).cutInsideTurn).toBe(true);
    const lead = (await leadingMarker(files))!;
    expect(lead.replaced.length).toBe(0);
    await runJson(box, ['restore', cut.archive]);
    expect((await readFile(files.messages)).equals(original)).toBe(true);
  });

  it('cuts inside the newest turns when they hold more, never between a call and its result', async () => {
    const original = await readFile(fixture);
    const files = await sessionWith(box, { fixture });
    for (const keepSteps of [1, 3, 8]) {
      const result = await runJson(box, ['compact', '--keep-recent', '3', '--keep-steps', String(keepSteps)]);
      expect(result.compacted).toBe(true);
      expect(result.counts.stepsKept).toBeLessThanOrEqual(keepSteps);
      const lead = (await leadingMarker(files))!;
      const archived = await readFile(path.join(files.workingMemory, result.archive));
      expect(Buffer.concat([archived, lead.rest]).equals(original)).toBe(true);
      expect([...linkIds(archived)].filter((id) => linkIds(lead.rest).has(id))).toEqual([]);
      if (result.cutInsideTurn) expect(lead.replaced.length).toBeGreaterThan(0);
      await runJson(box, ['restore', result.archive]);
      expect((await readFile(files.messages)).equals(original)).toBe(true);
    }
  });
});

describe('--keep-steps refuses what is not a whole number ≥ 1', () => {
  it.each([['0'], ['-3'], ['abc'], ['2.5'], ['']])('--keep-steps %j: exit 2, one line naming the flag, nothing changed', async (value) => {
    const fixture = path.join(FIXTURES, SINGLE_TURN[0]!.fixture);
    const files = await sessionWith(box, { fixture });
    const run = await box.run(['compact', '--keep-steps', value]);
    expect(run.exitCode).toBe(2);
    expect(String(run.stderr).trim()).toBe(`wmem: --keep-steps must be a whole number ≥ 1, not ${JSON.stringify(value)}`);
    expect(String(run.stdout)).toBe('');
    expect((await readFile(files.messages)).equals(await readFile(fixture))).toBe(true);
  });
});

describe('a long single turn (the quick way)', () => {
  it('cuts inside the turn without parsing what it archives, finishes, and restores byte for byte', async () => {
    // One request and 24,000 steps (a Claude Code tool call and its result each): over 8 MiB.
    const J = (v: unknown) => JSON.stringify(v);
    const lines = [J({ type: 'user', uuid: 'u0', message: { role: 'user', content: 'Fix every failing test under src/' } })];
    for (let i = 0; i < 24_000; i++) {
      lines.push(J({ type: 'assistant', uuid: `a${i}`, message: { id: `msg_${i}`, role: 'assistant', content: [{ type: 'tool_use', id: `toolu_${i}`, name: 'Bash', input: { command: `npm test -- src/file${i}.test.ts` } }] } }));
      lines.push(J({ type: 'user', uuid: `r${i}`, message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: `toolu_${i}`, content: `PASS src/file${i}.test.ts (12 tests)` }] }, toolUseResult: { stdout: 'PASS' } }));
    }
    const original = Buffer.from(lines.join('\n') + '\n');
    expect(original.length).toBeGreaterThan(8 << 20);
    const files = await sessionWith(box, original);
    const result = await runJson(box, ['compact', '--wait'], { timeout: 60_000 });
    expect(result).toMatchObject({ compacted: true, cutInsideTurn: true, finishing: 'done', counts: { stepsKept: 20, turnsArchived: 1, turnsKept: 0, linesAfter: 42 } });
    const lead = (await leadingMarker(files))!;
    expect(lead.marker.archiveSha256).toBe('');
    expect(lead.replaced.toString()).toBe(lines[0] + '\n');
    const archived = await readFile(path.join(files.workingMemory, result.archive));
    expect(Buffer.concat([archived, lead.rest]).equals(original)).toBe(true);
    expect(splitLines(lead.rest)).toHaveLength(40);
    await runJson(box, ['restore', result.archive], { timeout: 60_000 });
    expect((await readFile(files.messages)).equals(original)).toBe(true);
  }, 120_000);
});
