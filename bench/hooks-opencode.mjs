// Each OpenCode hook's latency (`wmem hook --agent opencode EVENT`, the JSON wmem's plugin sends
// on stdin): the wall time of the hook process, as the plugin waits for it, against bare
// `node -e 0`, interleaved round by round so machine noise hits all alike. The session is a
// normal one: a filled overview and 100 scratch notes; the messages the plugin passes grow by
// an exchange every round (40 messages to start), as they would between prompts.
//   node bench/hooks-opencode.mjs [rounds] [baseline bin/wmem.js]
// Given another build's bin/wmem.js, runs it too in a home of its own, interleaved, and prints the
// ratio of this build to it.
import './node-start.mjs';
import { rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchSession, fillMemory, hookRounds } from './hook-rounds.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const rounds = Number(process.argv[2] ?? 30);
const work = path.join(root, 'bench', '.work', 'hooks-opencode');
rmSync(work, { recursive: true, force: true });
const baselineBin = process.argv[3] ? path.resolve(process.argv[3]) : undefined;

/** A normal session served by the wmem at `bin`, in a folder of its own, and its hook cases. */
function world(bin, tag) {
  const SID = 'ses_bench0000000000000000000';
  const session = benchSession({ work, tag, bin, agent: 'opencode', sid: SID });
  const { dir, project, home, env, hook, wmem } = session;
  const model = { providerID: 'anthropic', modelID: 'claude-sonnet-4-5', limit: { context: 200000, output: 64000 } };
  const messages = [];
  const exchange = (i) => {
    const user = { info: { id: `msg_${String(2 * i).padStart(6, '0')}`, sessionID: SID, role: 'user', time: { created: 2 * i } }, parts: [{ type: 'text', text: `step ${i}: go on with the parser` }] };
    const tokens = { total: 60000 + i * 100, input: 9000, output: 100, reasoning: 0, cache: { read: 50900 + i * 100, write: 0 } };
    const assistant = { info: { id: `msg_${String(2 * i + 1).padStart(6, '0')}`, sessionID: SID, role: 'assistant', modelID: model.modelID, providerID: model.providerID, tokens, time: { created: 2 * i + 1 } }, parts: [{ type: 'text', text: `done with step ${i}` }] };
    messages.push(user, assistant);
  };
  for (let i = 0; i < 20; i++) exchange(i);
  // OpenCode's compaction writes its summary as an assistant message marked `summary: true`.
  const summary = (r) => ({ info: { id: `msg_summary_${r}`, sessionID: SID, role: 'assistant', summary: true, modelID: model.modelID, providerID: model.providerID, tokens: { total: 0, input: 0, output: 1800, reasoning: 0, cache: { read: 0, write: 0 } }, time: { created: 0 } }, parts: [{ type: 'text', text: 'Summary: the user is shipping the compaction path. '.repeat(20) }] });
  const infos = () => messages.map((m) => ({ info: m.info }));
  const payload = (event, extra = {}) => JSON.stringify({ event, sessionID: SID, directory: project, model, ...extra });

  hook('system.transform', payload('system.transform'));
  fillMemory(session, SID);
  hook('chat.message', payload('chat.message', { messages: infos() }));

  const tool = (r, exit) => ({ tool: 'bash', callID: `call_${r}_${exit}`, args: { command: 'npm test', description: 'tests' }, title: 'npm test', output: exit ? 'FAIL src/a.test.ts\nAssertionError: expected 1 to be 2\n' : 'ok\n', metadata: { exit, truncated: false } });
  // In the order of a real turn: the prompt, the requests' system prompt, tool calls; then a
  // compaction (the plugin's session.compacting, then session.compacted once OpenCode has written
  // its summary: both change overview.md, and the second renders the memory part again, as
  // Claude Code's PostCompact does) and the idle that ends the turn.
  const cases = {
    'chat.message': () => hook('chat.message', payload('chat.message', { messages: infos() })),
    'system.transform': () => hook('system.transform', payload('system.transform')),
    'tool.execute.after ok': (r) => hook('tool.execute.after', payload('tool.execute.after', { tool: tool(r, 0) })),
    'tool.execute.after failed': (r) => hook('tool.execute.after', payload('tool.execute.after', { tool: tool(r, 1) })),
    'session.compacting': () => hook('session.compacting', payload('session.compacting', { messages })),
    // What the plugin sends once OpenCode has compacted: the messages with its summary in them.
    'session.compacted': [
      (r) => messages.push(summary(r)),
      () => hook('session.compacted', payload('session.compacted', { messages })),
    ],
    'session.idle': () => hook('session.idle', payload('session.idle', { messages: infos() })),
  };
  const grow = (r) => exchange(20 + r);
  return { grow, cases };
}

const worlds = [{ tag: 'this', ...world(path.join(root, 'bin', 'wmem.js'), 'this') }, ...(baselineBin ? [{ tag: 'baseline', ...world(baselineBin, 'baseline') }] : [])];
hookRounds({ worlds, rounds, baselineBin, bench: 'hooks-opencode', prefix: 'opencode hook ', notes: () => [`rounds: ${rounds}, node ${process.version}, ${os.cpus().length} cores; ${20 + rounds} exchanges at the end`] });
rmSync(work, { recursive: true, force: true });
