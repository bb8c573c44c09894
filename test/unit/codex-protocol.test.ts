// The Codex hook protocol on the stdin Codex 0.169 really wrote (test/fixtures/codex): each event
// to its moment, malformed input refused, a failed command found in the rollout, the answer.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { HookInputError } from '../../src/agents/adapter.js';
import { codex } from '../../src/agents/codex/index.js';
import { withRolloutOutcome } from '../../src/agents/codex/hook.js';
import { codexAnswer, codexEvent, codexToolEvent, parseCodexInput, withOutcome } from '../../src/agents/codex/protocol.js';

const FIXTURES = path.join(import.meta.dirname, '../fixtures/codex');
const inputs = (name: string) =>
  readFileSync(path.join(FIXTURES, name), 'utf8')
    .split('\n')
    .filter((l) => l.trim());

function parse(line: string) {
  const event = codexEvent(JSON.parse(line).hook_event_name)!;
  return parseCodexInput(line, event);
}

describe('Codex hook input', () => {
  it('maps every event Codex fired to its moment with the common fields', () => {
    const parsed = [...inputs('hook-inputs-failed-command.jsonl'), ...inputs('hook-inputs-auto-compacted.jsonl')].map(parse);
    expect(parsed.map((p) => `${p.event}:${p.moment}`)).toEqual([
      'SessionStart:session-start',
      'UserPromptSubmit:prompt',
      'PreToolUse:ignore',
      'PostToolUse:tool-done',
      'Stop:ignore',
      'SessionEnd:session-end',
      'SessionStart:session-start',
      'UserPromptSubmit:prompt',
      'PreToolUse:ignore',
      'PostToolUse:tool-done',
      'PreCompact:before-compact',
      'PostCompact:after-compact',
      'SessionStart:session-start',
      'Stop:ignore',
      'SessionEnd:session-end',
    ]);
    for (const p of parsed) {
      expect(p.agent).toBe('codex');
      expect(p.sessionId).toMatch(/^[0-9a-f-]{36}$/);
      expect(p.transcriptPath).toMatch(/rollout-.*\.jsonl$/);
      expect(p.cwd).toBe('/tmp/cprobe/proj');
    }
    expect(parsed[0]).toMatchObject({ source: 'startup', model: 'gpt-5.1' });
    expect(parsed[1].prompt).toBe('List it: [[exec: ls /nonexistent-dir]]');
    expect(parsed[3].tool).toEqual({ name: 'Bash', input: { command: 'ls /nonexistent-dir' }, response: "ls: cannot access '/nonexistent-dir': No such file or directory\n", id: expect.stringMatching(/^call_mock_/) });
    expect(parsed[5].reason).toBe('other');
    expect(parsed[10].trigger).toBe('auto');
    expect(parsed[12].source).toBe('compact');
  });

  it.each([
    ['', /empty hook input/],
    ['not json', /not JSON/],
    ['[1]', /not a JSON object/],
    ['{"hook_event_name":"Stop"}', /is for Stop, but the command is 'wmem hook --agent codex SessionStart'/],
    ['{"session_id":5}', /session_id is not a string/],
  ])('refuses %j', (text, message) => {
    expect(() => parseCodexInput(text, codexEvent('SessionStart')!)).toThrow(HookInputError);
    expect(() => parseCodexInput(text, codexEvent('SessionStart')!)).toThrow(message);
  });

  it('accepts the event in forgiving spellings and knows no others', () => {
    expect(codexEvent('post-tool-use')?.name).toBe('PostToolUse');
    expect(codexEvent('sessionstart')?.name).toBe('SessionStart');
    expect(codexEvent('PostToolUseFailure')).toBeUndefined();
    expect(codex.eventFor('user_prompt_submit')?.moment).toBe('prompt');
  });
});

describe('a command outcome from the rollout', () => {
  const post = () => parse(inputs('hook-inputs-failed-command.jsonl')[3]);

  it('turns a non-zero exit into tool-failed with the output as the error', () => {
    const failed = withOutcome(post(), { exitCode: 2, status: 'failed', output: "ls: cannot access '/nonexistent-dir': No such file or directory\n" });
    expect(failed.moment).toBe('tool-failed');
    expect(codexToolEvent(failed, '/tmp/cprobe/proj')).toEqual({
      tool: 'bash',
      command: 'ls /nonexistent-dir',
      output: "ls: cannot access '/nonexistent-dir': No such file or directory\n",
      error: "ls: cannot access '/nonexistent-dir': No such file or directory",
      exit_code: 2,
    });
  });

  it('keeps exit 0 as tool-done with its exit code, and no outcome as no exit code', () => {
    const ok = withOutcome(post(), { exitCode: 0, status: 'completed' });
    expect(ok.moment).toBe('tool-done');
    expect(codexToolEvent(ok).exit_code).toBe(0);
    const unknown = withOutcome(post(), undefined);
    expect(unknown).toEqual(post());
    expect(codexToolEvent(unknown)).not.toHaveProperty('exit_code');
  });

  it("keeps an MCP tool's text result as the output (its response is the MCP result object)", () => {
    const mcp = { ...post(), tool: { name: 'mcp__wmem__note', input: { text: 'x' }, response: { content: [{ type: 'text', text: 'noted' }, { type: 'image', data: '' }] }, id: 'call_1' } };
    expect(codexToolEvent(mcp)).toEqual({ tool: 'mcp__wmem__note', output: 'noted' });
  });

  it('reads the outcome the real rollout recorded', async () => {
    const input = post();
    const rollout = path.join(FIXTURES, 'rollout-failed-command.jsonl');
    const completed = await withRolloutOutcome({ ...input, transcriptPath: rollout });
    expect(completed.moment).toBe('tool-failed');
    expect(completed.tool?.exitCode).toBe(2);
    expect(await codex.toolEvent({ ...input, transcriptPath: rollout }, '/tmp/cprobe/proj')).toMatchObject({ exit_code: 2, command: 'ls /nonexistent-dir' });
    // A missing rollout or an unknown call leaves the input as it was.
    expect(await withRolloutOutcome(input)).toEqual(input);
    expect(await withRolloutOutcome({ ...input, transcriptPath: rollout, tool: { ...input.tool, id: 'call_other' } })).toMatchObject({ moment: 'tool-done' });
  });

  it("completes PostCompact with the summary of the rollout's compacted line", async () => {
    const after = parse(inputs('hook-inputs-auto-compacted.jsonl')[5]);
    expect(after.moment).toBe('after-compact');
    expect(await codex.completeInput!({ ...after, transcriptPath: path.join(FIXTURES, 'rollout-auto-compacted.jsonl') })).toMatchObject({ summary: 'Done.' });
    expect(await codex.completeInput!(after)).toEqual(after);
  });
});

describe('the answer', () => {
  const start = () => parse(inputs('hook-inputs-failed-command.jsonl')[0]);

  it('is additional context at SessionStart and UserPromptSubmit only', () => {
    expect(codexAnswer(start(), 'memory')).toEqual({ hookSpecificOutput: { hookEventName: 'SessionStart', additionalContext: 'memory' } });
    expect(codexAnswer(parse(inputs('hook-inputs-failed-command.jsonl')[1]), 'meta')).toMatchObject({ hookSpecificOutput: { hookEventName: 'UserPromptSubmit' } });
    expect(codexAnswer(parse(inputs('hook-inputs-failed-command.jsonl')[3]), 'x')).toBeUndefined();
  });

  it('refuses text over the cap', () => {
    expect(() => codexAnswer(start(), 'x'.repeat(codex.answer.contextCap + 1))).toThrow(/over the Codex cap/);
  });
});
