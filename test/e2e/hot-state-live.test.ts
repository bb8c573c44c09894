// The hot state after real agent work: every tool call of two real Claude Code transcripts (22
// calls of a Kimi CLI checkpoint's session, then 9 of a claude-code-log session with TodoWrite)
// goes through the built `wmem hook PostToolUse`, as Claude Code would send it. Then the memory
// part shows the file edited last first, the agent's todo list as it left it, and the decision
// noted but not yet consolidated.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { FIXTURES, runJson, sandbox, type Sandbox } from '../helpers/cli.js';

const SID = '3b9d2c41-7e55-4a0a-9f0e-5d1c2b3a4f60';
let box: Sandbox;

/** The tool calls of a transcript with their results, in order, as PostToolUse inputs. */
function toolCalls(rel: string): Record<string, unknown>[] {
  const lines = readFileSync(path.join(FIXTURES, rel), 'utf8').split('\n').filter(Boolean);
  const uses = new Map<string, { name: string; input: unknown }>();
  const calls: Record<string, unknown>[] = [];
  for (const line of lines) {
    let v: { message?: { content?: unknown }; toolUseResult?: unknown };
    try {
      v = JSON.parse(line);
    } catch {
      continue;
    }
    if (!Array.isArray(v.message?.content)) continue;
    for (const block of v.message.content as { type: string; id?: string; name?: string; input?: unknown; tool_use_id?: string; content?: unknown }[]) {
      if (block.type === 'tool_use' && block.id) uses.set(block.id, { name: block.name!, input: block.input });
      const use = block.type === 'tool_result' && block.tool_use_id ? uses.get(block.tool_use_id) : undefined;
      if (use) calls.push({ tool_name: use.name, tool_input: use.input, tool_response: v.toolUseResult ?? block.content });
    }
  }
  return calls;
}

beforeAll(async () => {
  box = await sandbox();
});
afterAll(async () => {
  await box.cleanup();
});

it('shows the current files, the todo list and the recent decisions after a long real session', async () => {
  const calls = [...toolCalls('kimi-cli/entire-checkpoints-v1/90/e87d8e1a99/0/full.jsonl'), ...toolCalls('claude-code-log/89488521-e2e7-4d97-bc02-38197efdddc8.jsonl')];
  expect(calls.length).toBe(31);
  const base = { session_id: SID, cwd: box.project, hook_event_name: 'PostToolUse' };
  await box.run(['hook', 'SessionStart'], { input: JSON.stringify({ ...base, hook_event_name: 'SessionStart', source: 'startup' }) });
  for (const call of calls) {
    const r = await box.run(['hook', 'PostToolUse'], { input: JSON.stringify({ ...base, ...call }) });
    expect(r.exitCode).toBe(0);
  }
  expect((await box.run(['note', 'Chose to cache the rendered session HTML instead of regenerating it', '--importance', '0.9', '--session', SID])).exitCode).toBe(0);
  const memory = String((await box.run(['context', '--part', 'memory', '--session', SID])).stdout);
  const state = memory.slice(memory.indexOf('<session_state>'), memory.indexOf('</session_state>'));
  const files = state.split('\n').filter((l) => l.startsWith('- /'));
  // The file the agent edited last leads; the earlier session's file is still there, below it.
  expect(files[0]).toContain('claude_code_log/tui.py (edit');
  expect(state).toContain('useFileMentions.ts');
  expect(state.indexOf('tui.py')).toBeLessThan(state.indexOf('useFileMentions.ts'));
  // The todo list as the last TodoWrite left it.
  expect(state).toMatch(/Todo list:\n- \[[~ x]\] /);
  expect(state).toContain('Modify action_export_selected to use cached session HTML files');
  expect(state).toMatch(/Recent decisions \(not yet consolidated\):\n- Chose to cache the rendered session HTML/);
  // Byte-stable while nothing changes (the prompt cache survives).
  expect(String((await box.run(['context', '--part', 'memory', '--session', SID])).stdout)).toBe(memory);
  const status = await runJson(box, ['status', '--session', SID]);
  expect(status).toBeTruthy();
}, 120_000);
