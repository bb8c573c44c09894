// bin/wmem.js sends `wmem hook …` to a first stage by reading its command line as the first
// stage's parser does (the options and their values, `--agent=x`, the last --agent, `--`), with the
// rules the build writes into dist/fast/first-routes.json: an option's value is never taken for the
// event, and a line the first stage would refuse goes straight to the full hook entry. Each line
// runs the built wmem with WMEM_DISABLED (the hook answers nothing, fast) and a --require'd probe
// that records which of dist/fast/'s files the process loaded.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execa } from 'execa';
import { cp, mkdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { BIN, sandbox, type Sandbox } from '../helpers/cli.js';

let box: Sandbox;
const PROBE = `process.on('exit', () => require('node:fs').writeFileSync(process.env.WMEM_TEST_LOADED, JSON.stringify(Object.keys(require.cache).filter((f) => /[\\\\/]dist[\\\\/]fast[\\\\/][^\\\\/]+\\.cjs$/.test(f)).map((f) => require('node:path').basename(f)).concat(process.moduleLoadList.includes('NativeModule internal/util/parse_args/parse_args') ? ['parseArgs'] : []).sort())));`;

beforeAll(async () => {
  box = await sandbox();
  await writeFile(path.join(box.root, 'probe.cjs'), PROBE);
});
afterAll(async () => box?.cleanup());

/**
 * The first stage `args` reached (undefined: none), whether the full hook entry was loaded, and
 * whether node:util's parseArgs was.
 */
async function route(args: string[]): Promise<{ first: string | undefined; full: boolean; parseArgs: boolean }> {
  const loaded = path.join(box.root, 'loaded.json');
  const env = { PATH: process.env.PATH ?? '', HOME: box.home, NO_COLOR: '1', WMEM_HOME: box.home, WMEM_DISABLED: '1', WMEM_TEST_LOADED: loaded, NODE_OPTIONS: `--require ${path.join(box.root, 'probe.cjs')}` };
  const r = await execa('node', [BIN, ...args], { cwd: box.project, input: '{}', reject: false, extendEnv: false, timeout: 60_000, env });
  expect({ args, exitCode: r.exitCode }).toEqual({ args, exitCode: 0 });
  const files = JSON.parse(await readFile(loaded, 'utf8')) as string[];
  const firsts = files.filter((f) => f.startsWith('first-'));
  expect(firsts.length).toBeLessThan(2);
  return { first: firsts[0], full: files.includes('fast-hook.cjs'), parseArgs: files.includes('parseArgs') };
}

// [the command line after `wmem`, the first stage it must reach (undefined: the full entry alone)]
const LINES: [string[], string | undefined][] = [
  // An option's value that spells an event is not the event.
  [['hook', '--agent', 'codex', '--cwd', 'PostToolUse', 'SessionStart'], 'first-start-codex.cjs'],
  [['--session', 'PostToolUse', 'hook', 'UserPromptSubmit'], 'first-prompt.cjs'],
  [['hook', '--cwd', 'UserPromptSubmit', '--agent', 'gemini', 'AfterTool'], 'first-tool-gemini.cjs'],
  // `--agent=x`, an alias in any case, the event in another spelling, the option after the event.
  [['--home', 'x', 'hook', '--agent=gemini', 'after-tool'], 'first-tool-gemini.cjs'],
  [['hook', 'post_tool_use', '--agent', 'CODEX-CLI'], 'first-tool-codex.cjs'],
  [['hook', '--tokens-max', '200000', '-q', 'PostToolUseFailure'], 'first-tool.cjs'],
  // The last --agent is the agent, as the first stage's parser takes it.
  [['hook', '--agent', 'codex', '--agent', 'gemini', 'BeforeAgent'], 'first-prompt-gemini.cjs'],
  // Lines the first stage's parser refuses: the full entry alone, which explains or answers them.
  [['hook', '--agent', 'codex', '--', 'PostToolUse'], undefined],
  [['hook', '--agent', 'codex', '--no-such-option', 'PostToolUse'], undefined],
  [['hook', '--agent', 'codex', '--cwd', '--json', 'SessionStart'], undefined],
  [['hook', '--json=yes', 'UserPromptSubmit'], undefined],
  [['hook', 'SessionStart', 'PostToolUse'], undefined],
  [['hook', '--agent', 'codex'], undefined],
  [['hook', 'UserPromptSubmit', '--agent'], undefined],
  // An agent or an event no first stage serves.
  [['hook', '--agent', 'nobody', 'UserPromptSubmit'], undefined],
  [['hook', 'NoSuchEvent'], undefined],
  // A compaction's and a session's end: their own first stage.
  [['hook', 'PreCompact'], 'first-archive.cjs'],
  [['hook', '--agent', 'gemini', 'pre-compress'], 'first-archive-gemini.cjs'],
  [['hook', '--agent', 'opencode', 'session.idle'], 'first-end-opencode.cjs'],
];

describe('bin/wmem.js routes a hook by its parsed command line', () => {
  it.each(LINES)('%j → %s', { timeout: 120_000 }, async (args, first) => {
    const got = await route(args);
    expect(got.first).toBe(first);
    // The full entry serves whatever reached no first stage.
    if (first === undefined) expect(got.full).toBe(true);
  });
});

describe('the first stage takes the line as bin/wmem.js read it', () => {
  it('parses a line of long options once, in bin/wmem.js; a plain short option in the stage without parseArgs', { timeout: 120_000 }, async () => {
    expect(await route(['hook', '--agent', 'codex', '--agent=claude', '--session', 'S', 'UserPromptSubmit'])).toEqual({ first: 'first-prompt.cjs', full: false, parseArgs: false });
    // A plain short option: the stage's own reader (src/entries/lean-args.ts readPlain).
    expect(await route(['hook', '-q', '--agent', 'claude', 'UserPromptSubmit'])).toEqual({ first: 'first-prompt.cjs', full: false, parseArgs: false });
    // A group of short options: bin/wmem.js leaves it to the full entry, which parses it.
    expect(await route(['hook', '-qq', '--agent', 'claude', 'UserPromptSubmit'])).toEqual({ first: undefined, full: true, parseArgs: true });
  });
});

describe('a bundle missing beside a first stage', () => {
  it('hands a new session on to the full entry, which carries the handoff over, rather than creating it without', { timeout: 120_000 }, async () => {
    // A partial copy of the package: dist/fast/handoff.cjs (loaded beside first-start.cjs) missing.
    const root = path.resolve(BIN, '..', '..');
    const copy = path.join(box.root, 'partial');
    await mkdir(copy);
    for (const part of ['bin', 'dist', 'templates', 'package.json']) await cp(path.join(root, part), path.join(copy, part), { recursive: true });
    await symlink(path.join(root, 'node_modules'), path.join(copy, 'node_modules'));
    await rm(path.join(copy, 'dist', 'fast', 'handoff.cjs'));
    const loaded = path.join(box.root, 'loaded-partial.json');
    const env = { PATH: process.env.PATH ?? '', HOME: box.home, NO_COLOR: '1', WMEM_HOME: box.home, WMEM_TEST_LOADED: loaded, NODE_OPTIONS: `--require ${path.join(box.root, 'probe.cjs')}` };
    const input = JSON.stringify({ hook_event_name: 'SessionStart', source: 'startup', session_id: '11111111-2222-3333-4444-555555555555', cwd: box.project });
    const r = await execa('node', [path.join(copy, 'bin', 'wmem.js'), 'hook', 'SessionStart'], { cwd: box.project, input, reject: false, extendEnv: false, timeout: 60_000, env });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain('<working_memory>');
    expect(JSON.parse(await readFile(loaded, 'utf8'))).toEqual(['fast-hook.cjs', 'first-start.cjs']);
  });
});
