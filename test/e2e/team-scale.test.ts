// Team memory at team size, end to end: a repository whose .wmem/memory.md holds 500, 5,000 or
// 50,000 entries (20 MB). The injected block stays within its budget, filled by priority (feedback
// first, newest first) to the brim, and counts the rest with how to reach them; `wmem memories
// --team` lists every entry, `wmem search` finds one the block left out, and `share --check` warns
// with the count that is not injected instead of failing.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { execa } from 'execa';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { sandbox, type Sandbox } from '../helpers/cli.js';

let box: Sandbox;
beforeEach(async () => {
  box = await sandbox();
  await execa('git', ['init', '-q', box.project]);
  expect((await box.run(['init'])).exitCode).toBe(0);
});
afterEach(async () => {
  await box.cleanup();
});

const TYPES = ['project', 'decision', 'feedback', 'reference'] as const;

interface Planted {
  id: string;
  type: string;
  text: string;
  updated: string;
  line: number;
}

/** `count` entries of every type, texts of varied length (`pad` more words each), all within 40 days (no age marks). */
async function plantTeamFile(count: number, pad = 0): Promise<Planted[]> {
  const header = ['# Team memory', '', '<!-- written for a test -->', ''];
  const entries: Planted[] = [];
  for (let n = 0; n < count; n++) {
    const id = `m-${n.toString(16).padStart(8, '0')}`;
    const filler = ' and then'.repeat((n * 7) % 13 + pad);
    const text = `Fact ${n} about the module kw${n}x: its build step needs the cache warmed first${filler} before tests`;
    const updated = new Date(Date.UTC(2026, 9, 1) + ((n * 7919) % (40 * 86_400)) * 1000).toISOString();
    entries.push({ id, type: TYPES[n % 4], text, updated, line: header.length + n + 1 });
  }
  const lines = entries.map((e) => `- [${e.type}] ${e.text} <!-- ${e.id}, 2026-09-01T00:00:00.000Z, ${e.updated} -->`);
  await mkdir(path.join(box.project, '.wmem'), { recursive: true });
  await writeFile(path.join(box.project, '.wmem', 'memory.md'), [...header, ...lines].join('\n') + '\n');
  return entries;
}

const rendered = (e: Planted) => `- [${e.type}] ${e.text} (${e.id}, team)`;

async function workspaceBlock(timeout = 20_000): Promise<string[]> {
  const r = await box.run(['context', '--part', 'memory'], { timeout });
  expect(r.exitCode, String(r.stderr)).toBe(0);
  const block = /<workspace_memory>\n([\s\S]*?)\n<\/workspace_memory>/.exec(String(r.stdout));
  expect(block, String(r.stdout)).not.toBeNull();
  return block![1].split('\n');
}

describe('a big team file', () => {
  it.each([500, 5000])('with %i entries: the block is full to its budget by priority, counts the rest, and search finds one left out', async (count) => {
    const planted = await plantTeamFile(count);
    const lines = await workspaceBlock();
    const more = /^(\d+) more not shown: `wmem memories --team`, `wmem search`$/.exec(lines[lines.length - 1]);
    expect(more, lines.join('\n')).not.toBeNull();
    const shownLines = lines.slice(0, -1);
    const shown = planted.filter((e) => shownLines.includes(rendered(e)));
    expect(shown).toHaveLength(shownLines.length);
    expect(Number(more![1])).toBe(count - shown.length);
    // Within its budget (28 entries, 5,200 characters) and full: nothing left out would have fitted.
    const body = lines.join('\n');
    expect(shown.length).toBeLessThanOrEqual(28);
    expect(body.length).toBeLessThanOrEqual(5200);
    const left = planted.filter((e) => !shown.includes(e));
    if (shown.length < 28) for (const e of left) expect(body.length + rendered(e).length + 1).toBeGreaterThan(5200);
    // By priority: feedback first, and the newest feedback entry is in.
    expect(shown.every((e) => e.type === 'feedback')).toBe(true);
    const feedback = planted.filter((e) => e.type === 'feedback').sort((a, b) => b.updated.localeCompare(a.updated));
    expect(shown).toContain(feedback[0]);
    // Every entry is reachable: memories --team lists all, search finds one the block left out.
    const listed = JSON.parse(String((await box.run(['memories', '--json'])).stdout));
    expect(listed.notShown).toBe(count - shown.length);
    expect(String((await box.run(['memories', '--team'])).stdout).split(', team)').length - 1).toBe(count);
    const missing = left.find((e) => e.type === 'project')!;
    const search = JSON.parse(String((await box.run(['search', `kw${missing.text.split('kw')[1].split('x')[0]}x`, '--json'])).stdout));
    expect(search.hits[0]).toMatchObject({ file: '.wmem/memory.md', line: missing.line });
    const check = await box.run(['share', '--check']);
    expect(check.exitCode, String(check.stdout)).toBe(0);
    expect(String(check.stdout)).toContain(`warning: over-limit: ${count - shown.length} of ${count} entries are not injected`);
  }, 180_000);

  it('with 50,000 entries in 20 MB: the context renders within budget and --check finishes', async () => {
    const planted = await plantTeamFile(50_000, 40);
    expect(planted.reduce((n, e) => n + e.text.length, 0)).toBeGreaterThan(19_000_000);
    const lines = await workspaceBlock(120_000);
    expect(lines.join('\n').length).toBeLessThanOrEqual(5200);
    expect(lines[lines.length - 1]).toMatch(/^\d+ more not shown/);
    // A second render reads the small cache, not the file: the same bytes.
    expect(await workspaceBlock(120_000)).toEqual(lines);
    const check = await box.run(['share', '--check', '--json'], { timeout: 120_000 });
    expect(check.exitCode).toBe(0);
    expect(JSON.parse(String(check.stdout))).toMatchObject({ entries: 50_000 });
  }, 300_000);
});
