// End-to-end: the built wmem against a temporary home, for every foundation command and the
// bad inputs the foundation issue lists. Each failure must be one clear line (plus a hint) on
// stderr with the right exit code, no stack trace, and no file changed.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { copyFile, mkdir, readFile, readdir, stat, symlink, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { execa } from 'execa';
import { BIN, FIXTURES, sandbox, runJson, type Sandbox } from '../helpers/cli.js';

let box: Sandbox;
beforeEach(async () => {
  box = await sandbox();
});
afterEach(async () => {
  await box.cleanup();
});

async function init(...args: string[]): Promise<{ id: string; path: string }> {
  return runJson(box, ['init', ...args]);
}
const wm = (session: { path: string }, file: string) => path.join(session.path, 'working-memory', file);

function expectCleanFailure(result: { exitCode?: number; stderr: unknown; stdout: unknown }, code: number, pattern: RegExp) {
  expect(result.exitCode).toBe(code);
  expect(String(result.stderr)).toMatch(pattern);
  expect(String(result.stderr)).not.toMatch(/^\s+at /m);
  expect(String(result.stdout)).toBe('');
}

describe('init', () => {
  it('creates the tree with private modes and prints id and path', async () => {
    const result = await box.run(['init']);
    expect(result.exitCode).toBe(0);
    const [id, dir] = String(result.stdout).split('\n');
    expect(id).toMatch(/^\d{8}T\d{9}Z-[0-9a-f]{6}$/);
    expect(dir).toBe(path.join(box.home, 'sessions', `--${box.project.slice(1).replace(/\//g, '-')}--`, id));
    for (const file of ['meta.json', 'messages.jsonl', 'working-memory/overview.md', 'working-memory/scratch.md']) {
      expect((await stat(path.join(dir, file))).mode & 0o777).toBe(0o600);
    }
    for (const folder of ['', 'working-memory', 'working-memory/detail', 'working-memory/archive']) {
      expect((await stat(path.join(dir, folder))).mode & 0o777).toBe(0o700);
    }
    const project = JSON.parse(await readFile(path.join(dir, '..', 'project.json'), 'utf8'));
    expect(project).toMatchObject({ version: 1, cwd: box.project });
    expect((await readFile(path.join(dir, '..', 'current'), 'utf8')).trim()).toBe(id);
    const meta = JSON.parse(await readFile(path.join(dir, 'meta.json'), 'utf8'));
    expect(meta).toMatchObject({ version: 1, id, cwd: box.project });
    // No window unless the user gives one: the session's model decides (wmem context says which).
    expect(meta.tokensMax).toBeUndefined();
  });

  it('is idempotent and never overwrites', async () => {
    const first = await init();
    await box.run(['set', 'task', 'keep me']);
    const before = await readFile(wm(first, 'overview.md'), 'utf8');
    const second = await init();
    expect(second.id).toBe(first.id);
    expect((second as any).created).toEqual([]);
    expect(await readFile(wm(first, 'overview.md'), 'utf8')).toBe(before);
    const third = await init('--session', first.id, '--lang', 'zh');
    expect(await readFile(wm(third, 'overview.md'), 'utf8')).toBe(before);
  });

  it('starts a named or a new session and makes it current', async () => {
    const a = await init('--session', 'my-agent-session');
    expect(a.id).toBe('my-agent-session');
    const b = await init('--new');
    expect(b.id).not.toBe(a.id);
    const list = await runJson(box, ['sessions']);
    expect(list.current).toBe(b.id);
    expect(list.sessions.map((s: any) => s.id).sort()).toEqual([a.id, b.id].sort());
  });

  it('uses the Chinese template with --lang zh, a template file, and --tokens-max', async () => {
    const zh = await init('--lang', 'zh', '--tokens-max', '128000');
    expect(await readFile(wm(zh, 'overview.md'), 'utf8')).toContain('## 关键决策');
    expect(JSON.parse(await readFile(path.join(zh.path, 'meta.json'), 'utf8')).tokensMax).toBe(128000);
    await writeFile(path.join(box.project, 'mine.md'), '---\nsections:\n  goal: { title: Goal, max_chars: 50 }\n---\n## Goal\n');
    const custom = await init('--new', '--template', 'mine.md');
    expect(await readFile(wm(custom, 'overview.md'), 'utf8')).toContain('## Goal');
    expectCleanFailure(await box.run(['set', 'goal', 'x'.repeat(51)]), 2, /limited to 50 characters/);
  });

  it('refuses a bad language, a missing or broken template, and a bad id', async () => {
    expectCleanFailure(await box.run(['init', '--lang', 'fr']), 2, /unknown --lang "fr"/);
    expectCleanFailure(await box.run(['init', '--template', 'nope.md']), 1, /nope\.md: no such file/);
    await writeFile(path.join(box.project, 'bad.md'), 'no sections here\n');
    expectCleanFailure(await box.run(['init', '--template', 'bad.md']), 2, /bad\.md has no sections/);
    expectCleanFailure(await box.run(['init', '--session', '../escape']), 2, /invalid session id "\.\.\/escape" \(from --session\)/);
    expect(await readdir(box.home)).toEqual([]);
  });

  it('refuses an unwritable home with exit 1', async () => {
    const file = path.join(box.root, 'not-a-folder');
    await writeFile(file, 'x');
    expectCleanFailure(await box.run(['init', '--home', path.join(file, 'home')]), 1, /not-a-folder.*(not a folder|no such file)/);
  });

  it('keeps two projects whose paths encode alike apart, and says so', async () => {
    const a = path.join(box.root, 'x', 'a-b', 'c');
    const b = path.join(box.root, 'x', 'a', 'b-c');
    await mkdir(a, { recursive: true });
    await mkdir(b, { recursive: true });
    const first = await runJson(box, ['init'], { cwd: a });
    const second = await box.run(['init', '--json'], { cwd: b });
    expect(second.exitCode).toBe(0);
    expect(String(second.stderr)).toMatch(/already belongs to .*a-b\/c; using .*--2 for .*a\/b-c/);
    const secondJson = JSON.parse(String(second.stdout));
    expect(secondJson.project).not.toBe(first.project);
    expect(secondJson.project).toBe(first.project + '2');
    await box.run(['note', 'only in a'], { cwd: a });
    expect((await runJson(box, ['show', 'scratch'], { cwd: b })).content).not.toContain('only in a');
  });
});

describe('session resolution', () => {
  it('refuses ids that collide with the project folder and links out of a session', async () => {
    for (const id of ['current', 'cache', 'project.json', 'off']) {
      expectCleanFailure(await box.run(['init', '--session', id]), 2, new RegExp(`invalid session id "${id.replace('.', '\\.')}"`));
    }
    const s = await init();
    const victim = path.join(box.root, 'victim.txt');
    await writeFile(victim, 'untouched\n');
    await (await import('node:fs/promises')).rm(wm(s, 'scratch.md'));
    await symlink(victim, wm(s, 'scratch.md'));
    expectCleanFailure(await box.run(['note', 'x']), 2, /scratch\.md is a symbolic link/);
    expect(await readFile(victim, 'utf8')).toBe('untouched\n');
  });

  it('uses --session, then WMEM_SESSION, then current', async () => {
    const a = await init('--session', 'aaa');
    const b = await init('--session', 'bbb');
    expect((await runJson(box, ['status'])).session).toBe(b.id);
    expect((await runJson(box, ['status'], { env: { WMEM_SESSION: 'aaa' } })).session).toBe(a.id);
    expect((await runJson(box, ['status', '--session', 'bbb'], { env: { WMEM_SESSION: 'aaa' } })).session).toBe(b.id);
  });

  it('explains a missing, unknown or invalid session', async () => {
    expectCleanFailure(await box.run(['context']), 2, new RegExp(`no session for ${box.project}: run 'wmem init'`));
    await init();
    expectCleanFailure(await box.run(['status', '--session', 'nope']), 2, /unknown session nope .*\n.*wmem sessions/);
    expectCleanFailure(await box.run(['note', 'x'], { env: { WMEM_SESSION: 'a/b' } }), 2, /invalid session id "a\/b" \(from WMEM_SESSION\)/);
    expectCleanFailure(await box.run(['context', '--cwd', path.join(box.root, 'missing')]), 2, /does not exist/);
  });
});

describe('note', () => {
  it('appends a line per note, from arguments or stdin, with importance and tags', async () => {
    const s = await init();
    await box.run(['note', 'User', 'prefers', 'tabs', '--importance', '0.9', '--tag', 'decisions']);
    await box.run(['note', '-'], { input: 'from stdin\nsecond line' });
    await box.run(['note', '- a list item']);
    const lines = (await readFile(wm(s, 'scratch.md'), 'utf8')).trim().split('\n').slice(1);
    expect(lines[0]).toMatch(/^- \[\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\] \(importance: 0\.9\) User prefers tabs #decisions$/);
    expect(lines[1]).toMatch(/\(importance: 0\.5\) from stdin\\nsecond line$/);
    expect(lines[2]).toMatch(/\) - a list item$/);
  });

  it('starts a new line after a hand-written last line and escapes control characters', async () => {
    const s = await init();
    await writeFile(wm(s, 'scratch.md'), 'a hand-written line without newline');
    await box.run(['note', 'after the hand edit']);
    await box.run(['note', '-'], { input: 'bell\u0007 esc\u001b[2J cr\r ls\u2028 end' });
    const lines = (await readFile(wm(s, 'scratch.md'), 'utf8')).split('\n');
    expect(lines[0]).toBe('a hand-written line without newline');
    expect(lines[1]).toMatch(/\) after the hand edit$/);
    expect(lines[2]).toMatch(/\) bell\\u\{7\} esc\\u\{1b\}\[2J cr\\u\{d\} ls\\u\{2028\} end$/);
    const status = await runJson(box, ['status']);
    expect(status).toMatchObject({ notes: 2, unparsedScratchLines: 1 });
    expectCleanFailure(await box.run(['note', '-'], { input: Buffer.from([0xff, 0xfe, 0x00, 0x80]) as unknown as string }), 2, /not UTF-8 text/);
  });

  it('refuses bad importance, empty text and secrets, writing nothing', async () => {
    const s = await init();
    const before = await readFile(wm(s, 'scratch.md'), 'utf8');
    expectCleanFailure(await box.run(['note', 'x', '--importance', '1.5']), 2, /--importance must be a number from 0 to 1/);
    expectCleanFailure(await box.run(['note', 'x', '--importance', 'high']), 2, /--importance/);
    expectCleanFailure(await box.run(['note', '-'], { input: '  \n' }), 2, /the note is empty/);
    expectCleanFailure(await box.run(['note', 'key is sk-ant-api03-abcdefghijklmnopqrstuvwxyz012345']), 2, /refused: .*Anthropic API key/);
    expectCleanFailure(await box.run(['note', 'x', '--tag', 'bad tag!']), 2, /invalid --tag/);
    expect(await readFile(wm(s, 'scratch.md'), 'utf8')).toBe(before);
  });

  it('loses and tears nothing when 8 processes append at once', async () => {
    const s = await init();
    const perProcess = 25;
    const writers = Array.from({ length: 8 }, (_, w) =>
      execa('node', ['-e', `
        const { spawnSync } = require('node:child_process');
        for (let i = 0; i < ${perProcess}; i++) {
          const r = spawnSync(process.execPath, [${JSON.stringify(BIN)}, 'note', 'writer ${w} note ' + i + ' ' + 'z'.repeat(200)], { encoding: 'utf8' });
          if (r.status !== 0) process.stdout.write('note ' + i + ' exited ' + r.status + ': ' + r.stderr);
        }
      `], { cwd: box.project, env: { PATH: process.env.PATH!, WMEM_HOME: box.home, HOME: box.home } }),
    );
    const failures = (await Promise.all(writers)).map((r) => String(r.stdout)).join('');
    expect(failures).toBe('');
    const lines = (await readFile(wm(s, 'scratch.md'), 'utf8')).split('\n').filter((l) => l.startsWith('- ['));
    expect(lines).toHaveLength(8 * perProcess);
    for (const line of lines) expect(line).toMatch(/^- \[[^\]]+\] \(importance: 0\.5\) writer \d note \d+ z{200}$/);
    const seen = new Set(lines.map((l) => l.replace(/^.*\) /, '').replace(/ z+$/, '')));
    expect(seen.size).toBe(8 * perProcess);
    // 200 process starts on a machine 8 writers load by themselves: 80 s at CI's load, 200 s at a
    // heavier one, within the tier's limit (test/vitest.config.ts).
  });
});

describe('locks', () => {
  it('takes over a lock left by a killed process instead of waiting forever', async () => {
    const s = await init();
    const lockDir = path.join(s.path, '.lock');
    await mkdir(lockDir);
    const old = new Date(Date.now() - 60_000);
    await utimes(lockDir, old, old);
    // Taken over at once, not waited for: a run that waited would wait up to a minute for the
    // lock (withLock's waitMs), past this run's 20 s limit, and fail. (No bound on the run's own
    // time: a loaded machine took over 5 s to start and finish it.)
    const result = await box.run(['note', 'after a crash'], { timeout: 20_000 });
    expect(result.exitCode).toBe(0);
    expect(await readFile(wm(s, 'scratch.md'), 'utf8')).toContain('after a crash');
  });

  it('treats a lock nobody refreshes as stale after a few seconds', async () => {
    const s = await init();
    await mkdir(path.join(s.path, '.lock'));
    const result = await box.run(['set', 'task', 'eventually'], { timeout: 30_000 });
    expect(result.exitCode).toBe(0);
    expect(await readFile(wm(s, 'overview.md'), 'utf8')).toContain('eventually');
  });

  it('holds a real lock against a concurrent writer: both edits land', async () => {
    await init();
    const [a, b] = await Promise.all([box.run(['append', 'progress', '- from a']), box.run(['append', 'progress', '- from b'])]);
    expect([a.exitCode, b.exitCode]).toEqual([0, 0]);
    const text = String((await box.run(['show', 'overview'])).stdout);
    expect(text).toContain('- from a');
    expect(text).toContain('- from b');
  });
});

describe('set and append', () => {
  it('replaces and appends within a section', async () => {
    const s = await init();
    expect((await box.run(['set', 'task', 'Build the parser'])).exitCode).toBe(0);
    await box.run(['append', 'progress', '- lexer done']);
    await box.run(['append', 'progress', '- parser started']);
    await box.run(['set', 'decisions', '-'], { input: 'Chose remark over regex: sections must survive code blocks.\n' });
    const text = await readFile(wm(s, 'overview.md'), 'utf8');
    expect(text).toMatch(/## Current Task\n<!--[^\n]*-->\nBuild the parser\n\n## Progress/);
    expect(text).toMatch(/## Progress\n<!--[^\n]*-->\n- lexer done\n- parser started\n\n## Key Decisions/);
    expect(text).toContain('Chose remark over regex');
    expect((await stat(wm(s, 'overview.md'))).mode & 0o777).toBe(0o600);
  });

  it('refuses over max_chars, unknown sections and headings, leaving the file untouched', async () => {
    const s = await init();
    await box.run(['set', 'task', 'original']);
    const before = await readFile(wm(s, 'overview.md'));
    expectCleanFailure(await box.run(['set', 'task', 'x'.repeat(501)]), 2, /section "task" .* limited to 500 characters; the new text would make it 501/);
    expectCleanFailure(await box.run(['append', 'task', 'y'.repeat(495)]), 2, /limited to 500 characters/);
    expectCleanFailure(await box.run(['set', 'nope', 'x']), 2, /unknown section "nope".*\n.*known sections: task, progress/);
    expectCleanFailure(await box.run(['append', 'progress', '## New Section\nx']), 2, /level-2 heading/);
    expectCleanFailure(await box.run(['append', 'task', '-'], { input: '' }), 2, /the text is empty/);
    expectCleanFailure(await box.run(['set', 'task', '```']), 2, /would change the sections/);
    expectCleanFailure(await box.run(['set', 'task', 'bell \u0007 and escape \u001b[2J']), 2, /control characters/);
    expect(await readFile(wm(s, 'overview.md'))).toEqual(before);
  });

  it('names the file when overview.md is malformed or missing', async () => {
    const s = await init();
    await writeFile(wm(s, 'overview.md'), '---\nsections: [oops\n---\n## Current Task\n');
    expectCleanFailure(await box.run(['set', 'task', 'x']), 2, /overview\.md: the front matter is not valid YAML/);
    // The context still renders, and tells the agent what to repair.
    const rendered = await box.run(['context', '--tokens-used', '1']);
    expect(rendered.exitCode).toBe(0);
    expect(String(rendered.stdout)).toMatch(/<working_memory>\n\[wmem: working-memory\/overview\.md: the front matter is not valid YAML[^\n]*Repair \/\S+\/working-memory\/overview\.md;/);
    expect(String(rendered.stdout)).toContain('## Current Task');
    expect(String(rendered.stdout)).toContain('<context_meta>');
    await writeFile(wm(s, 'overview.md'), 'no headings at all\n');
    expect(String((await box.run(['context', '--part', 'memory'])).stdout)).toMatch(/has no sections[\s\S]*no headings at all/);
    expectCleanFailure(await box.run(['set', 'task', 'x']), 2, /overview\.md has no sections/);
    expect(await readFile(wm(s, 'overview.md'), 'utf8')).toBe('no headings at all\n');
    await (await import('node:fs/promises')).rm(wm(s, 'overview.md'));
    expectCleanFailure(await box.run(['context']), 2, /overview\.md is missing\n.*wmem init/);
  });
});

describe('context', () => {
  it('renders the memory and meta parts', async () => {
    await init();
    await box.run(['set', 'task', 'Ship it']);
    await box.run(['note', 'a fact worth keeping']);
    const result = await box.run(['context', '--tokens-used', '45000', '--tokens-max', '128000']);
    expect(result.exitCode).toBe(0);
    const text = String(result.stdout);
    expect(text).toMatch(/^<working_memory>\n# Working Memory\n\n## Current Task\n/);
    expect(text).toContain('<scratch_notes>\n- [');
    expect(text).not.toContain('wmem: overview');
    const meta = JSON.parse(text.split('<context_meta>\n')[1].split('\n')[0]);
    expect(meta).toMatchObject({ tokens_used: 45000, tokens_max: 128000, tokens_percent: 35, tokens_source: 'flag', action_hint: 'light_compression', pressure: 'safe', overview_maintained: true, messages_in_history: 0 });
    expect(meta.working_memory_size).toBe(text.split('\n<context_meta>')[0].length);
  });

  it('keeps the memory part byte-identical while files are unchanged, and follows changes', async () => {
    await init();
    await box.run(['note', 'first']);
    const a = await box.run(['context', '--part', 'memory']);
    const b = await box.run(['context', '--part', 'memory']);
    const c = await box.run(['context', '--part', 'memory', '--tokens-used', '5']);
    expect(String(b.stdout)).toBe(String(a.stdout));
    expect(String(c.stdout)).toBe(String(a.stdout));
    await box.run(['set', 'task', 'changed']);
    const d = await box.run(['context', '--part', 'memory']);
    expect(String(d.stdout)).toContain('changed');
  });

  it('says the overview is not maintained while it is the bare template', async () => {
    await init();
    const meta = (await runJson(box, ['context', '--part', 'meta'])).meta;
    expect(meta.overview_maintained).toBe(false);
    await box.run(['set', 'progress', 'started']);
    expect((await runJson(box, ['context', '--part', 'meta'])).meta.overview_maintained).toBe(true);
  });

  it('counts tokens with a tokenizer, or reads usage from a transcript', async () => {
    const s = await init();
    const counted = (await runJson(box, ['context'])).meta;
    expect(counted.tokens_source).toBe('estimate');
    expect(counted.tokens_max_source).toBe('default');
    expect(counted.tokens_used).toBeGreaterThan(100);
    await copyFile(path.join(FIXTURES, 'claude-reliability/hello-world-script/transcript.jsonl'), path.join(s.path, 'messages.jsonl'));
    const fromTranscript = (await runJson(box, ['context'])).meta;
    expect(fromTranscript.tokens_source).toBe('usage');
    // The transcript names its model (claude-opus-4-5-…): the window is looked up from it.
    expect(fromTranscript).toMatchObject({ tokens_max_source: 'model', model: 'claude-opus-4-5-20251101', tokens_max: 200000 });
    expect(fromTranscript.messages_in_history).toBeGreaterThan(0);
    expect(fromTranscript.tokens_used).toBeGreaterThan(1000);
    const kimi = path.join(FIXTURES, 'kimi-cli/pr127-context/531d195b-6436-426e-b010-4bf723a992de.jsonl');
    await copyFile(kimi, path.join(s.path, 'messages.jsonl'));
    const k = (await runJson(box, ['context'])).meta;
    const lines = (await readFile(kimi, 'utf8')).trim().split('\n').map((l) => JSON.parse(l));
    expect(k.messages_in_history).toBe(lines.filter((l) => ['user', 'assistant', 'tool', 'system'].includes(l.role)).length);
    expect(k.tokens_used).toBe(lines.filter((l) => l.role === '_usage').at(-1).token_count);
  });

  it('fits the budget and prints json and claude formats', async () => {
    const s = await init();
    await box.run(['note', '-'], { input: 'seed' });
    // 60 more notes as `wmem note` writes them (written here: 60 process starts took a loaded
    // machine past the test's limit; appending notes is tested above).
    const scratch = await readFile(wm(s, 'scratch.md'), 'utf8');
    const seed = scratch.trimEnd().split('\n').at(-1)!;
    expect(seed).toMatch(/\) seed$/);
    await writeFile(wm(s, 'scratch.md'), scratch + Array.from({ length: 60 }, (_, i) => seed.replace(/seed$/, `note ${i} ${'w'.repeat(200)}`) + '\n').join(''));
    const small = String((await box.run(['context', '--part', 'memory', '--budget', '2000'])).stdout);
    expect(small.trimEnd().length).toBeLessThanOrEqual(2000);
    expect(small).toMatch(/\[wmem: left out to fit 2000 characters: .*older scratch notes/);
    const json = JSON.parse(String((await box.run(['context', '--format', 'json', '--tokens-used', '10'])).stdout));
    expect(Object.keys(json).sort()).toEqual(['memory', 'meta', 'metaText', 'session']);
    const claude = JSON.parse(String((await box.run(['context', '--format', 'claude', '--part', 'meta', '--tokens-used', '10'])).stdout));
    expect(claude.hookSpecificOutput.hookEventName).toBe('UserPromptSubmit');
    expect(claude.hookSpecificOutput.additionalContext).toMatch(/^<context_meta>/);
    const capped = JSON.parse(String((await box.run(['context', '--format', 'claude', '--budget', '50000', '--tokens-used', '10'])).stdout));
    expect(capped.hookSpecificOutput.additionalContext.length).toBeLessThanOrEqual(10_000);
    expect(capped.hookSpecificOutput.additionalContext).toMatch(/<\/scratch_notes>\n\[wmem: left out[^\n]*\n<context_meta>[\s\S]*<\/context_meta>$/);
  });

  it('refuses bad option values with exit 2', async () => {
    await init();
    expectCleanFailure(await box.run(['context', '--part', 'everything']), 2, /everything/);
    expectCleanFailure(await box.run(['context', '--tokens-used', '-5']), 2, /tokens-used/);
    expectCleanFailure(await box.run(['context', '--budget', 'lots']), 2, /--budget must be a whole number/);
  });
});

describe('show, status, sessions', () => {
  it('shows memory files and lists folders', async () => {
    const s = await init();
    await box.run(['set', 'task', 'visible']);
    expect(String((await box.run(['show'])).stdout)).toContain('visible');
    expect(String((await box.run(['show', 'meta'])).stdout)).toContain('"createdAt"');
    await writeFile(wm(s, 'detail/notes.md'), '# kept\n');
    expect(String((await box.run(['show', 'detail'])).stdout)).toBe('detail/notes.md');
    expect(String((await box.run(['show', 'detail/notes.md'])).stdout)).toBe('# kept');
  });

  it('never reads outside the memory folders', async () => {
    const s = await init();
    await symlink('/etc', wm(s, 'detail/etc-link'));
    expectCleanFailure(await box.run(['show', 'detail/../../meta.json']), 2, /climbs out/);
    expectCleanFailure(await box.run(['show', 'detail/etc-link/passwd']), 2, /symbolic link/);
    expectCleanFailure(await box.run(['show', '/etc/passwd']), 2, /unknown file/);
    // Names every object inherits are no file either (no stack trace, no odd path).
    for (const name of ['constructor', '__proto__', 'toString']) expectCleanFailure(await box.run(['show', name]), 2, /unknown file/);
    expectCleanFailure(await box.run(['show', 'detail/missing.md']), 2, /does not exist/);
  });

  it('reports status and sessions as text and JSON', async () => {
    await init();
    await box.run(['note', 'one']);
    const status = await runJson(box, ['status', '--tokens-used', '150000']);
    expect(status).toMatchObject({ notes: 1, tokens_used: 150000, pressure: 'moderate', action_hint: 'emergency_compression', overview_maintained: false });
    const text = String((await box.run(['status', '--tokens-used', '150000'])).stdout);
    expect(text).toMatch(/tokens\s+150000 \/ 200000 \(75%\): used from flag, window from default/);
    expect(text).not.toMatch(/\u001b\[/);
    const sessions = String((await box.run(['sessions'])).stdout);
    expect(sessions).toMatch(/^\* \S+/);
  });

  it('fails cleanly on unknown commands and options', async () => {
    expectCleanFailure(await box.run(['frobnicate']), 2, /unknown command 'frobnicate'/);
    expectCleanFailure(await box.run(['note', '--importanse', '1', 'x']), 2, /unknown option '--importanse'/);
    const version = await box.run(['--version']);
    expect(version.exitCode).toBe(0);
    expect(String(version.stdout)).toMatch(/^\d+\.\d+\.\d+\n?$/);
  });

  it('prints its version to a pipe without building process.stdout (no net or stream module loaded)', async () => {
    const probe = path.join(box.root, 'modules.cjs');
    await writeFile(probe, `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(`${probe}.out`)}, process.moduleLoadList.join('\\n')));`);
    const version = await box.run(['--version'], { env: { NODE_OPTIONS: `--require ${probe}` } });
    // (execa drops the final newline)
    expect({ exitCode: version.exitCode, stdout: String(version.stdout) }).toEqual({ exitCode: 0, stdout: JSON.parse(await readFile(path.join(path.dirname(BIN), '..', 'package.json'), 'utf8')).version });
    const loaded = (await readFile(`${probe}.out`, 'utf8')).split('\n');
    expect(loaded).toContain('NativeModule fs');
    expect(loaded.filter((m) => m === 'NativeModule net' || m === 'NativeModule stream')).toEqual([]);
  });

  it('ends quietly and successfully when the reader of its output goes away (`| head`)', async () => {
    await init();
    await box.run(['note', 'sqlite was chosen']);
    const { spawn } = await import('node:child_process');
    // The pipe's read end closed at once: every write of the command meets EPIPE (or, should
    // the command write first, finds room in the pipe: exit 0 either way).
    const closedPipe = (args: string[]) =>
      new Promise<{ args: string[]; code: number | null; stderr: string }>((resolve) => {
        const child = spawn(process.execPath, [BIN, ...args], { cwd: box.project, env: { ...process.env, WMEM_HOME: box.home, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
        child.stdout.destroy();
        let stderr = '';
        child.stderr.on('data', (chunk) => (stderr += chunk));
        child.on('close', (code) => resolve({ args, code, stderr }));
      });
    const commands = [['status'], ['status', '--json'], ['sessions'], ['show', 'scratch'], ['context'], ['search', 'sqlite'], ['memories'], ['--help'], ['note', '--help'], ['--version']];
    const results = await Promise.all(commands.map(closedPipe));
    expect(results).toEqual(commands.map((args) => ({ args, code: 0, stderr: '' })));
  });
});
