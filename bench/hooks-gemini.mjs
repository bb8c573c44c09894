// Each Gemini CLI hook's latency (`wmem hook --agent gemini EVENT`, the JSON Gemini CLI 0.61 sends
// on stdin): the wall time of the hook process, as Gemini waits for it, against bare `node -e 0`,
// interleaved round by round so machine noise hits all alike. The session is a normal one: a
// filled overview, 100 scratch notes, and a real Gemini chat file (test fixture, copied) holding
// one compression, that grows by a few replies with their token figures before each round, as it
// would between prompts. PreCompress fires before every model call: it finds no new compaction.
//   node bench/hooks-gemini.mjs [rounds] [baseline bin/wmem.js]
// Given another build's bin/wmem.js, runs it too in a home of its own, interleaved, and prints the
// ratio of this build to it.
import { spawnSync } from 'node:child_process';
import { appendFileSync, copyFileSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { hookRounds } from './hook-rounds.mjs';
import { spawnTimed } from './cpu.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const rounds = Number(process.argv[2] ?? 30);
const work = path.join(root, 'bench', '.work', 'hooks-gemini');
rmSync(work, { recursive: true, force: true });
const baselineBin = process.argv[3] ? path.resolve(process.argv[3]) : undefined;

/** A normal session served by the wmem at `bin`, in a folder of its own, and its hook cases. */
function world(bin, tag) {
  const dir = path.join(work, tag);
  const project = path.join(dir, 'project');
  const home = path.join(dir, 'home');
  mkdirSync(project, { recursive: true });
  const chat = path.join(dir, 'session-chat.jsonl');
  copyFileSync(path.join(root, 'test', 'fixtures', 'gemini', 'chat-compressed.jsonl'), chat);
  const env = { ...process.env, WMEM_HOME: home, NO_COLOR: '1', GEMINI_PROJECT_DIR: project };
  const SID = '61fbed08-d17e-43a6-bd4c-46e22bc37b43';
  const payload = (event, extra = {}) => JSON.stringify({ session_id: SID, transcript_path: chat, cwd: project, hook_event_name: event, timestamp: '2026-11-25T08:00:00.000Z', ...extra });
  const hook = (event, input) => {
    const r = spawnTimed(process.execPath, [bin, 'hook', '--agent', 'gemini', event], { cwd: project, env: { ...env, GEMINI_SESSION_ID: SID }, input, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`hook ${event} exited ${r.status}: ${r.stderr}`);
    return r.stdout;
  };
  const wmem = (...args) => {
    const r = spawnSync(process.execPath, [bin, ...args, '--session', SID], { cwd: project, env, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`wmem ${args.join(' ')} failed: ${r.stderr}`);
  };

  hook('SessionStart', payload('SessionStart', { source: 'startup' }));
  hook('BeforeAgent', payload('BeforeAgent', { prompt: 'warm' }));
  const filler = (topic, n) => Array.from({ length: n }, (_, i) => `- ${topic} item ${i}: decided after measuring, see detail/notes-${i}.md`).join('\n');
  wmem('set', 'task', 'Ship the compaction path: stream messages.jsonl, archive first, then rewrite; restore must round-trip.');
  wmem('set', 'progress', filler('progress', 15));
  wmem('set', 'decisions', filler('decision', 12));
  wmem('set', 'context', filler('context', 10));
  const notes = Array.from({ length: 100 }, (_, i) => `- [2026-11-23T08:00:00Z] (importance: 0.${i % 10}) note ${i}: the build uses esbuild and the tests use vitest #context`).join('\n');
  appendFileSync(path.join(home, 'sessions', `--${project.slice(1).replace(/[/\\:]/g, '-')}--`, SID, 'working-memory', 'scratch.md'), notes + '\n');

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
