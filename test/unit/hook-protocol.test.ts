// Claude Code's hook protocol: parsing what arrives on stdin, mapping tool events to `wmem track`,
// and the JSON answered.
import { describe, expect, it } from 'vitest';
import { CLAUDE_CONTEXT_CAP, hookOutput, normalizeEvent, parseHookInput, toolEventFrom } from '../../src/agents/claude/protocol.js';

const base = { session_id: '8f0e1c2a-1111-4222-8333-944455556666', transcript_path: '/home/me/.claude/projects/-home-me-app/8f0e.jsonl', cwd: '/home/me/app', permission_mode: 'default' };

describe('parseHookInput', () => {
  it('reads every event Claude Code sends', () => {
    const start = parseHookInput(JSON.stringify({ ...base, hook_event_name: 'SessionStart', source: 'compact' }), 'SessionStart');
    expect(start).toMatchObject({ event: 'SessionStart', sessionId: base.session_id, transcriptPath: base.transcript_path, cwd: base.cwd, source: 'compact' });
    expect(parseHookInput(JSON.stringify({ ...base, hook_event_name: 'UserPromptSubmit', prompt: 'fix the build' }), 'UserPromptSubmit').event).toBe('UserPromptSubmit');
    expect(parseHookInput(JSON.stringify({ ...base, hook_event_name: 'PreCompact', trigger: 'auto', custom_instructions: '' }), 'PreCompact').trigger).toBe('auto');
    expect(parseHookInput(JSON.stringify({ ...base, hook_event_name: 'PostCompact', trigger: 'manual', compact_summary: 'We built X.' }), 'PostCompact').summary).toBe('We built X.');
    expect(parseHookInput(JSON.stringify({ ...base, hook_event_name: 'SessionEnd', reason: 'prompt_input_exit' }), 'SessionEnd').reason).toBe('prompt_input_exit');
    const failure = parseHookInput(JSON.stringify({ ...base, hook_event_name: 'PostToolUseFailure', tool_name: 'Bash', tool_input: { command: 'npm test' }, tool_use_id: 't1', error: 'Exit code 1\nFAIL', is_interrupt: false }), 'PostToolUseFailure');
    expect(failure.tool).toMatchObject({ name: 'Bash', error: 'Exit code 1\nFAIL', isInterrupt: false });
  });

  it.each([
    ['', /empty/],
    ['   \n', /empty/],
    ['{"session_id":', /not JSON/],
    ['[1,2]', /not a JSON object/],
    ['"text"', /not a JSON object/],
    [JSON.stringify({ ...base, session_id: 42 }), /session_id is not a string/],
    [JSON.stringify({ ...base, hook_event_name: 'Stop' }), /is for Stop/],
  ])('refuses malformed input %j', (text, message) => {
    expect(() => parseHookInput(text, 'UserPromptSubmit')).toThrow(message);
  });

  it('refuses an event wmem does not answer', () => {
    expect(() => parseHookInput(JSON.stringify(base), 'Notification')).toThrow(/unsupported hook event/);
    expect(normalizeEvent('session-start')).toBe('SessionStart');
    expect(normalizeEvent('userpromptsubmit')).toBe('UserPromptSubmit');
  });
});

describe('toolEventFrom', () => {
  const parse = (o: object, event = 'PostToolUse') => parseHookInput(JSON.stringify({ ...base, hook_event_name: event, ...o }), event);

  it('maps a successful edit and a successful command', () => {
    expect(toolEventFrom(parse({ tool_name: 'Edit', tool_input: { file_path: '/home/me/app/src/a.ts', old_string: 'a', new_string: 'b' }, tool_response: { filePath: '/home/me/app/src/a.ts', success: true } }))).toEqual({
      tool: 'edit',
      files: ['/home/me/app/src/a.ts'],
      exit_code: 0,
    });
    expect(toolEventFrom(parse({ tool_name: 'Bash', tool_input: { command: 'npm test' }, tool_response: { stdout: 'ok', stderr: '', interrupted: false } }))).toEqual({
      tool: 'bash',
      command: 'npm test',
      exit_code: 0,
      output: 'ok',
    });
  });

  it('keeps paths inside the project relative to it', () => {
    const event = parse({ tool_name: 'Write', tool_input: { file_path: '/home/me/app/src/b.ts', content: 'x' } });
    expect(toolEventFrom(event, '/home/me/app').files).toEqual(['src/b.ts']);
    expect(toolEventFrom(parse({ tool_name: 'Read', tool_input: { file_path: '/etc/hosts' } }), '/home/me/app').files).toEqual(['/etc/hosts']);
  });

  it('maps a failure with its exit code, and an interrupt to no error', () => {
    expect(toolEventFrom(parse({ tool_name: 'Bash', tool_input: { command: 'tsc' }, error: 'Exit code 2\nsrc/a.ts(1,1): error TS2304' }, 'PostToolUseFailure'))).toMatchObject({ tool: 'bash', exit_code: 2, error: expect.stringContaining('TS2304') });
    expect(toolEventFrom(parse({ tool_name: 'Read', tool_input: { file_path: '/x' }, error: 'File does not exist.' }, 'PostToolUseFailure'))).toMatchObject({ exit_code: 1, files: ['/x'] });
    const interrupted = toolEventFrom(parse({ tool_name: 'Bash', tool_input: { command: 'sleep 100' }, error: 'Interrupted by user', is_interrupt: true }, 'PostToolUseFailure'));
    expect(interrupted).toEqual({ tool: 'bash', command: 'sleep 100', is_interrupt: true });
  });
});

describe('hookOutput', () => {
  it('answers in hookSpecificOutput and never over the cap', () => {
    expect(hookOutput('SessionStart', 'memory')).toEqual({ hookSpecificOutput: { hookEventName: 'SessionStart', additionalContext: 'memory' } });
    expect(() => hookOutput('UserPromptSubmit', 'x'.repeat(CLAUDE_CONTEXT_CAP + 1))).toThrow(/cap/);
  });
});
