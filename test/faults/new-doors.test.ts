// The doors the agent adapters opened: `wmem hook --agent codex|gemini|opencode|claude EVENT` with
// hostile stdin. Session ids that climb out or are secrets, transcript paths naming a FIFO, a
// folder or a 2 GB sparse file, input that is not JSON and starts with a token, secrets in tool
// inputs and outputs. Each hook must exit 0 in time, print nothing when it fails, log the
// failure, write nothing outside the home, and no secret may reach a file wmem injects or keeps
// as state (the verbatim record aside), the hook log, or stdout.
import { afterAll, afterEach, beforeEach, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdir, readFile, readdir, rm, symlink, truncate, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { BIN, type Sandbox } from '../helpers/cli.js';
import { SECRETS, listTree, withSession } from './helpers.js';

const VERBATIM = /(^|\/)(archive|detail|cache|tool-outputs)\/|messages\.jsonl$|-transcript\.jsonl$|\.lock/;
const SENTINEL = 'OUTSIDE-SENTINEL-2b7e91';
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
    for (const [agent, event] of [['claude', 'SessionStart'], ['codex', 'SessionStart'], ['gemini', 'SessionStart'], ['opencode', 'chat.message']]) wrong.push(...(await hook(agent, event, `${secret.value} and then some`, true)));
  }
  const log = await hookLog();
  for (const secret of SECRETS) if (log.includes(secret.value.slice(0, 8))) wrong.push(`${secret.kind}: its first bytes are in hooks.log`);
  tally.failures.push(...wrong.filter((w) => w.includes('hooks.log')));
  expect(log).toMatch(/codex-SessionStart error: hook input is not JSON/);
  expect(wrong).toEqual([]);
});

it('a transcript_path naming a FIFO, a folder, a 2 GB sparse file or /etc/passwd never hangs, breaks the hook or is copied', async () => {
  const fifo = path.join(box.root, 'fifo.jsonl');
  execFileSync('mkfifo', [fifo]);
  const folder = path.join(box.root, 'folder.jsonl');
  await mkdir(folder);
  const sparse = path.join(box.root, 'sparse.jsonl');
  await writeFile(sparse, '');
  await truncate(sparse, 2 * 1024 ** 3);
  const wrong: string[] = [];
  for (const [where, fails] of [[fifo, true], [folder, true], [sparse, false], ['/etc/passwd', true]] as const) {
    for (const agent of ['claude', 'codex', 'gemini']) {
      const input = { session_id: `t-${agent}`, cwd: box.project, transcript_path: where, prompt: 'hi' };
      wrong.push(...(await hook(agent, PROMPT[agent], JSON.stringify(input), fails)));
      if (agent !== 'gemini') wrong.push(...(await hook(agent, 'PreCompact', JSON.stringify({ ...input, trigger: 'auto' }), fails)));
    }
  }
  const log = await hookLog();
  expect(log).toContain(`transcript_path ${JSON.stringify(fifo)} is not a regular file`);
  expect(log).toContain(`transcript_path ${JSON.stringify(folder)} is not a regular file`);
  expect(log).toContain('transcript_path "/etc/passwd" is not a .jsonl file');
  // Nothing of /etc/passwd was archived.
  for (const rel of await listTree(box.home)) if ((await readFile(path.join(box.home, rel), 'utf8')).includes('root:x:0:0')) wrong.push(`/etc/passwd copied to ${rel}`);
  tally.failures.push(...wrong.filter((w) => w.includes('/etc/passwd copied')));
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

/** An MCP client on `wmem mcp` in the sandbox's project. */
async function mcpClient(): Promise<{ client: Client; stderr: () => string; close: () => Promise<void> }> {
  let err = '';
  const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp'], cwd: box.project, env: { PATH: process.env.PATH ?? '', HOME: box.home, WMEM_HOME: box.home }, stderr: 'pipe' });
  transport.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  const client = new Client({ name: 'new-doors', version: '1' });
  await client.connect(transport);
  return { client, stderr: () => err, close: () => client.close() };
}

it('wmem mcp: hostile names, planted links, huge strings and secrets are refused as isError, nothing read outside', async () => {
  const outside = path.join(box.root, 'outside.md');
  await writeFile(outside, `${SENTINEL}\n`);
  const metaFile = JSON.parse(String((await box.run(['show', 'meta', '--json'])).stdout)).file as string;
  const wmDir = path.dirname(metaFile);
  await mkdir(path.join(wmDir, 'detail'), { recursive: true });
  await mkdir(path.join(wmDir, 'archive'), { recursive: true });
  await symlink(outside, path.join(wmDir, 'detail', 'planted.md'));
  await symlink(outside, path.join(wmDir, 'archive', 'messages-planted.jsonl'));
  const { client, stderr, close } = await mcpClient();
  const wrong: string[] = [];
  const secret = SECRETS[0].value;
  const calls: [string, Record<string, unknown>][] = [
    ['show', { file: 'detail/../../../outside.md' }],
    ['show', { file: '../outside.md' }],
    ['show', { file: outside }],
    ['show', { file: 'detail/planted.md' }],
    ['show', { file: 'archive/messages-planted.jsonl' }],
    ['show', { file: 'detail/\u0000x' }],
    ['show', { file: 'x'.repeat(100_000) }],
    ['search', { query: 'SENTINEL' }],
    ['note', { text: 'y'.repeat(2_000_000) }],
    ['note', { text: `key ${secret}` }],
    ['note', { text: 'plain', tags: [secret] }],
    ['set_section', { section: '../../etc', text: 'x' }],
    ['set_section', { section: 'context', text: secret }],
    ['remember', { type: 'reference', text: `The deploy authenticates with ${secret} always` }],
    ['forget', { id: '../../x' }],
  ];
  for (const [name, args] of calls) {
    tally.tries++;
    const r = (await client.callTool({ name, arguments: args }).catch((e: Error) => ({ isError: true, content: [{ text: `protocol error: ${e.message}` }] }))) as { isError?: boolean; content: { text?: string }[] };
    const text = r.content.map((c) => c.text ?? '').join('\n');
    if (text.includes(SENTINEL)) wrong.push(`mcp ${name} ${JSON.stringify(args).slice(0, 60)}: read outside`);
    if (text.includes(SECRETS[0].mark)) wrong.push(`mcp ${name}: echoed the secret`);
    if (/\n\s+at .+:\d+:\d+/.test(text)) wrong.push(`mcp ${name}: a stack trace`);
    if (name !== 'search' && name !== 'note' && !r.isError) wrong.push(`mcp ${name} ${JSON.stringify(args).slice(0, 60)}: not refused`);
  }
  for (const uri of ['wmem://detail/..%2F..%2Foutside.md', 'wmem://detail/planted.md', `wmem://detail/${encodeURIComponent(outside)}`, 'wmem://nothing']) {
    tally.tries++;
    const text = await client.readResource({ uri }).then((r) => JSON.stringify(r), (e: Error) => `refused: ${e.message}`);
    if (text.includes(SENTINEL)) wrong.push(`resource ${uri}: read outside`);
    if (!text.startsWith('refused')) wrong.push(`resource ${uri}: not refused`);
  }
  await close();
  if (/\n\s+at .+:\d+:\d+/.test(stderr())) wrong.push('a stack trace on stderr');
  for (const rel of await listTree(box.home)) {
    if (VERBATIM.test(rel)) continue;
    if ((await readFile(path.join(box.home, rel), 'utf8').catch(() => '')).includes(SECRETS[0].mark)) wrong.push(`the secret in ${rel}`);
  }
  tally.failures.push(...wrong);
  expect(wrong).toEqual([]);
});

it('wmem mcp: malformed JSON-RPC and a client gone mid-call leave the server up, then gone, without a trace', async () => {
  const lines = ['{not json', SECRETS[2].value, '[]', '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"show","arguments":{"file":"detail/../../x"}}}', '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"nope"}}', '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":null}', `{"jsonrpc":"2.0","id":4,"method":"${'m'.repeat(100_000)}"}`, '{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"note","arguments":{"text":"gone mid-call"}}}'];
  tally.tries += lines.length;
  const init = { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };
  const r = await box.run(['mcp'], { input: [JSON.stringify(init), '{"jsonrpc":"2.0","method":"notifications/initialized"}', ...lines].join('\n') + '\n', timeout: 20_000 });
  const wrong: string[] = [];
  if (r.timedOut) wrong.push('mcp: did not end when stdin closed');
  if (/\n\s+at .+:\d+:\d+/.test(String(r.stderr))) wrong.push(`mcp: a stack trace: ${String(r.stderr).slice(0, 200)}`);
  if (r.exitCode !== 0) wrong.push(`mcp: exit ${r.exitCode}`);
  if (String(r.stderr).includes(SECRETS[2].value.slice(0, 8))) wrong.push('mcp: a line that is not JSON echoed on stderr');
  // The client left before the answers: what it asked is done whole (the note is there) or not at all.
  const scratch = await readFile(JSON.parse(String((await box.run(['show', 'scratch', '--json'])).stdout)).file as string, 'utf8');
  if (scratch.includes('gone mid-') && !scratch.includes('gone mid-call\n')) wrong.push('mcp: a torn note');
  // Every request read is answered, the last one too, though stdin closed right after it; the
  // empty batch `[]` gets one Invalid Request answer with a null id, as JSON-RPC asks.
  const answered = String(r.stdout).split('\n').filter(Boolean).map((l) => JSON.parse(l).id);
  expect(answered.sort()).toEqual([0, 1, 2, 3, 4, 5, null]);
  if (!scratch.includes('gone mid-call\n')) wrong.push('mcp: a call answered but not done');
  tally.failures.push(...wrong);
  expect(wrong).toEqual([]);
});

it('wmem install|uninstall against hostile config files: refused with exit 2, untouched, nothing followed or echoed', async () => {
  const files: Record<string, string> = { claude: '.claude/settings.json', codex: '.codex/hooks.json', gemini: '.gemini/settings.json' };
  const outside = path.join(box.root, 'outside.json');
  const wrong: string[] = [];
  const secret = SECRETS[2];
  const check = async (what: string, args: string[], at: string, expectCode: number) => {
    tally.tries++;
    const before = await readFile(outside, 'utf8');
    const r = await box.run(args, { timeout: 20_000 });
    const out = `${r.stdout}\n${r.stderr}`;
    if (r.timedOut) wrong.push(`${what}: hung`);
    else if (expectCode !== -1 && r.exitCode !== expectCode) wrong.push(`${what}: exit ${r.exitCode} (${String(r.stderr).slice(0, 120)})`);
    if (/\n\s+at .+:\d+:\d+/.test(out)) wrong.push(`${what}: a stack trace`);
    if (out.includes(secret.mark)) wrong.push(`${what}: echoed the file's secret`);
    if ((await readFile(outside, 'utf8')) !== before) wrong.push(`${what}: wrote through the link`);
    if (expectCode === -1 && r.exitCode !== 0 && r.exitCode !== 2) wrong.push(`${what}: exit ${r.exitCode}`);
    if (expectCode === 2 && !String(r.stderr).includes(at)) wrong.push(`${what}: the error does not name ${at}`);
  };
  const targets = [...Object.entries(files).map(([agent, rel]) => [agent, rel, [] as string[]] as const), ['claude', '.mcp.json', ['--mcp']] as const];
  for (const [agent, rel, extra] of targets) {
    const at = path.join(box.project, rel);
    await mkdir(path.dirname(at), { recursive: true });
    for (const verb of ['install', 'uninstall']) {
      const args = [verb, agent, '--scope', 'project', ...extra];
      await writeFile(outside, '{"outside": true}\n');
      await rm(at, { recursive: true, force: true });
      await symlink(outside, at);
      // An uninstall with nothing to remove writes nothing and may say so (exit 0).
      await check(`${verb} ${agent} ${rel} linked outside`, args, at, verb === 'install' ? 2 : -1);
      await rm(at);
      await mkdir(at);
      await check(`${verb} ${agent} ${rel} a folder`, args, at, 2);
      await rm(at, { recursive: true });
      execFileSync('mkfifo', [at]);
      await check(`${verb} ${agent} ${rel} a FIFO`, args, at, 2);
      await rm(at);
      await writeFile(at, `${secret.value} {`);
      await check(`${verb} ${agent} ${rel} not JSON, starting with a token`, args, at, 2);
      if ((await readFile(at, 'utf8')) !== `${secret.value} {`) wrong.push(`${verb} ${agent} ${rel}: an unparseable file was changed`);
      await rm(at);
    }
    // A huge but valid file: installed (or refused) cleanly, in time.
    await writeFile(at, JSON.stringify({ padding: 'p'.repeat(50 * 1024 * 1024) }));
    await check(`install ${agent} ${rel} of 50 MB`, ['install', agent, '--scope', 'project', ...extra], at, 0);
    await rm(at);
  }
  tally.failures.push(...wrong);
  expect(wrong).toEqual([]);
});
