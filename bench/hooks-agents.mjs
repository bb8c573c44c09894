// The hooks on every prompt and every tool call of the agents without a bench of their own
// (GitHub Copilot CLI, Qwen Code, Factory Droid, Kilo Code): each one's session start (a resume),
// prompt, and a tool call done and failed, in the JSON each sends on stdin, against bare
// `node -e 0`, interleaved round by round. The session is a normal one (bench/hook-rounds.mjs's
// fillMemory); Copilot's and Qwen's token use comes from their real logs (test fixtures, copied).
//   node bench/hooks-agents.mjs [rounds] [baseline bin/wmem.js]
// Given another build's bin/wmem.js, runs it too in a home of its own, interleaved, and prints the
// ratio of this build to it.
import './node-start.mjs';
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchSession, fillMemory, hookRounds } from './hook-rounds.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const rounds = Number(process.argv[2] ?? 30);
const work = path.join(root, 'bench', '.work', 'hooks-agents');
rmSync(work, { recursive: true, force: true });
const baselineBin = process.argv[3] ? path.resolve(process.argv[3]) : undefined;
const fixtures = path.join(root, 'test', 'fixtures');
const shellOutput = (code) => `Command: npm test\nOutput: ${code ? 'FAIL src/a.test.ts' : 'ok'}\nExit Code: ${code}`;

/** Each agent's events and inputs: [start, prompt, tool done, tool failed] as [event, fields]. */
const AGENTS = {
  copilot: {
    sid: '0b4c7c1e-0000-4000-8000-0123456789ab',
    input: (s, sid) => (fields) => ({ sessionId: sid, timestamp: 1795712906217, cwd: s.project, ...fields }),
    setup: (s, sid) => {
      const events = path.join(s.dir, 'copilot', 'session-state', sid);
      mkdirSync(events, { recursive: true });
      copyFileSync(path.join(fixtures, 'copilot', 'events.jsonl'), path.join(events, 'events.jsonl'));
    },
    env: (dir) => ({ COPILOT_HOME: path.join(dir, 'copilot') }),
    fresh: { source: 'new' },
    cases: [
      ['sessionStart', { source: 'resume' }],
      ['userPromptSubmitted', { prompt: 'next step' }],
      ['postToolUse', { toolName: 'bash', toolArgs: { command: 'ls' }, toolResult: { resultType: 'success', textResultForLlm: 'a.ts\n<shellId: 0 completed with exit code 0>' } }],
      ['postToolUse', { toolName: 'bash', toolArgs: { command: 'npm test' }, toolResult: { resultType: 'success', textResultForLlm: 'FAIL src/a.test.ts\n<shellId: 1 completed with exit code 1>' } }],
    ],
  },
  qwen: {
    sid: 'qwen-bench-0000-4000-8000-0123456789ab',
    transcript: path.join(fixtures, 'qwen', 'chat.jsonl'),
    cases: [
      ['SessionStart', { source: 'resume' }],
      ['UserPromptSubmit', { prompt: 'next step' }],
      ['PostToolUse', { tool_name: 'run_shell_command', tool_input: { command: 'ls' }, tool_response: shellOutput(0) }],
      ['PostToolUseFailure', { tool_name: 'run_shell_command', tool_input: { command: 'npm test' }, error: shellOutput(1), is_interrupt: false }],
    ],
  },
  droid: {
    sid: 'droid-bench-0000-4000-8000-0123456789ab',
    transcript: path.join(fixtures, 'transcripts', 'claude-code-log', 'ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl'),
    cases: [
      ['SessionStart', { source: 'resume' }],
      ['UserPromptSubmit', { prompt: 'next step' }],
      ['PostToolUse', { tool_name: 'Execute', tool_input: { command: 'ls' }, tool_response: 'a.ts', tool_use_id: 'c1' }],
      ['Stop', { stop_hook_active: false }],
    ],
  },
  kilo: {
    sid: 'ses_kilobench00000000000000',
    input: (s, sid) => (fields, event) => ({ event, sessionID: sid, directory: s.project, model: { providerID: 'anthropic', modelID: 'claude-sonnet-4-5', limit: { context: 200000, output: 64000 } }, ...fields }),
    cases: [
      ['system.transform', {}],
      ['chat.message', {}],
      ['tool.execute.after', { tool: { tool: 'bash', callID: 'call_0', args: { command: 'ls' }, title: 'ls', output: 'a.ts\n', metadata: { exit: 0, truncated: false } } }],
      ['tool.execute.after', { tool: { tool: 'bash', callID: 'call_1', args: { command: 'npm test' }, title: 'npm test', output: 'FAIL src/a.test.ts\n', metadata: { exit: 1, truncated: false } } }],
    ],
  },
};
const NAMES = ['start', 'prompt', 'tool ok', 'tool failed'];

/** Every agent's session, served by the wmem at `bin`, and its hook cases. */
function world(bin, tag) {
  const cases = {};
  for (const [agent, spec] of Object.entries(AGENTS)) {
    const session = benchSession({ work: path.join(work, tag), tag: agent, bin, agent, sid: spec.sid, env: () => spec.env?.(path.join(work, tag, agent)) ?? {} });
    spec.setup?.(session, spec.sid);
    const transcript = spec.transcript && path.join(session.dir, 'transcript.jsonl');
    if (transcript) copyFileSync(spec.transcript, transcript);
    const input = spec.input?.(session, spec.sid) ?? ((fields, event) => ({ session_id: spec.sid, transcript_path: transcript, cwd: session.project, hook_event_name: event, ...fields }));
    const payload = (event, fields) => JSON.stringify(input(fields, event));
    const [start, prompt] = spec.cases;
    session.hook(start[0], payload(start[0], { ...start[1], ...(spec.fresh ?? { source: 'startup' }) }));
    fillMemory(session, spec.sid);
    session.hook(prompt[0], payload(prompt[0], prompt[1]));
    spec.cases.forEach(([event, fields], i) => {
      cases[`${agent} ${event} (${NAMES[i]})`] = () => session.hook(event, payload(event, fields));
    });
  }
  return { grow: () => {}, cases };
}

const worlds = [{ tag: 'this', ...world(path.join(root, 'bin', 'wmem.js'), 'this') }, ...(baselineBin ? [{ tag: 'baseline', ...world(baselineBin, 'baseline') }] : [])];
hookRounds({ worlds, rounds, baselineBin, bench: 'hooks-agents', prefix: 'hook --agent ', notes: () => [`rounds: ${rounds}, node ${process.version}, ${os.cpus().length} cores`] });
rmSync(work, { recursive: true, force: true });
