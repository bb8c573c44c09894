// The built wmem as Gemini CLI runs it: `wmem install gemini` / `uninstall gemini` on a Gemini home
// ($GEMINI_CLI_HOME), and `wmem hook --agent gemini EVENT` fed the stdin Gemini 0.61 really wrote
// (test/fixtures/gemini), with a copy of the chat file it pointed at. The real client itself runs
// in test/agents/gemini.test.ts.
import { existsSync } from 'node:fs';
import { appendFile, copyFile, mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ROOT, sandbox, type Sandbox } from '../helpers/cli.js';

const FIXTURES = path.join(ROOT, 'test', 'fixtures', 'gemini');
let box: Sandbox;
let geminiHome: string;
const env = () => ({ GEMINI_CLI_HOME: geminiHome });
const settingsFile = () => path.join(geminiHome, '.gemini', 'settings.json');

beforeEach(async () => {
  box = await sandbox();
  geminiHome = path.join(box.root, 'gemini-home');
  await mkdir(path.join(geminiHome, '.gemini'), { recursive: true });
});
afterEach(() => box.cleanup());

describe('wmem install gemini', () => {
  it('writes the user settings.json by default, timeouts in ms, and a second run changes nothing', async () => {
    const first = await box.run(['install', 'gemini'], { env: env() });
    expect(first.exitCode).toBe(0);
    expect(String(first.stderr)).toMatch(/installed wmem's hooks in .*gemini-home\/\.gemini\/settings\.json: SessionStart, BeforeAgent, AfterTool, PreCompress, SessionEnd/);
    const text = await readFile(settingsFile(), 'utf8');
    const hook = JSON.parse(text).hooks.AfterTool[0].hooks[0];
    expect(hook).toMatchObject({ type: 'command', name: 'wmem-after-tool', timeout: 10_000 });
    expect(hook.command).toMatch(/wmem\.js .*hook --agent gemini AfterTool$/);
    const again = await box.run(['install', 'gemini'], { env: env() });
    expect(String(again.stderr)).toMatch(/already installed/);
    expect(await readFile(settingsFile(), 'utf8')).toBe(text);
  });

  it('--scope project writes .gemini/settings.json and says the folder must be trusted; doctor says it is not', async () => {
    const result = await box.run(['install', 'gemini', '--scope', 'project'], { env: env() });
    expect(result.exitCode).toBe(0);
    expect(String(result.stderr)).toMatch(/loads a project's hooks only in a trusted folder/);
    expect(existsSync(path.join(box.project, '.gemini', 'settings.json'))).toBe(true);
    const doctor = await box.run(['doctor'], { env: env() });
    expect(String(doctor.stdout)).toMatch(/installed, folder not trusted: /);
    await writeFile(path.join(geminiHome, '.gemini', 'trustedFolders.json'), JSON.stringify({ [box.project]: 'TRUST_FOLDER' }));
    expect(String((await box.run(['doctor'], { env: env() })).stdout)).not.toMatch(/not trusted/);
  });

  it('refuses a settings.json with comments or that does not parse (exit 2, one line naming it, untouched)', async () => {
    const text = '{\n  // my theme\n  "theme": "dark"\n}\n';
    await writeFile(settingsFile(), text);
    const bad = await box.run(['install', 'gemini'], { env: env() });
    expect(bad.exitCode).toBe(2);
    expect(String(bad.stderr).split('\n')[0]).toMatch(/^wmem: .*settings\.json is not valid JSON \(wmem does not rewrite a settings file with comments.*left untouched$/);
    expect(String(bad.stderr)).not.toMatch(/\n\s+at /);
    expect(await readFile(settingsFile(), 'utf8')).toBe(text);
  });

  it("uninstall removes only wmem's entries", async () => {
    const mine = JSON.stringify({ hooks: { BeforeTool: [{ matcher: 'run_shell_command', hooks: [{ type: 'command', command: 'guard.sh', name: 'guard', timeout: 5000 }] }] }, ui: { theme: 'dark' } }, null, 2) + '\n';
    await writeFile(settingsFile(), mine);
    await box.run(['install', 'gemini'], { env: env() });
    const removed = await box.run(['uninstall', 'gemini'], { env: env() });
    expect(removed.exitCode).toBe(0);
    expect(String(removed.stderr)).toMatch(/removed 5 wmem hooks/);
    expect(await readFile(settingsFile(), 'utf8')).toBe(mine);
  });
});

describe('wmem hook --agent gemini', () => {
  const inputs = async () => (await readFile(path.join(FIXTURES, 'hook-inputs-failed-command.jsonl'), 'utf8')).split('\n').filter((l) => l.trim());
  const chat = () => path.join(box.root, 'chat.jsonl');
  const hook = async (event: string, line: string, extra: Record<string, unknown> = {}) => {
    const input = { ...JSON.parse(line), cwd: box.project, transcript_path: chat(), ...extra };
    return box.run(['hook', '--agent', 'gemini', event], { input: JSON.stringify(input), env: { GEMINI_PROJECT_DIR: box.project } });
  };

  async function sessionDir(): Promise<string> {
    const [project] = await readdir(path.join(box.home, 'sessions'));
    const [session] = await readdir(path.join(box.home, 'sessions', project));
    return path.join(box.home, 'sessions', project, session);
  }

  it('answers BeforeAgent with memory and meter, nothing at SessionStart and AfterTool; a failed command opens an error', async () => {
    await copyFile(path.join(FIXTURES, 'chat-failed-command.jsonl'), chat());
    const [start, before, , , after, precompress] = await inputs();
    const started = await hook('SessionStart', start);
    expect(started.exitCode).toBe(0);
    expect(String(started.stdout)).toBe('');
    const prompted = await hook('BeforeAgent', before);
    const answer = JSON.parse(String(prompted.stdout)).hookSpecificOutput;
    expect(answer.hookEventName).toBe('BeforeAgent');
    expect(answer.additionalContext).toContain('<working_memory>');
    // The chat file's last reply: promptTokenCount 1,234, in Gemini's window for gemini-2.5-flash.
    expect(answer.additionalContext).toContain('"tokens_used":1234');
    expect(answer.additionalContext).toContain('"tokens_max":1048576');
    // A failing test run, as Gemini reports a shell command's result (the exit code is in the text).
    const llmContent = '<untrusted_context>\nOutput: FAIL src/a.test.ts\nAssertionError: expected 1 to be 2\nExit Code: 1\nProcess Group PGID: 7\n</untrusted_context>';
    const tracked = await hook('AfterTool', after, { tool_input: { command: 'npm test' }, tool_response: { llmContent, returnDisplay: '' } });
    expect(tracked.exitCode).toBe(0);
    expect(String(tracked.stdout)).toBe('');
    const hotFile = path.join(await sessionDir(), 'state', 'hot.json');
    expect(JSON.parse(await readFile(hotFile, 'utf8')).errors).toEqual([expect.objectContaining({ category: 'test', command: 'npm test', summary: expect.stringContaining('src/a.test.ts') })]);
    // The same command passing (no Exit Code line) closes it.
    await hook('AfterTool', after, { tool_input: { command: 'npm test' }, tool_response: { llmContent: 'Output: ok\nProcess Group PGID: 8', returnDisplay: 'ok' } });
    expect(JSON.parse(await readFile(hotFile, 'utf8')).errors).toEqual([]);
    // PreCompress before a model call with no compaction: nothing archived, nothing said.
    const pre = await hook('PreCompress', precompress);
    expect(String(pre.stdout)).toBe('');
    expect(existsSync(path.join(await sessionDir(), 'working-memory', 'archive'))
      ? (await readdir(path.join(await sessionDir(), 'working-memory', 'archive'))).filter((n) => n.startsWith('transcript-'))
      : []).toEqual([]);
    // The chat file records a compression: the next PreCompress archives it, byte for byte, once.
    const compressed = (await readFile(path.join(FIXTURES, 'chat-compressed.jsonl'), 'utf8')).split('\n').find((l) => l.includes('Got it. Thanks for the additional context!'))!;
    await appendFile(chat(), compressed + '\n');
    await hook('PreCompress', precompress);
    await hook('PreCompress', precompress);
    const archive = path.join(await sessionDir(), 'working-memory', 'archive');
    const archives = (await readdir(archive)).filter((n) => n.startsWith('transcript-'));
    expect(archives).toHaveLength(1);
    expect(await readFile(path.join(archive, archives[0]), 'utf8')).toBe(await readFile(chat(), 'utf8'));
    // The next prompt answers that compaction with the memory part again.
    const next = JSON.parse(String((await hook('BeforeAgent', before)).stdout)).hookSpecificOutput.additionalContext;
    expect(next).toContain('<working_memory>');
  });

  it('exits 0 silently on input it cannot use, and logs why', async () => {
    const result = await box.run(['hook', '--agent', 'gemini', 'AfterTool'], { input: 'not json' });
    expect(result.exitCode).toBe(0);
    expect(String(result.stdout)).toBe('');
    expect(String(result.stderr)).toBe('');
    expect(await readFile(path.join(box.home, 'logs', 'hooks.log'), 'utf8')).toMatch(/gemini-AfterTool error: hook input is not JSON/);
  });
});
