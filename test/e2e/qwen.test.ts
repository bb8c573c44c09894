// The built wmem as Qwen Code runs it: `wmem install qwen` / `uninstall qwen` on a Qwen home
// (~/.qwen under $HOME), and `wmem hook --agent qwen EVENT` fed the Claude-shaped stdin Qwen Code
// 0.24.4 wrote, with its chat file (test/fixtures/qwen/chat.jsonl, lines of a real run). The real
// client itself runs in test/agents/qwen.test.ts.
import { appendFile, mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ROOT, sandbox, type Sandbox } from '../helpers/cli.js';

const FIXTURES = path.join(ROOT, 'test', 'fixtures', 'qwen');
const SESSION = 'e89a6597-0cde-47e5-b9a2-58acc823a3bb';
let box: Sandbox;
const settingsFile = () => path.join(box.home, '.qwen', 'settings.json');

beforeEach(async () => {
  box = await sandbox();
  await mkdir(path.join(box.home, '.qwen'), { recursive: true });
});
afterEach(() => box.cleanup());

describe('wmem install qwen', () => {
  it('writes the user settings.json by default, timeouts in seconds, and a second run changes nothing', async () => {
    const first = await box.run(['install', 'qwen']);
    expect(first.exitCode).toBe(0);
    expect(String(first.stderr)).toMatch(/installed wmem's hooks in .*\.qwen\/settings\.json: SessionStart, UserPromptSubmit, PostToolUse, PostToolUseFailure, PreCompact, PostCompact, SessionEnd/);
    const text = await readFile(settingsFile(), 'utf8');
    expect(JSON.parse(text).hooks.PostToolUse).toEqual([{ hooks: [{ type: 'command', command: expect.stringMatching(/wmem\.js .*hook --agent qwen PostToolUse$/), timeout: 10 }] }]);
    const again = await box.run(['install', 'qwen']);
    expect(String(again.stderr)).toMatch(/already installed/);
    expect(await readFile(settingsFile(), 'utf8')).toBe(text);
  });

  it('refuses a settings.json that does not parse (exit 2, one line naming it, untouched)', async () => {
    const text = '{\n  // my theme\n  "theme": "dark"\n}\n';
    await writeFile(settingsFile(), text);
    const bad = await box.run(['install', 'qwen']);
    expect(bad.exitCode).toBe(2);
    expect(String(bad.stderr).split('\n')[0]).toMatch(/^wmem: .*settings\.json is not valid JSON .*left untouched$/);
    expect(await readFile(settingsFile(), 'utf8')).toBe(text);
  });

  it("uninstall removes only wmem's entries, byte for byte", async () => {
    const mine = JSON.stringify({ hooks: { Stop: [{ hooks: [{ type: 'command', command: 'guard.sh', timeout: 5 }] }] }, $version: 4 }, null, 2) + '\n';
    await writeFile(settingsFile(), mine);
    await box.run(['install', 'qwen']);
    const removed = await box.run(['uninstall', 'qwen']);
    expect(removed.exitCode).toBe(0);
    expect(String(removed.stderr)).toMatch(/removed 7 wmem hooks/);
    expect(await readFile(settingsFile(), 'utf8')).toBe(mine);
  });
});

describe('wmem install qwen --mcp', () => {
  it('writes mcpServers.wmem into settings.json beside the hooks; uninstall gives the bytes back', async () => {
    const before = '{\n  "privacy": {"usageStatisticsEnabled": false},\n  "$version": 4\n}\n';
    await writeFile(settingsFile(), before);
    const first = await box.run(['install', 'qwen', '--mcp']);
    expect(first.exitCode, String(first.stderr)).toBe(0);
    expect(JSON.parse(await readFile(settingsFile(), 'utf8')).mcpServers.wmem).toEqual({ command: expect.any(String), args: [expect.stringMatching(/bin\/wmem\.js$/), 'mcp'] });
    const doctor = JSON.parse(String((await box.run(['doctor', '--json'])).stdout));
    expect(doctor.mcp.checks).toEqual([expect.objectContaining({ ok: true, detail: expect.stringMatching(/^10 tools: /) })]);
    expect((await box.run(['uninstall', 'qwen', '--mcp'])).exitCode).toBe(0);
    expect(await readFile(settingsFile(), 'utf8')).toBe(before);
  });
});

describe('wmem hook --agent qwen', () => {
  const chat = () => path.join(box.root, 'chat.jsonl');
  const hook = (event: string, fields: Record<string, unknown>) =>
    box.run(['hook', '--agent', 'qwen', event], { input: JSON.stringify({ session_id: SESSION, transcript_path: chat(), cwd: box.project, hook_event_name: event, ...fields }) });

  async function sessionDir(): Promise<string> {
    const [project] = await readdir(path.join(box.home, 'sessions'));
    return path.join(box.home, 'sessions', project, SESSION);
  }

  it('answers the prompt with memory and meter, ignores the empty-prompt one after a tool round; a failing command opens an error', async () => {
    // The run's lines up to its compression (the compression comes later in this test).
    const lines = (await readFile(path.join(FIXTURES, 'chat.jsonl'), 'utf8')).split('\n').filter((l) => l.trim());
    await writeFile(chat(), lines.filter((l) => !l.includes('"chat_compression"')).join('\n') + '\n');
    const started = await hook('SessionStart', { source: 'startup', model: 'qwen3-coder-plus' });
    expect(String(started.stdout)).toBe('');
    const answer = JSON.parse(String((await hook('UserPromptSubmit', { prompt: 'Run the tests.' })).stdout)).hookSpecificOutput;
    expect(answer.hookEventName).toBe('UserPromptSubmit');
    expect(answer.additionalContext).toContain('<working_memory>');
    // The chat file's last reply: promptTokenCount 5,000 in a 1,000,000 window.
    expect(answer.additionalContext).toContain('"tokens_used":5000');
    expect(answer.additionalContext).toContain('"tokens_max":1000000');
    const error = "Command: npm test\nDirectory: (root)\nOutput: FAIL src/a.test.ts\nAssertionError: expected 1 to be 2\nError: (none)\nExit Code: 1\nSignal: (none)\nProcess Group PGID: (none)";
    const failed = await hook('PostToolUseFailure', { tool_name: 'run_shell_command', tool_input: { command: 'npm test' }, error, is_interrupt: false });
    expect(String(failed.stdout)).toBe('');
    const hotFile = path.join(await sessionDir(), 'state', 'hot.json');
    expect(JSON.parse(await readFile(hotFile, 'utf8')).errors).toEqual([expect.objectContaining({ category: 'test', command: 'npm test', summary: expect.stringContaining('src/a.test.ts') })]);
    // The UserPromptSubmit Qwen fires after the tool round: no prompt, nothing said.
    const again = await hook('UserPromptSubmit', { prompt: '' });
    expect(again.exitCode).toBe(0);
    expect(String(again.stdout)).toBe('');
    // PreCompact archives the chat file byte for byte; PostCompact keeps the summary; the next
    // prompt (the compression now in the chat file) gives the memory part again.
    await hook('PreCompact', { trigger: 'manual', custom_instructions: '' });
    const archive = path.join(await sessionDir(), 'working-memory', 'archive');
    const archives = (await readdir(archive)).filter((n) => n.startsWith('transcript-'));
    expect(archives).toHaveLength(1);
    expect(await readFile(path.join(archive, archives[0]), 'utf8')).toBe(await readFile(chat(), 'utf8'));
    const post = await hook('PostCompact', { trigger: 'manual', compact_summary: 'The parser work is half done.' });
    expect(post.exitCode).toBe(0);
    const detailDir = path.join(await sessionDir(), 'working-memory', 'detail');
    const texts = await Promise.all((await readdir(detailDir)).map((n) => readFile(path.join(detailDir, n), 'utf8')));
    expect(texts.some((t) => t.includes('The parser work is half done.'))).toBe(true);
    await appendFile(chat(), lines.find((l) => l.includes('"chat_compression"'))! + '\n');
    const next = JSON.parse(String((await hook('UserPromptSubmit', { prompt: 'Go on.' })).stdout)).hookSpecificOutput.additionalContext;
    expect(next).toContain('<working_memory>');
  });
});
