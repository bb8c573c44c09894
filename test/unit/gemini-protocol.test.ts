// Gemini CLI's hook protocol: the stdin 0.61 wrote, a shell failure from its Exit Code, the answer.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { HookInputError } from '../../src/agents/adapter.js';
import { findAgent } from '../../src/agents/registry.js';
import { geminiAnswer, geminiEvent, geminiToolEvent, parseGeminiInput, shellOutcome } from '../../src/agents/gemini/protocol.js';

const FIXTURES = path.join(import.meta.dirname, '../fixtures/gemini');
const inputs = readFileSync(path.join(FIXTURES, 'hook-inputs-failed-command.jsonl'), 'utf8').trim().split('\n');
const byEvent = new Map(inputs.map((l) => [JSON.parse(l).hook_event_name as string, l]));
const env = { GEMINI_SESSION_ID: 'from-env', GEMINI_PROJECT_DIR: '/tmp/gem-explore/proj' };

function parse(event: string, text = byEvent.get(event)!, environment: NodeJS.ProcessEnv = env) {
  return parseGeminiInput(text, geminiEvent(event)!, environment);
}

describe('Gemini hook input', () => {
  it('reads the common fields and the project folder from the environment', () => {
    const input = parse('SessionStart');
    expect(input).toMatchObject({ agent: 'gemini', event: 'SessionStart', moment: 'session-start', sessionId: '54620bdd-5381-4c55-8a27-cf2457977597', source: 'startup', cwd: '/tmp/gem-explore/proj', projectDir: '/tmp/gem-explore/proj' });
    expect(input.transcriptPath).toMatch(/\/chats\/session-.*\.jsonl$/);
    expect(parse('BeforeAgent')).toMatchObject({ moment: 'prompt', prompt: 'Run it [[shell: ls /nonexistent-dir]]' });
    expect(parse('PreCompress')).toMatchObject({ moment: 'before-compact', trigger: 'auto' });
    expect(geminiEvent('PreCompress')?.speculative).toBe(true);
    expect(parse('SessionEnd')).toMatchObject({ moment: 'session-end', reason: 'exit' });
    expect(parse('AfterAgent').moment).toBe('ignore');
  });

  it('takes the session id from GEMINI_SESSION_ID when stdin has none', () => {
    expect(parse('SessionStart', JSON.stringify({ hook_event_name: 'SessionStart', cwd: '/p' })).sessionId).toBe('from-env');
  });

  it('refuses what is not its input', () => {
    expect(() => parse('SessionStart', '')).toThrow(HookInputError);
    expect(() => parse('SessionStart', '[1]')).toThrow(HookInputError);
    expect(() => parse('SessionStart', byEvent.get('BeforeAgent')!)).toThrow(/BeforeAgent/);
  });

  it('a shell command with a non-zero Exit Code is a failed tool with its output', () => {
    const input = parse('AfterTool');
    expect(input.moment).toBe('tool-failed');
    expect(input.tool).toMatchObject({ name: 'run_shell_command', exitCode: 2, input: { command: 'ls /nonexistent-dir' } });
    expect(input.tool?.error).toBe("ls: cannot access '/nonexistent-dir': No such file or directory");
    expect(geminiToolEvent(input, '/tmp/gem-explore/proj')).toMatchObject({ tool: 'bash', command: 'ls /nonexistent-dir', exit_code: 2 });
  });

  it('a shell command without an Exit Code line exited 0', () => {
    const raw = JSON.parse(byEvent.get('AfterTool')!);
    raw.tool_response.llmContent = '<untrusted_context>\nOutput: hi\nProcess Group PGID: 1\n</untrusted_context>';
    const input = parse('AfterTool', JSON.stringify(raw));
    expect(input.moment).toBe('tool-done');
    expect(geminiToolEvent(input)).toMatchObject({ tool: 'bash', exit_code: 0, output: 'hi' });
  });

  it('reads what Gemini writes of a shell result', () => {
    expect(shellOutcome('Output: a\nb\nError: spawn failed\nExit Code: 127\nProcess Group PGID: 9')).toEqual({ output: 'a\nb', error: 'spawn failed', exitCode: 127 });
    expect(shellOutcome('Output: (empty)\nProcess Group PGID: 9')).toEqual({ output: '(empty)', exitCode: 0 });
    expect(shellOutcome('Command was cancelled by user before it could complete. There was no output before it was cancelled.')).toMatchObject({ cancelled: true });
  });

  it("another tool's error is a failure; a file tool's path is an active file", () => {
    const input = parse('AfterTool', JSON.stringify({ hook_event_name: 'AfterTool', session_id: 's', cwd: '/p', tool_name: 'read_file', tool_input: { file_path: '/p/src/a.ts' }, tool_response: { llmContent: 'File not found', error: { message: 'File not found: /p/src/a.ts', type: 'file_not_found' } } }));
    expect(input.moment).toBe('tool-failed');
    expect(geminiToolEvent(input, '/p')).toMatchObject({ tool: 'read_file', files: ['src/a.ts'], error: 'File not found: /p/src/a.ts' });
  });
});

describe('Gemini answer', () => {
  it('gives additional context at BeforeAgent only: nothing at SessionStart, AfterTool or PreCompress', () => {
    expect(geminiAnswer(parse('SessionStart'), 'x')).toBeUndefined();
    expect(geminiAnswer(parse('BeforeAgent'), 'x')).toEqual({ hookSpecificOutput: { hookEventName: 'BeforeAgent', additionalContext: 'x' } });
    expect(geminiAnswer(parse('AfterTool'), 'x')).toBeUndefined();
    expect(geminiAnswer(parse('PreCompress'), 'x')).toBeUndefined();
  });

  it('is in the registry under its id and alias', () => {
    expect(findAgent('gemini')?.displayName).toBe('Gemini CLI');
    expect(findAgent('Gemini-CLI')?.id).toBe('gemini');
  });
});
