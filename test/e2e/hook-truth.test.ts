// End-to-end: what the Claude Code hooks tell the agent is true — the window of the session's
// model, the usage its transcript reports (the same figure in `wmem status`), the real paths and
// the way to compact that works in Claude Code, errors kept apart, one copy of memory per
// conversation, and a Recent Actions line for each compaction.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { appendFile, mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { runJson, sandbox, type Sandbox } from '../helpers/cli.js';

let box: Sandbox;
let transcript: string;
const SID = '7d0c5a1e-1111-4222-8333-444455556666';

beforeEach(async () => {
  box = await sandbox();
  transcript = path.join(box.root, 'claude', `${SID}.jsonl`);
  await mkdir(path.dirname(transcript), { recursive: true });
  await writeFile(transcript, userLine('u1', 'Fix the failing tests'));
});
afterEach(async () => {
  await box.cleanup();
});

function userLine(uuid: string, text: string): string {
  return JSON.stringify({ type: 'user', uuid, isSidechain: false, message: { role: 'user', content: text } }) + '\n';
}
function assistantLine(id: string, model: string, usage: Record<string, number>): string {
  return JSON.stringify({ type: 'assistant', uuid: `a-${id}`, isSidechain: false, message: { id, model, role: 'assistant', content: [{ type: 'text', text: 'ok' }], usage } }) + '\n';
}
const boundaryLine = (uuid: string) =>
  JSON.stringify({ type: 'system', subtype: 'compact_boundary', uuid, parentUuid: null, content: 'Conversation compacted', compactMetadata: { trigger: 'manual', preTokens: 90000 } }) + '\n';

const payload = (event: string, extra: Record<string, unknown> = {}) => ({ session_id: SID, transcript_path: transcript, cwd: box.project, hook_event_name: event, ...extra });

async function answer(event: string, extra: Record<string, unknown> = {}, flags: string[] = [], env?: Record<string, string>): Promise<string> {
  const result = await box.run(['hook', event, ...flags], { input: JSON.stringify(payload(event, extra)), env });
  expect(result.exitCode).toBe(0);
  expect(String(result.stderr)).toBe('');
  if (!String(result.stdout)) return '';
  return JSON.parse(String(result.stdout)).hookSpecificOutput.additionalContext as string;
}

function metaOf(context: string): Record<string, unknown> {
  const at = context.indexOf('<context_meta>');
  expect(at).toBeGreaterThanOrEqual(0);
  return JSON.parse(context.slice(at).split('\n')[1]);
}

async function sessionDir(): Promise<string> {
  const [project] = await readdir(path.join(box.home, 'sessions'));
  return path.join(box.home, 'sessions', project, SID);
}

describe('the window', () => {
  it("is the model's, from SessionStart's model and then from the transcript", async () => {
    await answer('SessionStart', { source: 'startup', model: 'claude-sonnet-4-5[1m]' });
    let meta = metaOf(await answer('UserPromptSubmit', { prompt: 'go' }));
    expect(meta).toMatchObject({ tokens_max: 1_000_000, tokens_max_source: 'model', model: 'claude-sonnet-4-5[1m]' });
    await appendFile(transcript, assistantLine('m1', 'claude-haiku-4-5-20251001', { input_tokens: 10, cache_creation_input_tokens: 30000, cache_read_input_tokens: 20000, output_tokens: 5 }));
    meta = metaOf(await answer('UserPromptSubmit', { prompt: 'again' }));
    expect(meta).toMatchObject({ tokens_used: 50010, tokens_source: 'usage', tokens_max: 200_000, tokens_max_source: 'model', model: 'claude-haiku-4-5-20251001', tokens_percent: 25 });
  });

  it("starts a new session's first prompt from the usage the project's other sessions saw", async () => {
    await answer('SessionStart', { source: 'startup', model: 'claude-sonnet-4-5' });
    await appendFile(transcript, assistantLine('m1', 'claude-sonnet-4-5', { input_tokens: 10, cache_creation_input_tokens: 12000, cache_read_input_tokens: 0, output_tokens: 5 }));
    await answer('UserPromptSubmit', { prompt: 'go' });
    // A second conversation in the same project: its transcript has no usage yet.
    const other = '9e1d6b2f-2222-4333-8444-555566667777';
    const otherTranscript = path.join(box.root, 'claude', `${other}.jsonl`);
    await writeFile(otherTranscript, userLine('v1', 'Next task'));
    const input = (event: string, extra: Record<string, unknown>) => JSON.stringify({ ...payload(event, extra), session_id: other, transcript_path: otherTranscript });
    expect((await box.run(['hook', 'SessionStart'], { input: input('SessionStart', { source: 'startup', model: 'claude-sonnet-4-5' }) })).exitCode).toBe(0);
    const result = await box.run(['hook', 'UserPromptSubmit'], { input: input('UserPromptSubmit', { prompt: 'go' }) });
    expect(result.exitCode).toBe(0);
    const meta = metaOf(JSON.parse(String(result.stdout)).hookSpecificOutput.additionalContext as string);
    expect(meta.tokens_used as number).toBeGreaterThanOrEqual(12010);
  });

  it('is the user\'s when given: the hook flag that install writes, or WMEM_TOKENS_MAX', async () => {
    await answer('SessionStart', { source: 'startup', model: 'claude-sonnet-4-5' }, ['--tokens-max', '500000']);
    expect(metaOf(await answer('UserPromptSubmit', { prompt: 'go' }, ['--tokens-max', '500000']))).toMatchObject({ tokens_max: 500000, tokens_max_source: 'setting' });
    expect(metaOf(await answer('UserPromptSubmit', { prompt: 'go' }, [], { WMEM_TOKENS_MAX: '64000' }))).toMatchObject({ tokens_max: 64000, tokens_max_source: 'setting' });
  });

  it("says it is assumed when the model is unknown (Claude Code's own assumption: 1M)", async () => {
    await answer('SessionStart', { source: 'startup' });
    expect(metaOf(await answer('UserPromptSubmit', { prompt: 'go' }))).toMatchObject({ tokens_max: 1_000_000, tokens_max_source: 'default' });
    await answer('SessionStart', { source: 'resume', model: 'mystery-model-9' });
    const context = await answer('UserPromptSubmit', { prompt: 'go' });
    expect(metaOf(context)).toMatchObject({ tokens_max: 1_000_000, tokens_max_source: 'default', model: 'mystery-model-9' });
    expect(context).toContain('tokens_max is assumed (mystery-model-9 is not a model wmem knows)');
  });

  it('never shows a secret-shaped model id', async () => {
    await answer('SessionStart', { source: 'startup', model: 'ghp_0123456789abcdefghijABCDEFGHIJ012345' });
    const context = await answer('UserPromptSubmit', { prompt: 'go' });
    expect(context).not.toContain('ghp_');
    expect(metaOf(context).model).toBeUndefined();
  });
});

describe('the figure', () => {
  it('is the same in the hook, wmem context and wmem status, and says where it came from', async () => {
    await appendFile(transcript, assistantLine('m1', 'claude-opus-4-5', { input_tokens: 3, cache_creation_input_tokens: 1000, cache_read_input_tokens: 90000, output_tokens: 50 }));
    await answer('SessionStart', { source: 'startup' });
    const hookMeta = metaOf(await answer('UserPromptSubmit', { prompt: 'go' }));
    expect(hookMeta).toMatchObject({ tokens_used: 91003, tokens_source: 'usage', tokens_max: 200000 });
    // The transcript grows after the hook: status reads on from where the hook stopped.
    await appendFile(transcript, assistantLine('m2', 'claude-opus-4-5', { input_tokens: 7, cache_creation_input_tokens: 0, cache_read_input_tokens: 95000, output_tokens: 50 }));
    const status = await runJson(box, ['status']);
    expect(status).toMatchObject({ tokens_used: 95007, tokens_source: 'usage', tokens_max: 200000, tokens_max_source: 'model', agent: 'claude-code', transcript });
    const text = String((await box.run(['status'])).stdout);
    expect(text).toMatch(/tokens\s+95007 \/ 200000 \(48%\): used from usage, window from model \(claude-opus-4-5\)/);
    expect(text).toContain(`kept by claude-code in ${transcript}`);
    const context = (await runJson(box, ['context', '--part', 'meta'])).meta;
    expect(context).toMatchObject({ tokens_used: 95007, tokens_source: 'usage' });
  });

  it('is marked an estimate until the agent reports usage, and after a compaction counts what it last saw besides the conversation', async () => {
    await answer('SessionStart', { source: 'startup' });
    const first = metaOf(await answer('UserPromptSubmit', { prompt: 'go' }));
    expect(first.tokens_source).toBe('estimate');
    await appendFile(transcript, assistantLine('m1', 'claude-opus-4-1', { input_tokens: 45000, output_tokens: 10 }));
    expect(metaOf(await answer('UserPromptSubmit', { prompt: 'next' })).tokens_used).toBe(45000);
    await appendFile(transcript, boundaryLine('b1'));
    const after = await answer('UserPromptSubmit', { prompt: 'after' });
    const meta = metaOf(after);
    expect(meta.tokens_source).toBe('estimate');
    // The smallest usage seen (system prompt, tools, first prompt) plus the memory part re-sent.
    expect(meta.tokens_used as number).toBeGreaterThan(45000);
    expect(after).toContain('tokens_used is an estimate');
  });

  it("starts a new session's first prompt from what the agent sent besides the conversation in the project's last session", async () => {
    await answer('SessionStart', { source: 'startup' });
    await appendFile(transcript, assistantLine('m1', 'claude-opus-4-5', { input_tokens: 52000, output_tokens: 10 }));
    await answer('UserPromptSubmit', { prompt: 'one' });
    const other = path.join(box.root, 'claude', 'second.jsonl');
    await writeFile(other, userLine('u9', 'A new task'));
    const input = { session_id: 'second-session', transcript_path: other, cwd: box.project, hook_event_name: 'UserPromptSubmit', prompt: 'hi' };
    const result = await box.run(['hook', 'UserPromptSubmit'], { input: JSON.stringify(input) });
    const meta = metaOf(JSON.parse(String(result.stdout)).hookSpecificOutput.additionalContext);
    expect(meta.tokens_source).toBe('estimate');
    expect(meta.tokens_used as number).toBeGreaterThan(52000);
  });

  it('skips malformed usage lines', async () => {
    await appendFile(transcript, '{"type":"assistant","message":{"usage":"lots"}}\n{"type":"assistant","message":{"id":"x","usage":{"input_tokens":"9"}}}\nnot json\n');
    await answer('SessionStart', { source: 'startup' });
    expect(metaOf(await answer('UserPromptSubmit', { prompt: 'go' })).tokens_source).toBe('estimate');
  });
});

describe('the hint', () => {
  it('names the real paths and /compact in a Claude Code session', async () => {
    await answer('SessionStart', { source: 'startup' });
    const context = await answer('UserPromptSubmit', { prompt: 'go' });
    const wm = path.join(await sessionDir(), 'working-memory');
    expect(context).toContain(`Update ${path.join(wm, 'overview.md')} as you work (details: ${path.join(wm, 'detail')}/, notes: ${path.join(wm, 'scratch.md')}); compact with /compact when needed.`);
    expect(context).not.toContain("'wmem compact'");
  });

  it("names a wmem compact command line that reaches the session elsewhere, with a non-default home", async () => {
    await box.run(['init']);
    const text = String((await box.run(['context', '--part', 'meta', '--tokens-used', '170000'])).stdout);
    expect(text).toContain(`compact with 'wmem --home ${box.home} compact' when needed.`);
    expect(text).toContain(`compact now ('wmem --home ${box.home} compact')`);
  });
});

describe('open errors', () => {
  it('are keyed on the first informative line, not on Claude Code\'s "Exit code N" header', async () => {
    await answer('SessionStart', { source: 'startup' });
    const fail = (command: string, error: string) =>
      answer('PostToolUseFailure', { tool_name: 'Bash', tool_input: { command }, tool_use_id: `t-${Math.random()}`, error });
    await fail('npm test', 'Exit code 1\n\n FAIL  test/a.test.ts > adds\nAssertionError: expected 1 to be 2');
    await fail('npm test', 'Exit code 1\n\n FAIL  test/b.test.ts > subtracts\nAssertionError: expected 3 to be 4');
    await fail('npm test', 'Exit code 1\n\n FAIL  test/b.test.ts > subtracts\nAssertionError: expected 3 to be 4');
    await fail('node scripts/x.js', 'Exit code 1\nError: ENOENT: no such file, open \'config.json\'\n    at main (scripts/x.js:3:9)');
    const state = JSON.parse(await readFile(path.join(await sessionDir(), 'state', 'hot.json'), 'utf8'));
    const summaries = state.errors.map((e: { summary: string; count: number }) => [e.summary, e.count]);
    expect(summaries).toEqual(
      expect.arrayContaining([
        [expect.stringContaining('test/a.test.ts'), 1],
        [expect.stringContaining('test/b.test.ts'), 2],
        [expect.stringContaining("ENOENT: no such file, open 'config.json'"), 1],
      ]),
    );
    expect(JSON.stringify(state.errors)).not.toMatch(/"summary":"Exit code/);
  });
});

describe('one copy of memory per conversation', () => {
  it('answers a resume with a pointer while memory is unchanged, and whole after a change or a compaction', async () => {
    const full = await answer('SessionStart', { source: 'startup' });
    expect(full).toMatch(/^<working_memory>/);
    const pointer = await answer('SessionStart', { source: 'resume' });
    expect(pointer).not.toContain('<working_memory>');
    expect(pointer).toContain('unchanged since it was given earlier in this conversation');
    expect(pointer).toContain(path.join(await sessionDir(), 'working-memory', 'overview.md'));
    await box.run(['set', 'task', 'Ship the importer', '--session', SID]);
    const changed = await answer('SessionStart', { source: 'resume' });
    expect(changed).toContain('Ship the importer');
    expect(await answer('SessionStart', { source: 'resume' })).not.toContain('<working_memory>');
    await appendFile(transcript, boundaryLine('b-resume'));
    expect(await answer('SessionStart', { source: 'resume' })).toContain('Ship the importer');
  });
});

describe('compaction in Claude Code', () => {
  it('PreCompact archives, PostCompact keeps the summary and adds a Recent Actions line naming both', async () => {
    await appendFile(transcript, assistantLine('m1', 'claude-opus-4-1', { input_tokens: 100, output_tokens: 1 }));
    await answer('SessionStart', { source: 'startup' });
    await answer('PreCompact', { trigger: 'manual', custom_instructions: '' });
    await answer('PostCompact', { trigger: 'manual', compact_summary: 'The user asked to fix the failing tests; two remain.' });
    const overview = await readFile(path.join(await sessionDir(), 'working-memory', 'overview.md'), 'utf8');
    const recent = overview.slice(overview.indexOf('## Recent Actions'), overview.indexOf('## Pointers'));
    expect(recent).toMatch(/Claude Code compacted the conversation \(manual\): its summary → detail\/\S+-compact-summary\.md; the transcript before it → archive\/\S+\.jsonl/);
  });
});

describe('bad input', () => {
  it('install refuses a --tokens-max that is not a positive whole number; the hook ignores one and exits 0', async () => {
    const bad = await box.run(['install', 'claude', '--tokens-max', '0']);
    expect(bad.exitCode).toBe(2);
    expect(String(bad.stderr)).toMatch(/--tokens-max must be a whole number ≥ 1, not "0"/);
    const hook = await box.run(['hook', 'SessionStart', '--tokens-max', 'lots'], { input: JSON.stringify(payload('SessionStart', { source: 'startup' })) });
    expect(hook.exitCode).toBe(0);
    expect(String(hook.stdout)).toBe('');
  });

  it('WMEM_TOKENS_MAX that is not a window is ignored: commands say so, hooks stay silent', async () => {
    await box.run(['init']);
    const context = await box.run(['context', '--part', 'meta'], { env: { WMEM_TOKENS_MAX: 'lots' } });
    expect(context.exitCode).toBe(0);
    expect(String(context.stderr)).toContain('note: WMEM_TOKENS_MAX="lots" is not a positive whole number of tokens; ignored');
    expect(String(context.stdout)).toContain('"tokens_max_source":"default"');
    await answer('SessionStart', { source: 'startup' }, [], { WMEM_TOKENS_MAX: '-5' });
    expect(metaOf(await answer('UserPromptSubmit', { prompt: 'go' }, [], { WMEM_TOKENS_MAX: '-5' })).tokens_max_source).toBe('default');
  });

  it('install --tokens-max writes the window into every hook command; a second install changes nothing', async () => {
    const env = { CLAUDE_CONFIG_DIR: path.join(box.root, 'claude-config') };
    expect((await box.run(['install', 'claude', '--tokens-max', '400000'], { env })).exitCode).toBe(0);
    const settings = JSON.parse(await readFile(path.join(box.project, '.claude', 'settings.json'), 'utf8'));
    const commands = Object.values(settings.hooks as Record<string, { hooks: { command: string }[] }[]>).flatMap((groups) => groups.flatMap((g) => g.hooks.map((h) => h.command)));
    expect(commands.length).toBe(7);
    for (const command of commands) expect(command).toMatch(/ hook \w+ --tokens-max 400000$/);
    const again = await runJson(box, ['install', 'claude', '--tokens-max', '400000'], { env });
    expect(again.changed).toBe(false);
    const plain = await runJson(box, ['install', 'claude'], { env });
    expect(plain.changed).toBe(true);
    expect(await readFile(path.join(box.project, '.claude', 'settings.json'), 'utf8')).not.toContain('--tokens-max');
  });
});
