// Each Codex CLI hook's latency (`wmem hook --agent codex EVENT`, the JSON Codex 0.169 sends on
// stdin): the wall time of the hook process, as Codex waits for it, against bare `node -e 0`,
// interleaved round by round so machine noise hits all alike. The session is a normal one: a
// filled overview, 100 scratch notes, and a real Codex rollout (test fixture, copied) holding one
// compaction, that grows by a few token_count lines and a finished command before each round, as
// it would between prompts. PostToolUse looks its command's exit code up in the rollout.
//   node bench/hooks-codex.mjs [rounds] [baseline bin/wmem.js]
// Given another build's bin/wmem.js, runs it too in a home of its own, interleaved, and prints the
// ratio of this build to it.
import './node-start.mjs';
import { appendFileSync, copyFileSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchSession, fillMemory, hookRounds } from './hook-rounds.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const rounds = Number(process.argv[2] ?? 30);
const work = path.join(root, 'bench', '.work', 'hooks-codex');
rmSync(work, { recursive: true, force: true });
const baselineBin = process.argv[3] ? path.resolve(process.argv[3]) : undefined;

/** A normal session served by the wmem at `bin`, in a folder of its own, and its hook cases. */
function world(bin, tag) {
  const SID = '01a211be-0000-7000-8000-0123456789ab';
  const session = benchSession({ work, tag, bin, agent: 'codex', sid: SID });
  const { dir, project, home, env, hook, wmem } = session;
  const fixtures = path.join(root, 'test', 'fixtures', 'codex');
  const rollout = path.join(dir, 'rollout.jsonl');
  copyFileSync(path.join(fixtures, 'rollout-auto-compacted.jsonl'), rollout);
  const payload = (event, extra = {}) => JSON.stringify({ session_id: SID, transcript_path: rollout, cwd: project, hook_event_name: event, model: 'gpt-5.1', permission_mode: 'bypassPermissions', ...extra });

  hook('SessionStart', payload('SessionStart', { source: 'startup' }));
  fillMemory(session, SID);
  hook('UserPromptSubmit', payload('UserPromptSubmit', { prompt: 'warm' }));

  const usage = (i) => JSON.stringify({ timestamp: '2026-11-25T08:00:00.000Z', type: 'event_msg', payload: { type: 'token_count', info: { last_token_usage: { input_tokens: 60000 + i, cached_input_tokens: 50000, output_tokens: 100, total_tokens: 60100 + i }, model_context_window: 258400 } } }) + '\n';
  const command = (id, code) => JSON.stringify({ timestamp: '2026-11-25T08:00:00.000Z', type: 'event_msg', payload: { type: 'item_completed', item: { type: 'CommandExecution', id, command: ['/bin/bash', '-lc', 'npm test'], status: code ? 'failed' : 'completed', aggregated_output: code ? 'FAIL src/a.test.ts\nAssertionError: expected 1 to be 2\n' : 'ok\n', exit_code: code } } }) + '\n';
  const post = (id, cmd) => hook('PostToolUse', payload('PostToolUse', { turn_id: 't', tool_name: 'Bash', tool_input: { command: cmd }, tool_response: 'output', tool_use_id: id }));

  const cases = {
    SessionStart: () => hook('SessionStart', payload('SessionStart', { source: 'resume' })),
    UserPromptSubmit: () => hook('UserPromptSubmit', payload('UserPromptSubmit', { turn_id: 't', prompt: 'next step' })),
    'PostToolUse ok': (r) => post(`call_ok_${r}`, 'ls'),
    'PostToolUse failed': (r) => post(`call_fail_${r}`, 'npm test'),
    SessionEnd: () => hook('SessionEnd', JSON.stringify({ session_id: SID, transcript_path: rollout, cwd: project, hook_event_name: 'SessionEnd', reason: 'other' })),
    PreCompact: () => hook('PreCompact', payload('PreCompact', { turn_id: 't', trigger: 'auto' })),
    PostCompact: () => hook('PostCompact', payload('PostCompact', { turn_id: 't', trigger: 'auto' })),
    // PreCompact and PostCompact each add a line to overview.md: this prompt is the first to render it.
    'UserPromptSubmit*': () => hook('UserPromptSubmit', payload('UserPromptSubmit', { turn_id: 't', prompt: 'after an overview change' })),
  };
  const grow = (r) => {
    for (let i = 0; i < 3; i++) appendFileSync(rollout, usage(r * 3 + i));
    appendFileSync(rollout, command(`call_ok_${r}`, 0) + command(`call_fail_${r}`, 1));
  };
  return { grow, cases };
}

const worlds = [{ tag: 'this', ...world(path.join(root, 'bin', 'wmem.js'), 'this') }, ...(baselineBin ? [{ tag: 'baseline', ...world(baselineBin, 'baseline') }] : [])];
hookRounds({ worlds, rounds, baselineBin, bench: 'hooks-codex', prefix: 'codex hook ', notes: () => ['UserPromptSubmit* = the first prompt after PostCompact changed overview.md (the order of rounds is that of bench/hooks.mjs).', `rounds: ${rounds}, node ${process.version}, ${os.cpus().length} cores; rollout ${Math.round(readFileSync(path.join(work, 'this', 'rollout.jsonl')).length / 1024)} KB at the end (one compaction)`] });
rmSync(work, { recursive: true, force: true });
