// `wmem report` end to end: from a session built on a real transcript, a page with the chart,
// the compaction linked to its archive, the notes (markup shown as text), the overview; written
// 0600 into the session folder by default, to stdout with --out -, the same bytes twice; --all
// adds a row per session; a 100,000-message history gives a page under 2 MB.
import { afterEach, beforeEach, expect, it } from 'vitest';
import { readFile, stat, writeFile } from 'node:fs/promises';
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

it('keeps a 100,000-message session under 2 MB', async () => {
  const dir = (await runJson(box, ['init'])).path as string;
  const lines: string[] = [];
  for (let i = 0; i < 100_000; i++) {
    lines.push(JSON.stringify({ type: 'assistant', timestamp: new Date(Date.UTC(2026, 10, 1) + i * 1000).toISOString(), message: { id: `m${i}`, role: 'assistant', model: 'claude-sonnet-4-5', content: [{ type: 'text', text: 'ok' }], usage: { input_tokens: 10, cache_read_input_tokens: 1000 + ((i * 37) % 150_000), cache_creation_input_tokens: 0 } } }));
  }
  await writeFile(path.join(dir, 'messages.jsonl'), lines.join('\n') + '\n');
  const { file, bytes } = await runJson(box, ['report'], { timeout: 60_000 });
  expect(bytes).toBeLessThan(2 * 1024 * 1024);
  expect(await readFile(file, 'utf8')).toContain('100,000 requests');
});

it('refuses --out into a folder that does not exist, and --open with --out -', async () => {
  await runJson(box, ['init']);
  const missing = await box.run(['report', '--out', path.join(box.root, 'no', 'such', 'r.html')]);
  expect(missing.exitCode).toBe(2);
  expect(String(missing.stderr)).toMatch(/the folder .*no\/such does not exist/);
  const both = await box.run(['report', '--out', '-', '--open']);
  expect(both.exitCode).toBe(2);
});
