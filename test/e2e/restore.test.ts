import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { FIXTURES, runJson, sandbox, type Sandbox } from '../helpers/cli.js';
import { generatedHistory, sessionWith, treeSnapshot } from '../helpers/history-e2e.js';

let box: Sandbox;
beforeEach(async () => {
  box = await sandbox();
});
afterEach(async () => {
  await box.cleanup();
});

describe('wmem restore', () => {
  it('round-trips a file with no final newline (edge_cases.jsonl), whole or in part', async () => {
    const fixture = path.join(FIXTURES, 'claude-code-log/edge_cases.jsonl');
    const original = await readFile(fixture);
    expect(original.at(-1)).not.toBe(10);
    const files = await sessionWith(box, { fixture });
    const whole = await runJson(box, ['compact', '--keep-recent', '0']);
    expect(whole.compacted).toBe(true);
    await runJson(box, ['restore', whole.archive]);
    expect((await readFile(files.messages)).equals(original)).toBe(true);
  });

  it('round-trips a history whose last line is truncated mid-JSON', async () => {
    const full = generatedHistory(9);
    const original = full.slice(0, full.length - 40);
    const files = await sessionWith(box, original);
    const a = await runJson(box, ['compact', '--keep-recent', '4']);
    const b = await runJson(box, ['compact', '--keep-recent', '2']);
    const c = await runJson(box, ['compact', '--keep-recent', '0']);
    expect(await readFile(files.messages, 'utf8')).not.toContain('Turn 8');
    for (const r of [c, b, a]) await runJson(box, ['restore', r.archive]);
    expect(await readFile(files.messages, 'utf8')).toBe(original);
  });

  it('round-trips CRLF lines and lines appended after the compaction', async () => {
    const original = generatedHistory(8).replace(/\n/g, '\r\n');
    const files = await sessionWith(box, original);
    const r = await runJson(box, ['compact', '--keep-recent', '2']);
    const appended = '{"role":"user","content":"later"}\n';
    await writeFile(files.messages, (await readFile(files.messages, 'utf8')) + appended);
    await runJson(box, ['restore', path.basename(r.archive)]);
    expect(await readFile(files.messages, 'utf8')).toBe(original + appended);
  });

  it('restores several compactions only newest first, and says which to restore first (exit 3)', async () => {
    const original = generatedHistory(12);
    const files = await sessionWith(box, original);
    const first = await runJson(box, ['compact', '--keep-recent', '6']);
    const second = await runJson(box, ['compact', '--keep-recent', '2']);
    const before = await treeSnapshot(files.dir);
    const wrong = await box.run(['restore', first.archive]);
    expect(wrong.exitCode).toBe(3);
    expect(String(wrong.stderr)).toContain(`wmem: ${first.archive} was compacted again later: its marker is in ${second.archive}`);
    expect(await treeSnapshot(files.dir)).toEqual(before);
    await runJson(box, ['restore', second.archive]);
    await runJson(box, ['restore', first.archive]);
    expect(await readFile(files.messages, 'utf8')).toBe(original);
    const again = await box.run(['restore', first.archive]);
    expect(again.exitCode).toBe(3);
    expect(String(again.stderr)).toMatch(/already restored/);
  });

  it('refuses a missing archive, a path outside working-memory/ and a changed archive', async () => {
    const files = await sessionWith(box, generatedHistory(8));
    const r = await runJson(box, ['compact', '--keep-recent', '2']);
    for (const bad of ['archive/nope.jsonl', 'archive/', 'detail', '../meta.json', '/etc/passwd', 'archive/../../messages.jsonl']) {
      const result = await box.run(['restore', bad]);
      expect(result.exitCode, bad).toBe(2);
      expect(String(result.stderr)).toMatch(/^wmem: /);
      expect(String(result.stderr)).not.toMatch(/\n\s+at /);
      if (bad === 'archive/' || bad === 'detail') expect(String(result.stderr)).toMatch(/is not a file/);
    }
    const archive = path.join(files.workingMemory, r.archive);
    await writeFile(archive, (await readFile(archive, 'utf8')).replace('Turn 0', 'Turn X'));
    const changed = await box.run(['restore', r.archive]);
    expect(changed.exitCode).toBe(3);
    expect(String(changed.stderr)).toMatch(/is not the archive its marker describes/);
  });
});
