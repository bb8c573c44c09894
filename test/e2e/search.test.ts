// End-to-end: `wmem search` over overview, scratch, detail, archive (with real archived
// transcripts from test/fixtures, copied first) and workspace memory.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { appendFile, copyFile, readdir, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { BIN, FIXTURES, sandbox, runJson, type Sandbox } from '../helpers/cli.js';

let box: Sandbox;
let dir: string;
const wm = (f: string) => path.join(dir, 'working-memory', f);

beforeEach(async () => {
  box = await sandbox();
  dir = (await runJson(box, ['init'])).path;
});
afterEach(async () => {
  await box.cleanup();
});

type Hit = { kind: string; file: string; line: number; snippet: string; resolved?: { file: string; line: number; snippet: string }[]; session?: string; date?: string; context?: { line: number; text: string }[] };

/** An archived conversation: one user/assistant exchange a line each, on the given UTC days. */
function exchange(days: [string, [string, string][]][]): string {
  const lines: string[] = [];
  for (const [day, turns] of days) {
    turns.forEach(([user, assistant], n) => {
      lines.push(JSON.stringify({ type: 'user', timestamp: `${day}T10:0${n}:00.000Z`, message: { role: 'user', content: user } }));
      lines.push(JSON.stringify({ type: 'assistant', timestamp: `${day}T10:0${n}:30.000Z`, message: { id: `msg_${day}_${n}`, role: 'assistant', content: [{ type: 'text', text: assistant }] } }));
    });
  }
  return lines.join('\n') + '\n';
}

async function search(query: string, ...flags: string[]): Promise<Hit[]> {
  return (await runJson(box, ['search', query, ...flags])).hits;
}

describe('search', () => {
  it('finds lines in every kind of file, with file, line and snippet', async () => {
    await box.run(['set', 'task', 'Port the exporter to the new HTML renderer']);
    await box.run(['note', 'The renderer caches HTML pages per session under ~/.cache']);
    await runJson(box, ['remember', 'Exports must keep the HTML renderer output stable', '--type', 'project']);
    await mkdir(wm('archive'), { recursive: true });
    await copyFile(path.join(FIXTURES, 'claude-code-log/89488521-e2e7-4d97-bc02-38197efdddc8.jsonl'), wm('archive/messages-20260101T000000000Z.jsonl'));
    const hits = await search('HTML renderer', '--limit', '20');
    const kinds = new Set(hits.map((h) => h.kind));
    for (const kind of ['overview', 'scratch', 'workspace', 'messages']) expect(kinds).toContain(kind);
    const wsHit = hits.find((h) => h.kind === 'workspace')!;
    expect(wsHit.file).toBe('workspace-memory.json');
    const wsLines = (await readFile(path.join(path.dirname(dir), 'workspace-memory.json'), 'utf8')).split('\n');
    expect(wsLines[wsHit.line - 1]).toContain('Exports must keep the HTML renderer output stable');
    const overviewHit = hits.find((h) => h.kind === 'overview')!;
    expect(overviewHit.file).toBe('working-memory/overview.md');
    expect(overviewHit.snippet).toContain('Port the exporter');
  });

  it('finds archived messages by what they say, at their line in the archive', async () => {
    await copyFile(path.join(FIXTURES, 'claude-code-log/89488521-e2e7-4d97-bc02-38197efdddc8.jsonl'), wm('archive/messages-20260101T000000000Z.jsonl'));
    const hits = await search('launch the cached session page instead of regenerating', '--limit', '3');
    expect(hits[0]).toMatchObject({ kind: 'messages', file: 'working-memory/archive/messages-20260101T000000000Z.jsonl' });
    expect([4, 5]).toContain(hits[0].line);
    // The extracted text is cached beside the session and reused.
    expect(existsSync(path.join(dir, 'state/search/messages-20260101T000000000Z.jsonl.txt'))).toBe(true);
    expect((await search('launch the cached session page instead of regenerating', '--limit', '3'))[0]).toEqual(hits[0]);
    // An archive that is gone (restored) takes its cache with it.
    await rm(wm('archive/messages-20260101T000000000Z.jsonl'));
    expect((await search('launch the cached session page instead of regenerating')).some((h) => h.kind === 'messages')).toBe(false);
    expect(existsSync(path.join(dir, 'state/search/messages-20260101T000000000Z.jsonl.txt'))).toBe(false);
  });

  it('finds the reply to the line that asked, on the day the query names, with its date and the lines around it', async () => {
    await mkdir(wm('archive'), { recursive: true });
    await writeFile(
      wm('archive/messages-20260101T000000000Z.jsonl'),
      exchange([
        ['2023-05-01', [['Which bundler should the release build use?', 'Pick esbuild: one binary and no plugins to keep.'], ['Any other release chores?', 'Tag and push.']]],
        ['2023-05-02', [['Which bundler should the docs site use?', 'Vite, for its dev server.'], ['Thanks.', 'You are welcome.']]],
      ]),
    );
    const hits = await search('which bundler did we pick for the docs site on May 2nd', '--limit', '3');
    // The answer (line 6) holds none of the question's words but follows the line that asked: the
    // exchange is one hit (the better of the two lines), the other line in its context.
    const top = hits[0];
    expect([5, 6]).toContain(top.line);
    expect(top).toMatchObject({ kind: 'messages', date: '2023-05-02' });
    expect([top.line, ...top.context!.map((c) => c.line)]).toEqual(expect.arrayContaining([5, 6]));
    expect([top.snippet, ...top.context!.map((c) => c.text)].join('\n')).toContain('Vite, for its dev server.');
    expect(hits.filter((h) => h.line === 5 || h.line === 6)).toHaveLength(1);
    // The CLI shows the same: date beside the hit, the lines around it below.
    const text = (await box.run(['search', 'which bundler for the docs site on May 2nd', '--limit', '1'])).stdout;
    expect(text).toMatch(/messages-20260101T000000000Z\.jsonl:\d+ 2023-05-02 /);
    expect(text).toMatch(/\n {4}[↑↓] \d+ {2}\S/);
  });

  it('between two people, puts first what the person the query names said', async () => {
    // A chat archived as user lines "<name>: <text>". Tom's reply echoes the words (twice, with
    // Kate's name); what Kate said holds them once: the query names Kate, so her line comes first.
    const said = [
      'Kate: Morning! Any plans for the weekend?',
      'Kate: I took up skiing last winter, up in the mountains.',
      'Tom: Kate, skiing is great! Skiing in the mountains every weekend is the best.',
      'Tom: I mostly stay in and read.',
      'Kate: Fair enough, reading is nice too.',
      'Tom: See you tomorrow.',
    ];
    await mkdir(wm('archive'), { recursive: true });
    await writeFile(wm('archive/messages-20260101T000000000Z.jsonl'), said.map((content, n) => JSON.stringify({ type: 'user', timestamp: `2023-05-01T10:0${n}:00.000Z`, message: { role: 'user', content } })).join('\n') + '\n');
    const hits = await search("Does Kate's skiing happen in the mountains?", '--limit', '2');
    expect(hits[0]).toMatchObject({ kind: 'messages', line: 2 });
    expect(hits[0].snippet).toContain('Kate: I took up skiing');
  });

  it('a when question puts first the line that says when', async () => {
    // Lines 1 and 3 hold the same words; line 3 also says when. Without the cue they tie and the
    // first line wins; the question asks "when", so line 3 comes first, in the CLI and in --json.
    const said = [
      'Sam: We moved the cache to Redis, a good call.',
      'Ana: That explains why the dashboard feels so much quicker than it did before the change.',
      'Sam: We moved the cache to Redis in late March.',
      'Ana: Nice, I will tell the others about it when I see them at the office on our next meeting.',
    ];
    await mkdir(wm('archive'), { recursive: true });
    await writeFile(wm('archive/messages-20260101T000000000Z.jsonl'), said.map((content, n) => JSON.stringify({ type: 'user', timestamp: `2023-05-01T10:0${n}:00.000Z`, message: { role: 'user', content } })).join('\n') + '\n');
    expect((await search('When did Sam move the cache to Redis?', '--limit', '2'))[0]).toMatchObject({ kind: 'messages', line: 3 });
    expect((await search('Did Sam move the cache to Redis?', '--limit', '2'))[0]).toMatchObject({ kind: 'messages', line: 1 });
    const text = (await box.run(['search', 'When did Sam move the cache to Redis?', '--limit', '1'])).stdout;
    expect(text).toContain('late March');
  });

  it('a compaction that archives more than a megabyte leaves its search text ready', async () => {
    const turns = Array.from({ length: 3000 }, (_, t) => [
      JSON.stringify({ type: 'user', message: { role: 'user', content: `turn ${t}: check module ${t % 50}` } }),
      JSON.stringify({ type: 'assistant', message: { id: `m${t}`, role: 'assistant', content: [{ type: 'text', text: `${t === 7 ? 'The flamingo cache key was stale. ' : ''}${'module output line '.repeat(20)}` }] } }),
    ]).flat();
    await writeFile(path.join(dir, 'messages.jsonl'), turns.join('\n') + '\n');
    const compacted = await runJson(box, ['compact', '--keep-recent', '2', '--wait']);
    const name = path.basename(compacted.archive);
    // Ready before any search ran: built by the compaction's finishing.
    expect(existsSync(path.join(dir, `state/search/${name}.txt`))).toBe(true);
    const hits = await search('flamingo cache key');
    // Found in the archive (and in its readable copy in detail/).
    expect(hits.some((h: { kind: string; file: string }) => h.kind === 'messages' && h.file === `working-memory/archive/${name}`)).toBe(true);
  });

  it('answers a question in other words (stemming and related words)', async () => {
    await box.run(['note', 'Deployed the staging build to fly.io; releases go out from main only']);
    await box.run(['note', 'The user likes tabs']);
    const hits = await search('how do we ship a release?');
    expect(hits[0].snippet).toContain('Deployed the staging build');
  });

  it('resolves a pointer: its keywords find the lines it replaced', async () => {
    const lines = Array.from({ length: 40 }, (_, i) => `- [2026-03-12T14:30:${String(i % 60).padStart(2, '0')}Z] (importance: 0.5) Fact ${i}: the CORS preflight on the P2P relay needs header number ${i}`);
    await appendFile(wm('scratch.md'), lines.join('\n') + '\n');
    expect((await box.run(['consolidate'])).exitCode).toBe(0);
    const pointer = (await runJson(box, ['consolidate', '--dry-run'])).nothingToDo;
    expect(pointer).toBe(true);
    const overview = String((await box.run(['show', 'overview'])).stdout);
    const keywords = /- Past: .* → search: `([^`]+)`/.exec(overview)![1];
    const hits = await search(keywords, '--limit', '20');
    const pointerHit = hits.find((h) => h.kind === 'overview' && h.snippet.startsWith('- Past:'));
    expect(pointerHit?.resolved?.length).toBeGreaterThan(0);
    expect(pointerHit!.resolved![0].file).toMatch(/^working-memory\/detail\/.*-past-context\.md$/);
    expect(pointerHit!.resolved!.some((r) => /Fact 0: the CORS preflight/.test(r.snippet))).toBe(true);
    // The replaced lines are search hits of their own too.
    const direct = await search('header number 0 CORS preflight', '--limit', '5');
    expect(direct.some((h) => h.kind === 'detail' && /Fact 0:/.test(h.snippet))).toBe(true);
  });

  it('--all-sessions searches every session of the project', async () => {
    await box.run(['note', 'Quokka mode is enabled in the first session']);
    const second = (await runJson(box, ['init', '--new'])).id;
    await box.run(['note', 'Nothing about that marsupial here']);
    expect(await search('quokka')).toEqual([]);
    const all = await search('quokka', '--all-sessions');
    expect(all).toHaveLength(1);
    expect(all[0].session).not.toBe(second);
    const text = await box.run(['search', 'quokka', '--all-sessions']);
    expect(String(text.stdout)).toMatch(/working-memory\/scratch\.md:\d+ {2}- \[.*Quokka mode/);
  });

  it('--limit caps the hits; an empty query is bad usage; no match says so', async () => {
    for (let i = 0; i < 5; i++) await box.run(['note', `Widget fact ${i} about the frobnicator`]);
    expect(await search('frobnicator', '--limit', '2')).toHaveLength(2);
    const empty = await box.run(['search', '  ']);
    expect(empty.exitCode).toBe(2);
    const none = await box.run(['search', 'zebra']);
    expect(none.exitCode).toBe(0);
    expect(String(none.stdout)).toMatch(/no match for "zebra"/);
    expect((await readdir(wm('detail'))).length).toBe(0);
  });

  it('searches under a Node whose V8 flags are frozen (the search entry then leaves them as they are)', async () => {
    // The search process turns V8's inlining off for itself when it walks many candidate lines of
    // an index (a detail file of 25,000 matching lines here); with frozen flags V8 would abort on it.
    await box.run(['note', 'The exporter writes HTML pages under ~/.cache']);
    await mkdir(wm('detail'), { recursive: true });
    await writeFile(wm('detail/exports.md'), Array.from({ length: 25_000 }, (_, i) => `exporter run ${i}`).join('\n') + '\n');
    // V8 takes a flag with dashes or underscores alike.
    for (const flag of ['--freeze-flags-after-init', '--freeze_flags_after_init']) {
      const run = await execa('node', [flag, BIN, 'search', 'exporter', '--json'], { cwd: box.project, reject: false, extendEnv: false, timeout: 60_000, env: { PATH: process.env.PATH ?? '', HOME: box.home, NO_COLOR: '1', WMEM_HOME: box.home } });
      expect(run.exitCode, flag).toBe(0);
      expect(JSON.parse(run.stdout).hits.map((h: Hit) => h.kind)).toContain('detail');
    }
  }, 180_000);
});
