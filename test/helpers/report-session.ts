// A session made from a real transcript fixture (Claude Code 2.1.114, 68 usage lines), with notes
// (one holding markup), a decision, an open error and one compaction: what the report tests and
// the docs screenshot are made from.
import { copyFile } from 'node:fs/promises';
import path from 'node:path';
import { FIXTURES, runJson, type Sandbox } from './cli.js';

export const REPORT_FIXTURE = path.join(FIXTURES, 'claude-code-log', 'ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl');
export const MARKUP_NOTE = '</script><script>alert(1)</script> stays text';

export async function reportSession(box: Sandbox): Promise<{ dir: string }> {
  const dir = (await runJson(box, ['init', '--tokens-max', '200000'])).path as string;
  await copyFile(REPORT_FIXTURE, path.join(dir, 'messages.jsonl'));
  const run = async (args: string[], input?: string) => {
    const r = await box.run(args, { input });
    if (r.exitCode !== 0) throw new Error(`wmem ${args.join(' ')}: ${r.stderr}`);
  };
  await run(['set', 'task', 'Split the worktree experiments into one branch each; done when CI is green on all of them']);
  await run(['note', 'Chose git worktrees over clones: one object store, cheap branches', '--importance', '0.9']);
  await run(['note', MARKUP_NOTE]);
  await run(['track'], JSON.stringify({ tool_name: 'Bash', tool_input: { command: 'npm test' }, tool_response: { stdout: '', stderr: 'FAIL src/app.test.ts\n  expected 2 to be 3', exit_code: 1 } }));
  await run(['compact', '--keep-recent', '3']);
  await run(['note', 'After the compaction: the remaining work is the CI matrix']);
  return { dir };
}
