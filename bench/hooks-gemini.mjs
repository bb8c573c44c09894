// Each Gemini CLI hook's latency (`wmem hook --agent gemini EVENT`, the JSON Gemini CLI 0.61 sends
// on stdin): the wall time of the hook process, as Gemini waits for it, against bare `node -e 0`,
// interleaved round by round so machine noise hits all alike. The session is a normal one: a
// filled overview, 100 scratch notes, and a real Gemini chat file (test fixture, copied) holding
// one compression, that grows by a few replies with their token figures before each round, as it
// would between prompts. PreCompress fires before every model call: it finds no new compaction.
//   node bench/hooks-gemini.mjs [rounds] [baseline bin/wmem.js]
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
const work = path.join(root, 'bench', '.work', 'hooks-gemini');
rmSync(work, { recursive: true, force: true });
const baselineBin = process.argv[3] ? path.resolve(process.argv[3]) : undefined;

/** A normal session served by the wmem at `bin`, in a folder of its own, and its hook cases. */
function world(bin, tag) {
  const SID = '61fbed08-d17e-43a6-bd4c-46e22bc37b43';
  const session = benchSession({ work, tag, bin, agent: 'gemini', sid: SID, env: (project) => ({ GEMINI_PROJECT_DIR: project }), hookEnv: { GEMINI_SESSION_ID: SID } });
  const { dir, project, home, env, hook, wmem } = session;
  const chat = path.join(dir, 'session-chat.jsonl');
  copyFileSync(path.join(root, 'test', 'fixtures', 'gemini', 'chat-compressed.jsonl'), chat);
  const payload = (event, extra = {}) => JSON.stringify({ session_id: SID, transcript_path: chat, cwd: project, hook_event_name: event, timestamp: '2026-11-25T08:00:00.000Z', ...extra });

  hook('SessionStart', payload('SessionStart', { source: 'startup' }));
  hook('BeforeAgent', payload('BeforeAgent', { prompt: 'warm' }));
  fillMemory(session, SID);

  const reply = (i) => JSON.stringify({ id: `reply-${i}`, timestamp: '2026-11-25T08:00:00.000Z', type: 'gemini', content: 'Done.', thoughts: [], tokens: { input: 60000 + i, output: 100, cached: 50000, thoughts: 0, tool: 0, total: 60100 + i }, model: 'gemini-2.5-flash' }) + '\n' + JSON.stringify({ $set: { lastUpdated: '2026-11-25T08:00:00.000Z' } }) + '\n';
  const shell = (command, llmContent) => hook('AfterTool', payload('AfterTool', { tool_name: 'run_shell_command', tool_input: { command }, tool_response: { llmContent, returnDisplay: '' } }));

  const cases = {
    SessionStart: () => hook('SessionStart', payload('SessionStart', { source: 'resume' })),
    BeforeAgent: () => hook('BeforeAgent', payload('BeforeAgent', { prompt: 'next step' })),
    'AfterTool ok': () => shell('ls', 'Output: a.ts\nProcess Group PGID: 1'),
    'AfterTool failed': () => shell('npm test', 'Output: FAIL src/a.test.ts\nAssertionError: expected 1 to be 2\nExit Code: 1\nProcess Group PGID: 1'),
    PreCompress: () => hook('PreCompress', payload('PreCompress', { trigger: 'auto' })),
    SessionEnd: () => hook('SessionEnd', payload('SessionEnd', { reason: 'exit' })),
  };
  const grow = (r) => {
    for (let i = 0; i < 3; i++) appendFileSync(chat, reply(r * 3 + i));
  };
  return { grow, cases };
}

const worlds = [{ tag: 'this', ...world(path.join(root, 'bin', 'wmem.js'), 'this') }, ...(baselineBin ? [{ tag: 'baseline', ...world(baselineBin, 'baseline') }] : [])];
hookRounds({ worlds, rounds, baselineBin, bench: 'hooks-gemini', prefix: 'gemini hook ', notes: () => [`rounds: ${rounds}, node ${process.version}, ${os.cpus().length} cores; chat file ${Math.round(readFileSync(path.join(work, 'this', 'session-chat.jsonl')).length / 1024)} KB at the end (one compression)`] });
rmSync(work, { recursive: true, force: true });
