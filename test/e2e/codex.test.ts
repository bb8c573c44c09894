// The built wmem as Codex runs it: `wmem install codex` / `uninstall codex` on a CODEX_HOME, and
// `wmem hook --agent codex EVENT` fed the stdin Codex 0.169 really wrote (test/fixtures/codex),
// with the rollout it pointed at. The real client itself runs in test/agents/codex.test.ts.
import { existsSync } from 'node:fs';
import { appendFile, copyFile, mkdir, readFile, readdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ROOT, sandbox, type Sandbox } from '../helpers/cli.js';

const FIXTURES = path.join(ROOT, 'test', 'fixtures', 'codex');
let box: Sandbox;
let codexHome: string;
const env = () => ({ CODEX_HOME: codexHome });

beforeEach(async () => {
  box = await sandbox();
  codexHome = path.join(box.root, 'codex-home');
  await mkdir(codexHome, { recursive: true });
});
afterEach(() => box.cleanup());

describe('wmem install codex', () => {
  it("writes $CODEX_HOME/hooks.json by default, says how to trust the hooks, and a second run changes nothing", async () => {
    const first = await box.run(['install', 'codex'], { env: env() });
    expect(first.exitCode).toBe(0);
    expect(String(first.stderr)).toMatch(/installed wmem's hooks in .*codex-home\/hooks\.json: SessionStart, UserPromptSubmit, PostToolUse, PreCompact, PostCompact, SessionEnd/);
    expect(String(first.stderr)).toMatch(/Codex runs these hooks only once you trust them.*Trust all and continue.*\/hooks.*--dangerously-bypass-hook-trust/s);
    const text = await readFile(path.join(codexHome, 'hooks.json'), 'utf8');
    expect(JSON.parse(text).hooks.PostToolUse[0].hooks[0].command).toMatch(/wmem\.js .*hook --agent codex PostToolUse$/);
    const again = await box.run(['install', 'codex'], { env: env() });
    expect(String(again.stderr)).toMatch(/already installed/);
    expect(await readFile(path.join(codexHome, 'hooks.json'), 'utf8')).toBe(text);
  });

  it('--scope project writes the project .codex/hooks.json; --dry-run writes nothing', async () => {
    const dry = await box.run(['install', 'codex', '--scope', 'project', '--dry-run', '--json'], { env: env() });
    expect(dry.exitCode).toBe(0);
    const shown = JSON.parse(String(dry.stdout));
    expect(shown).toMatchObject({ agent: 'codex', scope: 'project', file: path.join(box.project, '.codex', 'hooks.json'), dryRun: true });
    expect(Object.keys(shown.settings.hooks)).toHaveLength(6);
    expect(existsSync(path.join(box.project, '.codex'))).toBe(false);
    expect((await box.run(['install', 'codex', '--scope', 'project'], { env: env() })).exitCode).toBe(0);
    expect(existsSync(path.join(box.project, '.codex', 'hooks.json'))).toBe(true);
  });

  it('refuses a hooks.json it cannot parse (exit 2, one line naming it, untouched) and a scope Codex has not', async () => {
    const file = path.join(codexHome, 'hooks.json');
    await writeFile(file, '{"hooks": [');
    const bad = await box.run(['install', 'codex'], { env: env() });
    expect(bad.exitCode).toBe(2);
    expect(String(bad.stderr).split('\n')[0]).toMatch(/^wmem: .*codex-home\/hooks\.json is not valid JSON .*left untouched$/);
    expect(String(bad.stderr)).not.toMatch(/\n\s+at /);
    expect(await readFile(file, 'utf8')).toBe('{"hooks": [');
    const local = await box.run(['install', 'codex', '--scope', 'local'], { env: env() });
    expect(local.exitCode).toBe(2);
    expect(String(local.stderr)).toMatch(/Codex CLI has no "local" scope/);
  });

  it('uninstall removes only wmem\'s entries', async () => {
    const file = path.join(codexHome, 'hooks.json');
    const mine = JSON.stringify({ hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'guard.sh', timeout: 5 }] }] }, theme: 'dark' }, null, 2) + '\n';
    await writeFile(file, mine);
    await box.run(['install', 'codex'], { env: env() });
    const removed = await box.run(['uninstall', 'codex'], { env: env() });
    expect(removed.exitCode).toBe(0);
    expect(String(removed.stderr)).toMatch(/removed 6 wmem hooks/);
    expect(await readFile(file, 'utf8')).toBe(mine);
  });
});

describe('wmem hook --agent codex', () => {
  const inputs = async (name: string) => (await readFile(path.join(FIXTURES, name), 'utf8')).split('\n').filter((l) => l.trim());

  /** A fixture's hook input pointed at this sandbox: its project and a copy of its rollout. */
  async function retarget(line: string, rollout: string): Promise<string> {
    const input = JSON.parse(line);
    const copy = path.join(box.root, path.basename(rollout));
    if (!existsSync(copy)) await copyFile(rollout, copy);
    return JSON.stringify({ ...input, cwd: box.project, transcript_path: copy });
  }

  async function sessionDir(): Promise<string> {
    const [project] = await readdir(path.join(box.home, 'sessions'));
    const [session] = await readdir(path.join(box.home, 'sessions', project));
    return path.join(box.home, 'sessions', project, session);
  }

  it('answers SessionStart with the memory part and tracks a failed command as an open error', async () => {
    const rollout = path.join(FIXTURES, 'rollout-failed-command.jsonl');
    const [start, prompt, , post] = await inputs('hook-inputs-failed-command.jsonl');
    const started = await box.run(['hook', '--agent', 'codex', 'SessionStart'], { input: await retarget(start, rollout) });
    expect(started.exitCode).toBe(0);
    const answer = JSON.parse(String(started.stdout));
    expect(answer.hookSpecificOutput.hookEventName).toBe('SessionStart');
    expect(answer.hookSpecificOutput.additionalContext).toContain('<working_memory>');
    const prompted = await box.run(['hook', '--agent', 'codex', 'UserPromptSubmit'], { input: await retarget(prompt, rollout) });
    const meta = JSON.parse(String(prompted.stdout)).hookSpecificOutput.additionalContext as string;
    // The rollout's last token_count: input 5,000 + output 30, in Codex's window.
    expect(meta).toContain('"tokens_used":5030');
    expect(meta).toContain('"tokens_max":258400');
    // A failing test run: Codex's PostToolUse carries only the output; the rollout, the exit code.
    const call = JSON.parse(post);
    const failing = { ...call, tool_input: { command: 'npm test' }, tool_response: 'FAIL src/a.test.ts\nAssertionError: expected 1 to be 2\n', tool_use_id: 'call_e2e_1' };
    const copy = path.join(box.root, path.basename(rollout));
    const item = { type: 'CommandExecution', id: 'call_e2e_1', command: ['/bin/bash', '-lc', 'npm test'], status: 'failed', aggregated_output: failing.tool_response, exit_code: 1 };
    await appendFile(copy, JSON.stringify({ timestamp: '2026-11-25T08:07:32.000Z', type: 'event_msg', payload: { type: 'item_completed', item } }) + '\n');
    const tracked = await box.run(['hook', '--agent', 'codex', 'PostToolUse'], { input: await retarget(JSON.stringify(failing), rollout) });
    expect(tracked.exitCode).toBe(0);
    expect(String(tracked.stdout)).toBe('');
    const hot = JSON.parse(await readFile(path.join(await sessionDir(), 'state', 'hot.json'), 'utf8'));
    expect(hot.errors).toEqual([expect.objectContaining({ category: 'test', command: 'npm test', summary: expect.stringContaining('src/a.test.ts') })]);
    // The same command passing (exit 0 in the rollout) closes it.
    await appendFile(copy, JSON.stringify({ type: 'event_msg', payload: { type: 'item_completed', item: { ...item, id: 'call_e2e_2', status: 'completed', exit_code: 0, aggregated_output: 'ok' } } }) + '\n');
    await box.run(['hook', '--agent', 'codex', 'PostToolUse'], { input: await retarget(JSON.stringify({ ...failing, tool_response: 'ok', tool_use_id: 'call_e2e_2' }), rollout) });
    expect(JSON.parse(await readFile(path.join(await sessionDir(), 'state', 'hot.json'), 'utf8')).errors).toEqual([]);
  });

  it('reads no exit code from a transcript_path the other agents\' checks refuse (not a .jsonl, a link out of one)', async () => {
    const rollout = path.join(FIXTURES, 'rollout-failed-command.jsonl');
    const [start, , , post] = await inputs('hook-inputs-failed-command.jsonl');
    await box.run(['hook', '--agent', 'codex', 'SessionStart'], { input: await retarget(start, rollout) });
    const item = { type: 'CommandExecution', id: 'call_e2e_9', command: ['/bin/bash', '-lc', 'npm test'], status: 'failed', aggregated_output: 'FAIL src/a.test.ts\n', exit_code: 1 };
    // Rollout-shaped lines in a file that is no transcript, named directly and through a link.
    const other = path.join(box.root, 'notes.txt');
    await writeFile(other, (await readFile(rollout, 'utf8')) + JSON.stringify({ type: 'event_msg', payload: { type: 'item_completed', item } }) + '\n');
    const link = path.join(box.root, 'link.jsonl');
    await symlink(other, link);
    for (const transcript of [other, link]) {
      const failing = { ...JSON.parse(post), cwd: box.project, transcript_path: transcript, tool_input: { command: 'npm test' }, tool_response: item.aggregated_output, tool_use_id: item.id };
      expect((await box.run(['hook', '--agent', 'codex', 'PostToolUse'], { input: JSON.stringify(failing) })).exitCode).toBe(0);
      expect(JSON.parse(await readFile(path.join(await sessionDir(), 'state', 'hot.json'), 'utf8')).errors, transcript).toEqual([]);
    }
  });

  it('exits 0 silently on input it cannot use, and logs why', async () => {
    const result = await box.run(['hook', '--agent', 'codex', 'PostToolUse'], { input: 'not json' });
    expect(result.exitCode).toBe(0);
    expect(String(result.stdout)).toBe('');
    expect(String(result.stderr)).toBe('');
    expect(await readFile(path.join(box.home, 'logs', 'hooks.log'), 'utf8')).toMatch(/codex-PostToolUse error: hook input is not JSON/);
  });
});
