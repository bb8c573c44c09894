// The per-prompt hook when the memory part changed (issue 27): Claude Code's UserPromptSubmit
// right after a tool call that changed the session state (a failed command: its error counted in
// hot.json), in a session as bench/hooks.mjs's (a filled overview, 100 notes: a part cut to its
// budget). The tool call is untimed; the prompt is timed beside `node -e 0`, and beside another
// build's in the same rounds when one is given. WMEM_BENCH_INSTRUCTIONS=1 counts instructions.
//   node bench/prompt-miss.mjs [rounds] [baseline bin/wmem.js]
import './node-start.mjs';
import { copyFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchSession, fillMemory, hookRounds } from './hook-rounds.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const rounds = Number(process.argv[2] ?? 10);
const baselineBin = process.argv[3] ? path.resolve(process.argv[3]) : undefined;
const work = path.join(root, 'bench', '.work', 'prompt-miss');
rmSync(work, { recursive: true, force: true });
const SID = 'bench-5e2a3c4d-aaaa-4bbb-8ccc-0123456789ab';

function world(bin, tag) {
  const session = benchSession({ work, tag, bin, agent: 'claude', sid: SID });
  const { dir, project, hook } = session;
  const transcript = path.join(dir, 'transcript.jsonl');
  copyFileSync(path.join(root, 'test', 'fixtures', 'transcripts', 'claude-code-log', 'ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl'), transcript);
  const payload = (event, extra = {}) => JSON.stringify({ session_id: SID, transcript_path: transcript, cwd: project, permission_mode: 'default', hook_event_name: event, ...extra });
  hook('SessionStart', payload('SessionStart', { source: 'startup' }));
  fillMemory(session, SID);
  hook('UserPromptSubmit', payload('UserPromptSubmit', { prompt: 'warm' }));
  const failed = (r) => hook('PostToolUseFailure', payload('PostToolUseFailure', { tool_name: 'Bash', tool_input: { command: `npm test -- ${r}` }, tool_use_id: `t${r}`, error: `Exit code 1\nFAIL src/t${r}.test.ts`, is_interrupt: false }));
  const edit = (r) => hook('PostToolUse', payload('PostToolUse', { tool_name: 'Edit', tool_input: { file_path: path.join(project, `src/f${r}.ts`), old_string: 'a', new_string: 'b' }, tool_response: { success: true }, tool_use_id: `e${r}` }));
  const prompt = () => hook('UserPromptSubmit', payload('UserPromptSubmit', { prompt: 'next step' }));
  return {
    grow: () => {},
    cases: {
      'UserPromptSubmit after a failed tool call': [failed, prompt],
      'UserPromptSubmit after an edit of a new file': [edit, prompt],
      'UserPromptSubmit unchanged': prompt,
    },
  };
}

const worlds = [{ tag: 'this', ...world(path.join(root, 'bin', 'wmem.js'), 'this') }, ...(baselineBin ? [{ tag: 'baseline', ...world(baselineBin, 'baseline') }] : [])];
hookRounds({ worlds, rounds, baselineBin, bench: 'prompt-miss', prefix: 'hook ', notes: () => [`rounds: ${rounds}, node ${process.version}, ${os.cpus().length} cores`] });
rmSync(work, { recursive: true, force: true });
