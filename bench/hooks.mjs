// Each Claude Code hook's latency (`wmem hook EVENT`, the JSON Claude Code sends on stdin)
// against bare `node -e 0`, interleaved round by round so machine noise hits all alike. The
// session is a normal one: a filled overview, 100 scratch notes, and a real 285 KB transcript
// (test fixture, copied) that grows by a few lines before each round, as it would between
// prompts. Prints medians, p90 and the ratio to node; given another build's bin/wmem.js, runs it
// too, interleaved, and prints the ratio of this build to it.
//   node bench/hooks.mjs [rounds] [baseline bin/wmem.js]
import './node-start.mjs';
import { appendFileSync, copyFileSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchSession, fillMemory, hookRounds } from './hook-rounds.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const rounds = Number(process.argv[2] ?? 30);
// A second wmem (another build's bin/wmem.js) runs the same cases in the same rounds, in a home
// of its own: its figures print beside this one's, with the ratio between the two.
const baselineBin = process.argv[3] ? path.resolve(process.argv[3]) : undefined;
const work = path.join(root, 'bench', '.work', 'hooks');
rmSync(work, { recursive: true, force: true });
const SID = 'bench-4f1d2c3b-aaaa-4bbb-8ccc-0123456789ab';
const line = (i) =>
  JSON.stringify({ type: 'assistant', isSidechain: false, uuid: `bench-${i}`, message: { id: `msg_bench_${i}`, model: 'claude-opus-4', role: 'assistant', content: [{ type: 'text', text: 'working on it '.repeat(40) }], usage: { input_tokens: 3, cache_read_input_tokens: 60000 + i, output_tokens: 100 } } }) + '\n';

/** A normal session served by the wmem at `bin`, and its hook cases. */
function world(bin, tag) {
  const session = benchSession({ work, tag, bin, agent: 'claude', sid: SID });
  const { dir, project, home, hook } = session;
  const transcript = path.join(dir, 'transcript.jsonl');
  copyFileSync(path.join(root, 'test', 'fixtures', 'transcripts', 'claude-code-log', 'ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl'), transcript);
  const payload = (event, extra = {}) => JSON.stringify({ session_id: SID, transcript_path: transcript, cwd: project, permission_mode: 'default', hook_event_name: event, ...extra });
  hook('SessionStart', payload('SessionStart', { source: 'startup' }));
  fillMemory(session, SID);
  const sessionDir = path.join(home, 'sessions', `--${project.slice(1).replace(/[/\\:]/g, '-')}--`, SID, 'working-memory');
  hook('UserPromptSubmit', payload('UserPromptSubmit', { prompt: 'warm' }));
  const overview = path.join(sessionDir, 'overview.md');
  const editOverview = (r) => {
    const text = readFileSync(overview, 'utf8');
    writeFileSync(overview, text.replace('## Open Questions\n', `## Open Questions\n- question ${r}: does the edit survive?\n`));
  };
  const grow = (r) => {
    for (let i = 0; i < 5; i++) appendFileSync(transcript, line(r * 5 + i));
  };
  const cases = {
    SessionStart: () => hook('SessionStart', payload('SessionStart', { source: 'resume' })),
    UserPromptSubmit: () => hook('UserPromptSubmit', payload('UserPromptSubmit', { prompt: 'next step' })),
    PostToolUse: () => hook('PostToolUse', payload('PostToolUse', { tool_name: 'Edit', tool_input: { file_path: path.join(project, 'src/a.ts'), old_string: 'a', new_string: 'b' }, tool_response: { success: true }, tool_use_id: 't' })),
    PostToolUseFailure: () => hook('PostToolUseFailure', payload('PostToolUseFailure', { tool_name: 'Bash', tool_input: { command: 'npm test' }, tool_use_id: 't', error: 'Exit code 1\nFAIL src/a.test.ts', is_interrupt: false })),
    // What the user meets most: a prompt right after a tool call that changed hot.json (the failed
    // call untimed), a render-cache miss of the session state alone.
    'UserPromptSubmit after a tool call': [
      () => hook('PostToolUseFailure', payload('PostToolUseFailure', { tool_name: 'Bash', tool_input: { command: 'npm run lint' }, tool_use_id: 'u', error: 'Exit code 2\nlint: 3 problems', is_interrupt: false })),
      () => hook('UserPromptSubmit', payload('UserPromptSubmit', { prompt: 'after a tool call' })),
    ],
    SessionEnd: () => hook('SessionEnd', payload('SessionEnd', { reason: 'other' })),
    PreCompact: () => hook('PreCompact', payload('PreCompact', { trigger: 'auto', custom_instructions: '' })),
    PostCompact: () => hook('PostCompact', payload('PostCompact', { trigger: 'auto', compact_summary: 'Summary: the user is shipping the compaction path. '.repeat(20) })),
    // PreCompact and PostCompact each add a line to overview.md: this prompt is the first to render it.
    'UserPromptSubmit*': () => hook('UserPromptSubmit', payload('UserPromptSubmit', { prompt: 'after an overview change' })),
    // The agent edits overview.md with its Edit tool (untimed), then PostToolUse fires for that edit.
    'PostToolUse overview': [
      editOverview,
      () => hook('PostToolUse', payload('PostToolUse', { tool_name: 'Edit', tool_input: { file_path: overview, old_string: 'x', new_string: 'y' }, tool_response: { success: true }, tool_use_id: 'o' })),
    ],
    'UserPromptSubmit**': () => hook('UserPromptSubmit', payload('UserPromptSubmit', { prompt: 'after the agent edited its overview' })),
  };
  return { grow, cases };
}

const worlds = [{ tag: 'this', ...world(path.join(root, 'bin', 'wmem.js'), 'this') }, ...(baselineBin ? [{ tag: 'baseline', ...world(baselineBin, 'baseline') }] : [])];
hookRounds({
  worlds,
  rounds,
  baselineBin,
  bench: 'hooks',
  prefix: 'hook ',
  notes: () => [
    'UserPromptSubmit* = the first prompt after PostCompact changed overview.md; ** = the prompt after the agent edited overview.md (its PostToolUse re-rendered it).',
    `rounds: ${rounds}, node ${process.version}, ${os.cpus().length} cores; transcript ${Math.round(285514 / 1024)} KB + 5 lines per round`,
  ],
});
rmSync(work, { recursive: true, force: true });
