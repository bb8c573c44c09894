// The built wmem as the GitHub Copilot CLI runs it: `wmem install copilot` / `uninstall copilot` on
// a Copilot home ($COPILOT_HOME), and `wmem hook --agent copilot EVENT` fed the camelCase stdin
// Copilot 1.0.102 wrote, with its session log (test/fixtures/copilot/events.jsonl, lines of a real
// run) where Copilot keeps it. The real client itself runs in test/agents/copilot.test.ts.
import { existsSync } from 'node:fs';
import { copyFile, mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ROOT, sandbox, type Sandbox } from '../helpers/cli.js';

const FIXTURES = path.join(ROOT, 'test', 'fixtures', 'copilot');
const SESSION = '3ae2b147-6b97-4722-8526-2238e742e160';
let box: Sandbox;
let copilotHome: string;
const env = () => ({ COPILOT_HOME: copilotHome });
const hooksFile = () => path.join(copilotHome, 'hooks', 'wmem.json');

beforeEach(async () => {
  box = await sandbox();
  copilotHome = path.join(box.root, 'copilot-home');
  await mkdir(path.join(copilotHome, 'hooks'), { recursive: true });
});
afterEach(() => box.cleanup());

describe('wmem install copilot', () => {
  it('writes its own hooks file in the user folder by default, timeouts in seconds; a second run changes nothing', async () => {
    const first = await box.run(['install', 'copilot'], { env: env() });
    expect(first.exitCode).toBe(0);
    expect(String(first.stderr)).toMatch(/installed wmem's hooks in .*copilot-home\/hooks\/wmem\.json: sessionStart, userPromptSubmitted, postToolUse, postToolUseFailure, preCompact, sessionEnd/);
    const text = await readFile(hooksFile(), 'utf8');
    const json = JSON.parse(text);
    expect(json.version).toBe(1);
    expect(json.hooks.postToolUse).toEqual([{ type: 'command', bash: expect.stringMatching(/wmem\.js .*hook --agent copilot postToolUse$/), timeoutSec: 10 }]);
    const again = await box.run(['install', 'copilot'], { env: env() });
    expect(String(again.stderr)).toMatch(/already installed/);
    expect(await readFile(hooksFile(), 'utf8')).toBe(text);
  });

  it('--scope project writes .github/hooks/wmem.json and says the folder must be trusted', async () => {
    const result = await box.run(['install', 'copilot', '--scope', 'project'], { env: env() });
    expect(result.exitCode).toBe(0);
    expect(String(result.stderr)).toMatch(/runs a repository's hooks only in a trusted folder/);
    expect(existsSync(path.join(box.project, '.github', 'hooks', 'wmem.json'))).toBe(true);
  });

  it("refuses a wmem.json that is not wmem's (exit 2, one line naming it, untouched)", async () => {
    const text = JSON.stringify({ version: 1, hooks: { sessionStart: [{ type: 'command', bash: 'echo hi', timeoutSec: 5 }] } });
    await writeFile(hooksFile(), text);
    const bad = await box.run(['install', 'copilot'], { env: env() });
    expect(bad.exitCode).toBe(2);
    expect(String(bad.stderr).split('\n')[0]).toMatch(/^wmem: .*wmem\.json holds hooks that are not wmem's \(sessionStart\); left untouched$/);
    expect(await readFile(hooksFile(), 'utf8')).toBe(text);
    const kept = await box.run(['uninstall', 'copilot'], { env: env() });
    expect(kept.exitCode).toBe(0);
    expect(await readFile(hooksFile(), 'utf8')).toBe(text);
  });

  it('uninstall removes its file and nothing else', async () => {
    const mine = JSON.stringify({ version: 1, hooks: { agentStop: [{ type: 'command', bash: 'true', timeoutSec: 5 }] } }, null, 2) + '\n';
    await writeFile(path.join(copilotHome, 'hooks', 'mine.json'), mine);
    await box.run(['install', 'copilot'], { env: env() });
    const removed = await box.run(['uninstall', 'copilot'], { env: env() });
    expect(removed.exitCode).toBe(0);
    expect(await readdir(path.join(copilotHome, 'hooks'))).toEqual(['mine.json']);
    expect(await readFile(path.join(copilotHome, 'hooks', 'mine.json'), 'utf8')).toBe(mine);
  });
});

describe('wmem install copilot --mcp', () => {
  it('writes mcpServers.wmem as `copilot mcp add` does into mcp-config.json; doctor checks it answers; uninstall gives the bytes back', async () => {
    const file = path.join(copilotHome, 'mcp-config.json');
    const before = '{\n  "mcpServers": {\n    "other": {"type": "local", "command": "x", "args": [], "tools": ["*"]}\n  }\n}\n';
    await writeFile(file, before);
    const first = await box.run(['install', 'copilot', '--mcp'], { env: env() });
    expect(first.exitCode, String(first.stderr)).toBe(0);
    const entry = JSON.parse(await readFile(file, 'utf8')).mcpServers.wmem;
    expect(entry).toEqual({ type: 'local', command: expect.any(String), args: [expect.stringMatching(/bin\/wmem\.js$/), 'mcp'], tools: ['*'] });
    const doctor = JSON.parse(String((await box.run(['doctor', '--json'], { env: env() })).stdout));
    expect(doctor.mcp.registrations).toEqual([expect.objectContaining({ agent: 'copilot', scope: 'user', file })]);
    expect(doctor.mcp.checks).toEqual([expect.objectContaining({ ok: true, detail: expect.stringMatching(/^10 tools: /) })]);
    const removed = await box.run(['uninstall', 'copilot', '--mcp'], { env: env() });
    expect(removed.exitCode).toBe(0);
    expect(await readFile(file, 'utf8')).toBe(before);
  });
});

describe('wmem hook --agent copilot', () => {
  const base = () => ({ sessionId: SESSION, timestamp: 1795712906217, cwd: box.project });
  const hook = (event: string, fields: Record<string, unknown>) =>
    box.run(['hook', '--agent', 'copilot', event], { input: JSON.stringify({ ...base(), ...fields }), env: { ...env(), COPILOT_PROJECT_DIR: box.project } });
  const eventsFile = () => path.join(copilotHome, 'session-state', SESSION, 'events.jsonl');

  async function sessionDir(): Promise<string> {
    const [project] = await readdir(path.join(box.home, 'sessions'));
    return path.join(box.home, 'sessions', project, SESSION);
  }

  it('answers userPromptSubmitted flat with memory and meter, nothing at sessionStart and postToolUse; a failing command opens an error', async () => {
    await mkdir(path.dirname(eventsFile()), { recursive: true });
    await copyFile(path.join(FIXTURES, 'events.jsonl'), eventsFile());
    const started = await hook('sessionStart', { source: 'new', initialPrompt: 'Run the tests.' });
    expect(started.exitCode).toBe(0);
    expect(String(started.stdout)).toBe('');
    const prompted = JSON.parse(String((await hook('userPromptSubmitted', { prompt: 'Run the tests.' })).stdout));
    // Only a flat additionalContext is honoured by Copilot.
    expect(Object.keys(prompted)).toEqual(['additionalContext']);
    expect(prompted.additionalContext).toContain('<working_memory>');
    // events.jsonl (found from the session id: the input names no transcript) holds the last call's inputTokens and Copilot's prompt limit.
    expect(prompted.additionalContext).toContain('"tokens_used":1200');
    expect(prompted.additionalContext).toContain('"tokens_max":64000');
    // A failing command is a postToolUse whose result ends with its exit code.
    const toolResult = { resultType: 'success', textResultForLlm: 'FAIL src/a.test.ts\nAssertionError: expected 1 to be 2\n<shellId: 0 completed with exit code 1>' };
    const tracked = await hook('postToolUse', { toolName: 'bash', toolArgs: { command: 'npm test', description: 'tests' }, toolResult });
    expect(tracked.exitCode).toBe(0);
    expect(String(tracked.stdout)).toBe('');
    const hotFile = path.join(await sessionDir(), 'state', 'hot.json');
    expect(JSON.parse(await readFile(hotFile, 'utf8')).errors).toEqual([expect.objectContaining({ category: 'test', command: 'npm test', summary: expect.stringContaining('src/a.test.ts') })]);
    // The same command passing closes it.
    await hook('postToolUse', { toolName: 'bash', toolArgs: { command: 'npm test' }, toolResult: { resultType: 'success', textResultForLlm: 'ok\n<shellId: 1 completed with exit code 0>' } });
    expect(JSON.parse(await readFile(hotFile, 'utf8')).errors).toEqual([]);
    // preCompact archives the log byte for byte.
    const pre = await hook('preCompact', { transcriptPath: eventsFile(), trigger: 'manual', customInstructions: '' });
    expect(String(pre.stdout)).toBe('');
    const archive = path.join(await sessionDir(), 'working-memory', 'archive');
    const archives = (await readdir(archive)).filter((n) => n.startsWith('transcript-'));
    expect(archives).toHaveLength(1);
    expect(await readFile(path.join(archive, archives[0]), 'utf8')).toBe(await readFile(eventsFile(), 'utf8'));
  });

  it('exits 0 silently on input it cannot use, and logs why', async () => {
    const result = await box.run(['hook', '--agent', 'copilot', 'postToolUse'], { input: 'not json' });
    expect(result.exitCode).toBe(0);
    expect(String(result.stdout)).toBe('');
    expect(String(result.stderr)).toBe('');
    expect(await readFile(path.join(box.home, 'logs', 'hooks.log'), 'utf8')).toMatch(/copilot-postToolUse error: hook input is not JSON/);
  });
});
