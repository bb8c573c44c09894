// Steps and the cut inside a turn (--keep-steps, docs/compaction.md): where steps start in each history
// format wmem reads, and where the planner cuts when the last turns hold too many of them.
import { describe, expect, it } from 'vitest';
import { lineFacts } from '../../src/history/model/messages.js';
import { BackwardStepTracker, CutPlanner, StepTracker, planLineCut, plannerLine } from '../../src/history/model/turns.js';

const J = (v: unknown) => JSON.stringify(v);
// OpenAI-style messages (Kimi CLI's context.jsonl, wmem's own messages.jsonl).
const user = (text: string) => J({ role: 'user', content: text });
const assistant = (text: string) => J({ role: 'assistant', content: text });
const call = (id: string) => J({ role: 'assistant', content: '', tool_calls: [{ type: 'function', id, function: { name: 'Bash', arguments: '{"command":"ls"}' } }] });
const calls = (...ids: string[]) => J({ role: 'assistant', content: '', tool_calls: ids.map((id) => ({ type: 'function', id, function: { name: 'Bash', arguments: '{}' } })) });
const result = (id: string) => J({ role: 'tool', content: 'out', tool_call_id: id });
const usage = '{"role": "_usage", "token_count": 12}';
// Claude Code: one line per content block, the blocks of one response sharing message.id.
const ccUser = (text: string) => J({ type: 'user', message: { role: 'user', content: text } });
const ccBlock = (id: string, block: unknown) => J({ type: 'assistant', message: { id, role: 'assistant', content: [block] } });
const ccResult = (id: string) => J({ type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: 'ok' }] }, toolUseResult: { stdout: 'ok' } });
// Codex rollout: reasoning, message and function calls of one response on separate lines.
const cx = (payload: unknown) => J({ type: 'response_item', payload });
const cxUser = (text: string) => cx({ type: 'message', role: 'user', content: [{ type: 'input_text', text }] });
const cxReasoning = cx({ type: 'reasoning', summary: [] });
const cxSay = (text: string) => cx({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text }] });
const cxCall = (id: string) => cx({ type: 'function_call', name: 'shell', arguments: '{}', call_id: id });
const cxOutput = (id: string) => cx({ type: 'function_call_output', call_id: id, output: 'ok' });

function forwardSteps(lines: string[]): number[] {
  const tracker = new StepTracker();
  return lines.flatMap((line, i) => tracker.add(i, plannerLine(lineFacts(line)))?.start ?? []);
}

function backwardSteps(lines: string[]): number[] {
  const tracker = new BackwardStepTracker();
  const found: number[] = [];
  for (let i = lines.length - 1; i >= 0; i--) {
    const step = tracker.add(i, plannerLine(lineFacts(lines[i]!)));
    if (step) found.push(step.start);
  }
  const last = tracker.end();
  if (last) found.push(last.start);
  return found.reverse();
}

describe('steps', () => {
  it('an OpenAI-style response with its tool results is one step; bookkeeping before it goes with it', () => {
    const lines = [user('fix it'), usage, call('1'), result('1'), usage, call('2'), result('2'), assistant('done')];
    expect(forwardSteps(lines)).toEqual([1, 4, 7]);
    expect(backwardSteps(lines)).toEqual([1, 4, 7]);
  });

  it('a Claude Code response split over lines sharing message.id is one step; a new id is a new step', () => {
    const lines = [
      ccUser('fix it'),
      ccBlock('msg_1', { type: 'thinking', thinking: 'hm' }),
      ccBlock('msg_1', { type: 'tool_use', id: 'toolu_1', name: 'Bash', input: {} }),
      ccResult('toolu_1'),
      ccBlock('msg_2', { type: 'text', text: 'a' }),
      ccBlock('msg_3', { type: 'text', text: 'b' }),
    ];
    expect(forwardSteps(lines)).toEqual([1, 4, 5]);
    expect(backwardSteps(lines)).toEqual([1, 4, 5]);
  });

  it('a Codex response (reasoning, message, function calls) is one step, its reasoning included', () => {
    const lines = [cxUser('fix it'), cxReasoning, cxSay('looking'), cxCall('c1'), cxCall('c2'), cxOutput('c1'), cxOutput('c2'), cxReasoning, cxCall('c3'), cxOutput('c3')];
    expect(forwardSteps(lines)).toEqual([1, 7]);
    expect(backwardSteps(lines)).toEqual([1, 7]);
  });
});

describe('planning with --keep-steps', () => {
  // One turn: a request and six steps (lines 1-2, 3-4, … 11-12).
  const oneTurn = [user('fix it'), ...[1, 2, 3, 4, 5, 6].flatMap((n) => [call(String(n)), result(String(n))])];

  it('cuts inside a long turn before the M-th step from the end, and names the opening to repeat', () => {
    expect(planLineCut(oneTurn, 5)).toBeUndefined();
    expect(planLineCut(oneTurn, 5, 2)).toEqual({ cut: 9, turnsRemoved: 1, opening: 0 });
    expect(planLineCut(oneTurn, 5, 1)).toEqual({ cut: 11, turnsRemoved: 1, opening: 0 });
  });

  it('changes nothing when the last N turns hold no more than M steps', () => {
    expect(planLineCut(oneTurn, 5, 6)).toBeUndefined();
    expect(planLineCut(oneTurn, 5, 100)).toBeUndefined();
    const turns = [user('a'), call('1'), result('1'), user('b'), call('2'), result('2'), user('c'), assistant('ok')];
    expect(planLineCut(turns, 2, 2)).toEqual(planLineCut(turns, 2));
    expect(planLineCut(turns, 0, 1)).toEqual({ cut: 8, turnsRemoved: 3 });
  });

  it('cuts before the user message when the M-th step opens its turn (nothing to repeat)', () => {
    const turns = [user('a'), call('1'), result('1'), user('b'), call('2'), result('2'), call('3'), result('3')];
    expect(planLineCut(turns, 5, 2)).toEqual({ cut: 3, turnsRemoved: 1 });
    expect(planLineCut(turns, 5, 1)).toEqual({ cut: 6, turnsRemoved: 2, opening: 3 });
  });

  it('never separates a call from its result: moves later first (fewer steps kept), else earlier', () => {
    // Call 3's result comes after the next step began: cutting before that step would split the pair.
    const late = [user('go'), calls('2', '3'), result('2'), call('4'), result('3'), result('4'), call('5'), result('5')];
    expect(planLineCut(late, 5, 2)).toEqual({ cut: 6, turnsRemoved: 1, opening: 0 });
    // Every later cut is held too: the nearest earlier step start that keeps pairs together.
    const held = [user('go'), call('1'), result('1'), calls('2', '3'), result('2'), call('4'), result('3'), result('4')];
    expect(planLineCut(held, 5, 1)).toEqual({ cut: 3, turnsRemoved: 1, opening: 0 });
  });

  it('never cuts inside a turn whose opening line carries a tool result (its copy would hold half a pair)', () => {
    const mixed = J({ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'x', content: 'ok' }, { type: 'text', text: 'and now fix it' }] });
    const lines = [user('a'), J({ role: 'assistant', content: [{ type: 'tool_use', id: 'x', name: 'Bash', input: {} }] }), mixed, call('1'), result('1'), call('2'), result('2')];
    expect(lineFacts(mixed).turnStart).toBe(true);
    expect(planLineCut(lines, 5, 1)).toBeUndefined();
  });

  it('does not cut at steps before the first user message', () => {
    const lines = [call('1'), result('1'), call('2'), result('2'), user('a'), call('3'), result('3')];
    expect(planLineCut(lines, 5, 2)).toBeUndefined();
    expect(planLineCut(lines.slice(0, 4), 5, 1)).toBeUndefined();
  });

  it('counts the steps at or after a position', () => {
    const planner = new CutPlanner();
    oneTurn.forEach((line, i) => planner.add(i, plannerLine(lineFacts(line))));
    expect(planner.stepStarts).toEqual([1, 3, 5, 7, 9, 11]);
    expect(planner.stepsFrom(0)).toBe(6);
    expect(planner.stepsFrom(9)).toBe(2);
    expect(planner.stepsFrom(12)).toBe(0);
  });
});
