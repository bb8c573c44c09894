// `wmem report` end to end: from a session built on a real transcript, a page with the chart,
// the compaction linked to its archive, the notes (markup shown as text), the overview; written
// 0600 into the session folder by default, to stdout with --out -, the same bytes twice; --all
// adds a row per session. A 100,000-message history: report-scale.test.ts (the slow tier).
import { afterEach, beforeEach, expect, it } from 'vitest';
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { runJson, sandbox, type Sandbox } from '../helpers/cli.js';
import { MARKUP_NOTE, reportSession } from '../helpers/report-session.js';

let box: Sandbox;
beforeEach(async () => {
  box = await sandbox();
});
afterEach(async () => {
  await box.cleanup();
});

it('writes a self-contained page into the session folder, the same bytes each time', async () => {
  const { dir } = await reportSession(box);
  const first = await runJson(box, ['report']);
  expect(first.file).toBe(path.join(dir, 'report.html'));
  expect((await stat(first.file)).mode & 0o777).toBe(0o600);
  const html = await readFile(first.file, 'utf8');
  expect(html).toContain('<svg class="chart"');
  expect(html).toMatch(/<a href="working-memory\/archive\/messages-[^"]+\.jsonl"><g class="compaction"/);
  expect(html).toContain('&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt; stays text');
  expect(html).not.toContain(MARKUP_NOTE);
  expect(html).toContain('Chose git worktrees over clones');
  expect(html).toMatch(/class="event error"/);
  expect(html).toContain('Split the worktree experiments');
  expect(html).not.toMatch(/<script|https?:\/\/(?!www\.w3\.org)/);
  const stdout = String((await box.run(['report', '--out', '-'])).stdout);
  await runJson(box, ['report']);
  expect(await readFile(first.file, 'utf8')).toBe(html);
  // On stdout the links are relative to the session folder too, so the bytes match.
  expect(stdout + '\n').toBe(html);
});

it('--all adds a row per session of the project', async () => {
  await reportSession(box);
  await runJson(box, ['init', '--new']);
  const { file } = await runJson(box, ['report', '--all']);
  const html = await readFile(file, 'utf8');
  expect(html.match(/<table class="sessions">[\s\S]*?<\/table>/)![0].match(/<tr><td>/g)).toHaveLength(2);
});

it('refuses --out into a folder that does not exist, and --open with --out -', async () => {
  await runJson(box, ['init']);
  const missing = await box.run(['report', '--out', path.join(box.root, 'no', 'such', 'r.html')]);
  expect(missing.exitCode).toBe(2);
  expect(String(missing.stderr)).toMatch(/the folder .*no\/such does not exist/);
  const both = await box.run(['report', '--out', '-', '--open']);
  expect(both.exitCode).toBe(2);
});
