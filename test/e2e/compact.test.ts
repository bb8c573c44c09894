import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { FIXTURES, runJson, sandbox, type Sandbox } from '../helpers/cli.js';
import { generatedHistory, leadingMarker, linkIds, sessionWith, treeSnapshot } from '../helpers/history-e2e.js';

function fixtureFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) out.push(...fixtureFiles(p));
    else if (name.endsWith('.jsonl')) out.push(p);
  }
  return out;
}
const fixtures = fixtureFiles(FIXTURES);

let box: Sandbox;
beforeEach(async () => {
  box = await sandbox();
});
afterEach(async () => {
  await box.cleanup();
});

describe('compaction of every fixture', () => {
  it('finds all twelve fixtures', () => {
    expect(fixtures.length).toBe(12);
  });

  for (const fixture of fixtures) {
    const name = path.relative(FIXTURES, fixture);
    it(`${name}: lossless, keeps tool pairs together, restores byte for byte`, async () => {
      const original = await readFile(fixture);
      const files = await sessionWith(box, { fixture });
      // --target tools: old tool outputs cut (when any is long enough), restored exactly.
      const tools = await runJson(box, ['compact', '--target', 'tools', '--keep-recent', '0']);
      if (tools.compacted) {
        expect(tools.counts.toolOutputsPruned).toBeGreaterThan(0);
        expect(await readFile(files.messages, 'utf8')).toContain('[wmem: ');
        await runJson(box, ['restore', tools.archive]);
      }
      expect((await readFile(files.messages)).equals(original)).toBe(true);
      for (const keep of [1, 0]) {
        const result = await runJson(box, ['compact', '--keep-recent', String(keep)]);
        if (!result.compacted) {
          expect(result.reason).toMatch(/nothing to compact/);
          expect(await readFile(files.messages)).toEqual(original);
          continue;
        }
        const lead = (await leadingMarker(files))!;
        expect(lead.marker.archive).toBe(result.archive);
        const archived = await readFile(path.join(files.workingMemory, result.archive));
        // Lossless: the archive then the kept lines are the original file, byte for byte.
        expect(Buffer.concat([archived, lead.rest]).equals(original)).toBe(true);
        // Tool-pair integrity: no tool call id or Claude Code message.id on both sides of the cut.
        const across = [...linkIds(archived)].filter((id) => linkIds(lead.rest).has(id));
        expect(across).toEqual([]);
        // The transcript and the overview index.
        const transcript = await readFile(path.join(files.workingMemory, result.details[0]), 'utf8');
        expect(transcript).toMatch(/^---\nwmem: "detail"[\s\S]*kind: "conversation"[\s\S]*messages: \d+ *\n[\s\S]*---\n/);
        const overview = await readFile(path.join(files.workingMemory, 'overview.md'), 'utf8');
        expect(overview).toContain(`- ${result.details[0]} — conversation turns 1-`);
        await runJson(box, ['restore', result.archive]);
        expect((await readFile(files.messages)).equals(original)).toBe(true);
      }
    });
  }
});

describe('wmem compact', () => {
  it('--dry-run prints the plan and changes nothing', async () => {
    const files = await sessionWith(box, generatedHistory(12));
    const before = await treeSnapshot(files.dir);
    const result = await runJson(box, ['compact', '--dry-run', '--keep-recent', '3', '--strategy', 'summarize']);
    expect(result).toMatchObject({ dryRun: true, compacted: false, counts: { turnsBefore: 12, turnsArchived: 9, turnsKept: 3, messagesArchived: 36 } });
    expect(result.archive).toMatch(/^archive\/messages-.*\.jsonl$/);
    expect(await treeSnapshot(files.dir)).toEqual(before);
    const text = await box.run(['compact', '--dry-run', '--keep-recent', '3']);
    expect(text.exitCode).toBe(0);
    expect(String(text.stdout)).toMatch(/^Dry run: would move 9 of 12 turns/);
    expect(await treeSnapshot(files.dir)).toEqual(before);
  });

  it('refuses --archive-to outside working-memory/ (exit 2, one clear line, nothing changed)', async () => {
    const files = await sessionWith(box, generatedHistory(8));
    const before = await treeSnapshot(files.dir);
    await writeFile(path.join(files.workingMemory, 'archive', 'taken.jsonl'), 'x\n');
    for (const bad of ['../outside.jsonl', '/tmp/outside.jsonl', 'archive/../../escape.jsonl', 'overview.md', 'archive/taken.jsonl', path.join(box.root, 'x.jsonl')]) {
      const r = await box.run(['compact', '--archive-to', bad]);
      expect(r.exitCode, bad).toBe(2);
      expect(String(r.stderr)).toMatch(/^wmem: .*--archive-to/);
      expect(String(r.stderr)).not.toMatch(/\n\s+at /);
    }
    const after = await treeSnapshot(files.dir);
    delete after['working-memory/archive/taken.jsonl'];
    expect(after).toEqual(before);
  });

  it('--archive-to a path inside working-memory/ is used, and restore finds it', async () => {
    const original = generatedHistory(8);
    const files = await sessionWith(box, original);
    const result = await runJson(box, ['compact', '--archive-to', 'archive/before-refactor.jsonl']);
    expect(result.archive).toBe('archive/before-refactor.jsonl');
    await runJson(box, ['restore', 'archive/before-refactor.jsonl']);
    expect(await readFile(files.messages, 'utf8')).toBe(original);
    // A folder that does not exist yet is made (private); a bare name at the top of
    // working-memory/ is what the printed Undo line names, and restore finds it there.
    const nested = await runJson(box, ['compact', '--archive-to', 'archive/sub/x.jsonl']);
    expect(statSync(path.join(files.workingMemory, 'archive', 'sub')).mode & 0o777).toBe(0o700);
    await runJson(box, ['restore', nested.archive]);
    const text = await box.run(['compact', '--archive-to', 'before.jsonl']);
    expect(text.exitCode).toBe(0);
    const undo = /Undo: wmem (restore \S+)/.exec(String(text.stdout))![1]!.split(' ');
    await runJson(box, undo);
    expect(await readFile(files.messages, 'utf8')).toBe(original);
  });

  it('says plainly what is wrong with messages.jsonl or the flags, without a stack trace', async () => {
    const files = await sessionWith(box, generatedHistory(8));
    const warned = await box.run(['compact', '--summarizer', 'cat', '--dry-run', '--json']);
    expect(warned.exitCode).toBe(0);
    expect(String(warned.stderr)).toMatch(/--summarizer is used only with --strategy summarize/);
    const nothing = await runJson(box, ['compact', '--keep-recent', '9']);
    expect(nothing).toMatchObject({ compacted: false, counts: { linesBefore: 32, linesAfter: 32, turnsBefore: 8 } });
    await rm(files.messages);
    await mkdir(files.messages);
    await writeFile(path.join(files.workingMemory, 'archive', 'x.jsonl'), '{}\n');
    for (const args of [['compact'], ['restore', 'x.jsonl']]) {
      const run = await box.run(args);
      expect(run.exitCode).toBe(2);
      expect(String(run.stderr)).toMatch(/messages\.jsonl is not a file/);
      expect(String(run.stderr)).not.toMatch(/\n\s+at /);
    }
  });

  it('summarizes with an external command: its summary goes to detail/, the marker and Recent Actions', async () => {
    const files = await sessionWith(box, generatedHistory(10));
    const result = await runJson(box, ['compact', '--strategy', 'summarize', '--summarizer', "grep -c '^### ' | sed 's/^/Summary: messages seen = /'"]);
    expect(result.summary.trim()).toBe('Summary: messages seen = 20');
    const summaryFile = result.details.find((d: string) => d.endsWith('-summary.md'));
    expect(await readFile(path.join(files.workingMemory, summaryFile), 'utf8')).toContain('Summary: messages seen = 20');
    const overview = await readFile(path.join(files.workingMemory, 'overview.md'), 'utf8');
    expect(overview).toMatch(/## Recent Actions[\s\S]*Summary: messages seen = 20/);
    expect((await leadingMarker(files))!.rest.length).toBeGreaterThan(0);
    expect(await readFile(files.messages, 'utf8')).toMatch(/^\{"type":"system","subtype":"wmem_compaction","content":"[^\n]*Summary: messages seen = 20/);
  });

  it('summarizer failure or timeout changes nothing and says why (exit 1)', async () => {
    const files = await sessionWith(box, generatedHistory(10));
    const before = await treeSnapshot(files.dir);
    const failed = await box.run(['compact', '--strategy', 'summarize', '--summarizer', 'echo boom >&2; exit 3']);
    expect(failed.exitCode).toBe(1);
    expect(String(failed.stderr)).toMatch(/^wmem: summarizer exited with 3: .*\(boom\)\n  nothing was changed/);
    expect(await treeSnapshot(files.dir)).toEqual(before);
    const slow = await box.run(['compact', '--strategy', 'summarize', '--summarizer', 'sleep 10', '--timeout', '1']);
    expect(slow.exitCode).toBe(1);
    expect(String(slow.stderr)).toMatch(/^wmem: summarizer timed out after 1 s/);
    expect(await treeSnapshot(files.dir)).toEqual(before);
    const empty = await box.run(['compact', '--strategy', 'summarize', '--summarizer', 'true']);
    expect(empty.exitCode).toBe(1);
    expect(String(empty.stderr)).toMatch(/summarizer printed nothing/);
    expect(await treeSnapshot(files.dir)).toEqual(before);
  });

  it('writes a built-in extractive summary (requests, decisions, files, commands)', async () => {
    const files = await sessionWith(box, generatedHistory(10));
    const result = await runJson(box, ['compact', '--strategy', 'summarize']);
    expect(result.summary).toMatch(/^Compacted 5 turns \(20 messages, 20 lines\): Turn 0: list the files/);
    expect(result.summary).toContain('## Requests');
    expect(result.summary).toContain('## Decisions');
    expect(result.summary).toContain('## Commands run\n- ls src/dir0');
    const overview = await readFile(path.join(files.workingMemory, 'overview.md'), 'utf8');
    expect(overview).toContain('Compacted 5 turns (20 messages, 20 lines)');
  });

  it('--target tools cuts old tool outputs, keeps each in detail/ with a pointer, and restores', async () => {
    const original = generatedHistory(10, 200);
    const files = await sessionWith(box, original);
    const result = await runJson(box, ['compact', '--target', 'tools', '--keep-recent', '2']);
    expect(result.compacted).toBe(true);
    // 8 old turns, each with the output in the tool_result and in toolUseResult.stdout.
    expect(result.counts.toolOutputsPruned).toBe(16);
    expect(result.counts.turnsArchived).toBe(0);
    const current = await readFile(files.messages, 'utf8');
    const lines = current.split('\n').filter(Boolean);
    expect(lines.length).toBe(41);
    expect(current).toContain('[wmem: listing output cut from 200 lines; full text: working-memory/detail/');
    expect(current.length).toBeLessThan(original.length / 2);
    const toolsDetail = await readFile(path.join(files.workingMemory, result.details[0]), 'utf8');
    expect(toolsDetail).toContain(Array.from({ length: 200 }, (_, i) => `src/dir0/file${i}.ts`).join('\n'));
    expect(toolsDetail).toContain('## output-8');
    // The newest turns are untouched.
    expect(current).toContain(Array.from({ length: 200 }, (_, i) => `src/dir9/file${i}.ts`).join('\\n'));
    await runJson(box, ['restore', result.archive]);
    expect(await readFile(files.messages, 'utf8')).toBe(original);
  });

  it('--target all archives old turns and cuts tool outputs in the kept ones but the newest', async () => {
    const original = generatedHistory(10, 200);
    const files = await sessionWith(box, original);
    const result = await runJson(box, ['compact', '--target', 'all', '--keep-recent', '3']);
    expect(result.counts).toMatchObject({ turnsArchived: 7, turnsKept: 3, toolOutputsPruned: 4 });
    const current = await readFile(files.messages, 'utf8');
    expect(current.split('\n').filter(Boolean).length).toBe(13);
    await runJson(box, ['restore', result.archive]);
    expect(await readFile(files.messages, 'utf8')).toBe(original);
  });

  it('--target all with nothing to cut in the kept turns archives the old turns only, and restores', async () => {
    const original = generatedHistory(10, 3);
    const files = await sessionWith(box, original);
    const result = await runJson(box, ['compact', '--target', 'all', '--keep-recent', '3']);
    expect(result.counts).toMatchObject({ turnsArchived: 7, turnsKept: 3, toolOutputsPruned: 0 });
    // The archive holds exactly the removed prefix, and its recorded digest matches (restore checks it).
    expect(await readFile(path.join(files.workingMemory, result.archive), 'utf8')).toBe(original.slice(0, result.counts.bytesArchived));
    await runJson(box, ['restore', result.archive]);
    expect(await readFile(files.messages, 'utf8')).toBe(original);
  });

  it('two compactions at once: one waits for the other, nothing is corrupted', async () => {
    const original = generatedHistory(20_000, 3);
    const files = await sessionWith(box, original);
    const [a, b] = await Promise.all([box.run(['compact', '--keep-recent', '5', '--json'], { timeout: 90_000 }), box.run(['compact', '--keep-recent', '3', '--json'], { timeout: 90_000 })]);
    for (const r of [a, b]) {
      // Either it ran (before or after the other) or it failed clearly on the lock.
      if (r.exitCode !== 0) expect(String(r.stderr)).toMatch(/^wmem: .* is locked by another wmem process/);
      else expect(JSON.parse(String(r.stdout)).session).toBeTruthy();
    }
    expect([a.exitCode, b.exitCode]).toContain(0);
    const leftovers = (await readdir(files.dir)).filter((n) => n.endsWith('.tmp'));
    expect(leftovers).toEqual([]);
    const made = (await readdir(path.join(files.workingMemory, 'archive'))).sort().reverse();
    for (const archive of made) await runJson(box, ['restore', archive]);
    expect(await readFile(files.messages, 'utf8')).toBe(original);
  }, 120_000);
});
