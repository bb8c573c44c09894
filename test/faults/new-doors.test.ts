// The doors the agent adapters opened: `wmem hook --agent codex|gemini|opencode|claude EVENT` with
// hostile stdin. Session ids that climb out or are secrets, transcript paths naming a FIFO, a
// folder or a 2 GB sparse file, input that is not JSON and starts with a token, secrets in tool
// inputs and outputs. Each hook must exit 0 in time, print nothing when it fails, log the
// failure, write nothing outside the home, and no secret may reach a file wmem injects or keeps
// as state (the verbatim record aside), the hook log, or stdout.
import { afterAll, afterEach, beforeEach, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdir, readFile, readdir, truncate, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Sandbox } from '../helpers/cli.js';
import { SECRETS, listTree, withSession } from './helpers.js';

const VERBATIM = /(^|\/)(archive|detail|cache|tool-outputs)\/|messages\.jsonl$|-transcript\.jsonl$|\.lock/;
const tally = { tries: 0, failures: [] as string[] };
let box: Sandbox;

afterAll(() => {
  console.log(`new doors: ${tally.tries} hostile hook inputs tried; escaped, leaked, hung or broke the agent ${tally.failures.length}${tally.failures.length ? `: ${tally.failures.join('; ')}` : ''}`);
});
beforeEach(async () => {
  ({ box } = await withSession());
});
afterEach(async () => {
  await box.cleanup();
});

const PROMPT: Record<string, string> = { claude: 'UserPromptSubmit', codex: 'UserPromptSubmit', gemini: 'BeforeAgent' };
const TOOL: Record<string, string> = { claude: 'PostToolUse', codex: 'PostToolUse', gemini: 'AfterTool' };

/** Runs one hook; records (and returns) what went wrong with it. */
async function hook(agent: string, event: string, input: string, expectFailure: boolean): Promise<string[]> {
  tally.tries++;
  const r = await box.run(['hook', '--agent', agent, event], { input, timeout: 20_000 });
  const wrong: string[] = [];
  const what = `${agent} ${event} ${input.slice(0, 60)}`;
  if (r.timedOut) wrong.push(`${what}: hung`);
  else if (r.exitCode !== 0) wrong.push(`${what}: exit ${r.exitCode}`);
  if (String(r.stderr).trim()) wrong.push(`${what}: stderr ${String(r.stderr).slice(0, 120)}`);
  if (expectFailure && String(r.stdout).trim()) wrong.push(`${what}: printed on failure`);
  tally.failures.push(...wrong);
  return wrong;
}

async function hookLog(): Promise<string> {
  return readFile(path.join(box.home, 'logs', 'hooks.log'), 'utf8').catch(() => '');
}

it('hostile session ids are refused, logged, never echoed, never a folder outside', async () => {
  const token = SECRETS.find((s) => s.kind === 'GitHub')!;
  const ids = ['../../x', '/etc/wmem-x', token.value, 'a\u0000b', '.', 'x'.repeat(5000)];
  const wrong: string[] = [];
  for (const agent of ['claude', 'codex', 'gemini']) {
    for (const id of ids) wrong.push(...(await hook(agent, 'SessionStart', JSON.stringify({ session_id: id, cwd: box.project }), true)));
  }
  const log = await hookLog();
  if (log.includes(token.mark)) wrong.push('the token-shaped id is in hooks.log');
  const fired = await readdir(path.join(box.home, 'logs', 'hooks-last'));
  for (const f of fired) if ((await readFile(path.join(box.home, 'logs', 'hooks-last', f), 'utf8')).includes(token.mark)) wrong.push(`the token-shaped id is in hooks-last/${f}`);
  if (await readdir(path.join(box.root)).then((names) => names.includes('x'))) wrong.push('a folder x beside the home');
  tally.failures.push(...wrong.filter((w) => !tally.failures.includes(w)));
  expect(log.match(/error: /g)?.length).toBe(3 * ids.length);
  expect(wrong).toEqual([]);
});

it('input that is not JSON and starts with a secret is logged without it', async () => {
  const wrong: string[] = [];
  for (const secret of SECRETS.filter((s) => !s.value.startsWith('-----'))) {
    for (const agent of ['claude', 'codex', 'gemini']) wrong.push(...(await hook(agent, 'SessionStart', `${secret.value} and then some`, true)));
  }
  const log = await hookLog();
  for (const secret of SECRETS) if (log.includes(secret.value.slice(0, 8))) wrong.push(`${secret.kind}: its first bytes are in hooks.log`);
  tally.failures.push(...wrong.filter((w) => w.includes('hooks.log')));
  expect(log).toMatch(/codex-SessionStart error: hook input is not JSON/);
  expect(wrong).toEqual([]);
});

it('a transcript_path naming a FIFO, a folder or a 2 GB sparse file never hangs or breaks the hook', async () => {
  const fifo = path.join(box.root, 'fifo');
  execFileSync('mkfifo', [fifo]);
  const folder = path.join(box.root, 'folder');
  await mkdir(folder);
  const sparse = path.join(box.root, 'sparse.jsonl');
  await writeFile(sparse, '');
  await truncate(sparse, 2 * 1024 ** 3);
  const wrong: string[] = [];
  for (const [where, fails] of [[fifo, true], [folder, true], [sparse, false]] as const) {
    for (const agent of ['claude', 'codex', 'gemini']) {
      const input = { session_id: `t-${agent}`, cwd: box.project, transcript_path: where, prompt: 'hi' };
      wrong.push(...(await hook(agent, PROMPT[agent], JSON.stringify(input), fails)));
      if (agent !== 'gemini') wrong.push(...(await hook(agent, 'PreCompact', JSON.stringify({ ...input, trigger: 'auto' }), fails)));
    }
  }
  const log = await hookLog();
  expect(log).toContain(`transcript_path ${JSON.stringify(fifo)} is not a regular file`);
  expect(log).toContain(`transcript_path ${JSON.stringify(folder)} is not a regular file`);
  expect(wrong).toEqual([]);
});

it('secrets in prompts, tool inputs, outputs and errors of every agent reach no state, injected text or stdout', async () => {
  const wrong: string[] = [];
  const printed: string[] = [];
  for (const secret of SECRETS) {
    const flat = secret.value.replace(/\n/g, ' ');
    for (const agent of ['codex', 'gemini', 'claude']) {
      const base = { session_id: `s-${agent}`, cwd: box.project };
      const runs: [string, Record<string, unknown>][] = [
        [PROMPT[agent], { ...base, prompt: `deploy with ${secret.value}`, model: flat }],
        [TOOL[agent], { ...base, tool_name: agent === 'gemini' ? 'run_shell_command' : 'Bash', tool_input: { command: `curl -H "Authorization: Bearer ${flat}"` }, tool_response: agent === 'gemini' ? { llmContent: secret.value, error: `fail ${secret.value}` } : { stdout: secret.value } }],
      ];
      for (const [event, input] of runs) {
        tally.tries++;
        const r = await box.run(['hook', '--agent', agent, event], { input: JSON.stringify(input) });
        printed.push(String(r.stdout), String(r.stderr));
        if (r.exitCode !== 0) wrong.push(`${agent} ${event}: exit ${r.exitCode}`);
      }
    }
    // OpenCode's plugin: a tool call, a prompt with its messages, a compaction summary.
    const oc = { sessionID: 'ses_oc', directory: box.project };
    const ocRuns: [string, Record<string, unknown>][] = [
      ['tool.execute.after', { ...oc, tool: 'bash', callID: 'c1', args: { command: `echo ${flat}` }, output: secret.value, metadata: { output: secret.value } }],
      ['chat.message', { ...oc, model: { providerID: 'x', modelID: flat }, messages: [{ info: { id: 'm1', role: 'assistant', modelID: flat, tokens: { input: 5, output: 1 } }, parts: [{ type: 'text', text: secret.value }] }] }],
      ['session.compacted', { ...oc, summary: `we used ${secret.value}` }],
    ];
    for (const [event, input] of ocRuns) {
      tally.tries++;
      const r = await box.run(['hook', '--agent', 'opencode', event], { input: JSON.stringify({ event, ...input }) });
      printed.push(String(r.stdout), String(r.stderr));
    }
    for (const out of printed) if (out.includes(secret.mark)) wrong.push(`${secret.kind} printed`);
    for (const rel of await listTree(box.home)) {
      if (VERBATIM.test(rel)) continue;
      if ((await readFile(path.join(box.home, rel), 'utf8')).includes(secret.mark)) wrong.push(`${secret.kind} in ${rel}`);
    }
  }
  tally.failures.push(...wrong);
  // The doors were open: the hooks answered and tracked.
  expect(printed.join('\n')).toContain('working_memory');
  expect(wrong).toEqual([]);
});
