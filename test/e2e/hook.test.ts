// End-to-end: `wmem hook EVENT` fed the JSON Claude Code sends, against the built CLI, with real
// transcripts (copied from test/fixtures). Every failure must exit 0 with nothing on stdout
// and a line in <home>/logs/hooks.log.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { modelWindow } from '../../src/memory/model-windows.js';
import { appendFile, copyFile, mkdir, readFile, readdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { FIXTURES, runJson, sandbox, type Sandbox } from '../helpers/cli.js';

let box: Sandbox;
let transcript: string;
const SID = '4f1d2c3b-aaaa-4bbb-8ccc-0123456789ab';

beforeEach(async () => {
  box = await sandbox();
  transcript = path.join(box.root, 'claude', `${SID}.jsonl`);
  await mkdir(path.dirname(transcript), { recursive: true });
  await copyFile(path.join(FIXTURES, 'claude-code-log/ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl'), transcript);
});
afterEach(async () => {
  await box.cleanup();
});

const payload = (event: string, extra: Record<string, unknown> = {}) => ({
  session_id: SID,
  transcript_path: transcript,
  cwd: box.project,
  permission_mode: 'default',
  hook_event_name: event,
  ...extra,
});

async function hook(event: string, input: unknown, env?: Record<string, string>) {
  const result = await box.run(['hook', event], { input: typeof input === 'string' ? input : JSON.stringify(input), env });
  return { exitCode: result.exitCode, stdout: String(result.stdout), stderr: String(result.stderr) };
}

/**
 * A `--require` script for a hook's process (`body` pushes onto `recorded`), whose list is read
 * back once the hook has exited: what the hook did, not only what it left.
 */
async function recorder(name: string, body: string) {
  const script = path.join(box.root, `${name}.cjs`);
  const log = path.join(box.root, `${name}.json`);
  await writeFile(script, `const fs = require('node:fs'); const recorded = [];\n${body}\nprocess.on('exit', () => fs.writeFileSync(${JSON.stringify(log)}, JSON.stringify(recorded)));`);
  return { env: { NODE_OPTIONS: `--require ${script}` }, recorded: async () => JSON.parse(await readFile(log, 'utf8')) as string[] };
}

async function answer(event: string, extra: Record<string, unknown> = {}) {
  const result = await hook(event, payload(event, extra));
  expect(result.exitCode).toBe(0);
  expect(result.stderr).toBe('');
  const parsed = JSON.parse(result.stdout);
  expect(Object.keys(parsed)).toEqual(['hookSpecificOutput']);
  expect(parsed.hookSpecificOutput.hookEventName).toBe(event);
  const context: string = parsed.hookSpecificOutput.additionalContext;
  expect(context.length).toBeLessThanOrEqual(10_000);
  return context;
}

const logText = () => readFile(path.join(box.home, 'logs', 'hooks.log'), 'utf8').catch(() => '');
const boundaryLine = (uuid: string) =>
  JSON.stringify({ parentUuid: null, logicalParentUuid: 'x', isSidechain: false, type: 'system', subtype: 'compact_boundary', content: 'Conversation compacted', uuid, compactMetadata: { trigger: 'auto', preTokens: 150000 } }) + '\n';
const assistantLine = (id: string, tokens: number) =>
  JSON.stringify({ type: 'assistant', isSidechain: false, uuid: `a-${id}`, message: { id, model: 'claude-opus-4', role: 'assistant', content: [{ type: 'text', text: 'ok' }], usage: { input_tokens: 2, cache_read_input_tokens: tokens - 2, output_tokens: 9 } } }) + '\n';

describe('SessionStart', () => {
  it.each(['startup', 'resume', 'clear', 'compact', 'fork'])('source %s: creates the session named by session_id, makes it current, returns the memory part', async (source) => {
    const context = await answer('SessionStart', { source });
    expect(context).toMatch(/^<working_memory>\n# Working Memory/);
    expect(context).not.toContain('<context_meta>');
    const sessions = await runJson(box, ['sessions']);
    expect(JSON.stringify(sessions)).toContain(SID);
    const status = await runJson(box, ['status']);
    expect(JSON.stringify(status)).toContain(SID);
  });

  it('returns what the agent wrote, and works without a transcript yet', async () => {
    await answer('SessionStart', { source: 'startup', transcript_path: path.join(box.root, 'not-yet.jsonl') });
    await box.run(['set', 'task', 'Port the billing API to v2', '--session', SID]);
    const context = await answer('SessionStart', { source: 'resume' });
    expect(context).toContain('Port the billing API to v2');
  });
});

describe('UserPromptSubmit', () => {
  it('returns the meta part with tokens_used from the transcript (one count per message.id)', async () => {
    await answer('SessionStart', { source: 'startup' });
    const context = await answer('UserPromptSubmit', { prompt: 'continue' });
    expect(context).toMatch(/^<context_meta>\n/);
    expect(context).not.toContain('<working_memory>');
    const meta = JSON.parse(context.split('\n')[1]);
    // The fixture's responses come from claude-opus-4-7: the window is that model's.
    const window = modelWindow('claude-opus-4-7')!;
    expect(meta).toMatchObject({ tokens_used: 66603, tokens_max: window, tokens_percent: Math.round((66603 / window) * 100), tokens_source: 'usage', tokens_max_source: 'model', model: 'claude-opus-4-7', pressure: 'safe' });
  });

  it('follows the transcript as it grows', async () => {
    await answer('SessionStart', { source: 'startup' });
    await answer('UserPromptSubmit', { prompt: 'a' });
    await appendFile(transcript, assistantLine('msg_new', 160000));
    const meta = JSON.parse((await answer('UserPromptSubmit', { prompt: 'b' })).split('\n')[1]);
    expect(meta).toMatchObject({ tokens_used: 160000, tokens_percent: 80, pressure: 'moderate', action_hint: 'emergency_compression' });
  });

  it('returns the memory part too on the first hook of a session (no SessionStart seen)', async () => {
    const context = await answer('UserPromptSubmit', { prompt: 'hi' });
    expect(context).toMatch(/^<working_memory>/);
    expect(context).toContain('<context_meta>');
    const again = await answer('UserPromptSubmit', { prompt: 'hi again' });
    expect(again).toMatch(/^<context_meta>/);
  });

  it('returns the memory part once after a compaction no hook has answered', async () => {
    await answer('SessionStart', { source: 'startup' });
    await answer('UserPromptSubmit', { prompt: 'a' });
    await appendFile(transcript, boundaryLine('b-1'));
    const after = await answer('UserPromptSubmit', { prompt: 'b' });
    expect(after).toMatch(/^<working_memory>/);
    const meta = JSON.parse(after.slice(after.indexOf('<context_meta>')).split('\n')[1]);
    expect(meta.tokens_source).toBe('estimate'); // nothing reported since the boundary
    expect(await answer('UserPromptSubmit', { prompt: 'c' })).toMatch(/^<context_meta>/);
  });

  it('does not repeat the memory part when SessionStart(compact) answered the compaction', async () => {
    await answer('SessionStart', { source: 'startup' });
    await appendFile(transcript, boundaryLine('b-2'));
    await answer('SessionStart', { source: 'compact' });
    expect(await answer('UserPromptSubmit', { prompt: 'a' })).toMatch(/^<context_meta>/);
    // The boundary may reach the transcript after SessionStart(compact): still answered once.
    await answer('SessionStart', { source: 'compact' });
    await appendFile(transcript, boundaryLine('b-3') + assistantLine('msg_after', 12000));
    const context = await answer('UserPromptSubmit', { prompt: 'b' });
    expect(context).toMatch(/^<context_meta>/);
    expect(JSON.parse(context.split('\n')[1]).tokens_used).toBe(12000);
  });

  it('reads the compact_boundary fixture: usage after the boundary only', async () => {
    await copyFile(path.join(FIXTURES, 'claude-code-log-upstream/dag_compact_after_rewind.jsonl'), transcript);
    await answer('SessionStart', { source: 'compact' });
    const meta = JSON.parse((await answer('UserPromptSubmit', { prompt: 'x' })).split('\n')[1]);
    expect(meta.tokens_used).toBe(10);
  });

  it('keeps memory + meta under the 10,000-character cap on a large memory', async () => {
    await answer('SessionStart', { source: 'startup' });
    const sessionDir = path.join(box.home, 'sessions', (await readdir(path.join(box.home, 'sessions')))[0], SID);
    const notes = Array.from({ length: 600 }, (_, i) => `- [2026-11-23T08:00:00Z] (importance: 0.5) note ${i}: ${'detail '.repeat(12)}`).join('\n');
    await appendFile(path.join(sessionDir, 'working-memory', 'scratch.md'), notes + '\n');
    const meta = JSON.parse(await readFile(path.join(sessionDir, 'meta.json'), 'utf8'));
    await writeFile(path.join(sessionDir, 'meta.json'), JSON.stringify({ ...meta, tokensMax: 1_000_000 }));
    await appendFile(transcript, boundaryLine('b-big'));
    const context = await answer('UserPromptSubmit', { prompt: 'x' });
    expect(context).toContain('<working_memory>');
    expect(context).toContain('left out to fit');
    expect(context).toContain('</context_meta>');
    expect(context.length).toBeLessThanOrEqual(10_000);
  });
});

describe('compaction and session end', () => {
  it('PreCompact archives the transcript losslessly before the agent compacts', async () => {
    await answer('SessionStart', { source: 'startup' });
    const result = await hook('PreCompact', payload('PreCompact', { trigger: 'auto', custom_instructions: '' }));
    expect(result).toEqual({ exitCode: 0, stdout: '', stderr: '' });
    const sessionDir = path.join(box.home, 'sessions', (await readdir(path.join(box.home, 'sessions')))[0], SID);
    const archives = (await readdir(path.join(sessionDir, 'working-memory', 'archive'))).filter((n) => n.endsWith('.jsonl'));
    expect(archives).toHaveLength(1);
    const archived = await readFile(path.join(sessionDir, 'working-memory', 'archive', archives[0]));
    expect(archived.equals(await readFile(transcript))).toBe(true);
    const overview = await readFile(path.join(sessionDir, 'working-memory', 'overview.md'), 'utf8');
    expect(overview).toMatch(/detail\/.*transcript/);
  });

  // What must be on disk before the agent compacts is (docs/guarantees.md): the archive and its
  // readable copy, their folders, the overview that names them. Not the record of how far the
  // transcript was archived (lost in a power cut: lines archived twice), nor a scratch file.
  it.skipIf(process.platform !== 'linux')('PreCompact fsyncs the archive, its readable copy and the overview, not its bookkeeping', async () => {
    await answer('SessionStart', { source: 'startup' });
    const probe = await recorder('fsyncs', `
const named = (fd) => { try { recorded.push(fs.readlinkSync('/proc/self/fd/' + fd)); } catch { recorded.push('?'); } };
const sync = fs.fsyncSync; fs.fsyncSync = function (fd) { named(fd); return sync.call(this, fd); };
const cb = fs.fsync; fs.fsync = function (fd, ...rest) { named(fd); return cb.call(this, fd, ...rest); };`);
    const result = await hook('PreCompact', payload('PreCompact', { trigger: 'auto', custom_instructions: '' }), probe.env);
    expect(result).toEqual({ exitCode: 0, stdout: '', stderr: '' });
    const sessionDir = path.join(box.home, 'sessions', (await readdir(path.join(box.home, 'sessions')))[0], SID);
    const shape = (file: string) => path.relative(sessionDir, file).replace(/\d{8}T\d{9}Z/g, 'STAMP').replace(/\.[0-9a-f]{12}\./, '.HEX.').replace(/\.\d+\.tmp$/, '.PID.tmp');
    expect((await probe.recorded()).map(shape).sort()).toEqual([
      'working-memory',
      'working-memory/.overview.md.HEX.PID.tmp',
      'working-memory/archive',
      'working-memory/archive/.transcript-STAMP.jsonl.STAMP.PID.tmp',
      'working-memory/detail',
      'working-memory/detail/.STAMP-transcript.md.STAMPb.PID.tmp',
    ]);
  });

  it('PreCompact names the archive before its readable copy: an archive that cannot be linked leaves no copy that names it', async () => {
    await answer('SessionStart', { source: 'startup' });
    // The archive's link fails (a full or failing disk at that instant); the copy's would not.
    const probe = await recorder('links', `
const link = fs.link; fs.link = function (from, to, done) { recorded.push(String(to)); if (String(to).includes('/archive/')) return process.nextTick(done, Object.assign(new Error('EIO: i/o error, link'), { code: 'EIO' })); return link.call(this, from, to, done); };`);
    const result = await hook('PreCompact', payload('PreCompact', { trigger: 'auto', custom_instructions: '' }), probe.env);
    expect(result).toEqual({ exitCode: 0, stdout: '', stderr: '' });
    expect(await logText()).toMatch(/PreCompact .*EIO/);
    const memory = path.join(box.home, 'sessions', (await readdir(path.join(box.home, 'sessions')))[0], SID, 'working-memory');
    // The copy was never linked, and nothing of either is left behind: not even temp files.
    expect((await probe.recorded()).filter((to) => to.includes('/detail/'))).toEqual([]);
    expect(await readdir(path.join(memory, 'detail'))).toEqual([]);
    expect(await readdir(path.join(memory, 'archive'))).toEqual([]);
    // The next session end lists no readable copy of a missing archive in the overview.
    await hook('SessionEnd', payload('SessionEnd', { reason: 'other' }));
    expect(await readFile(path.join(memory, 'overview.md'), 'utf8')).not.toMatch(/detail\/\S*-transcript\.md/);
  });

  it('PreCompact follows a transcript link only to a .jsonl file: a link to a key file copies nothing', async () => {
    await answer('SessionStart', { source: 'startup' });
    const key = path.join(box.root, 'id_ed25519');
    await writeFile(key, 'PRIVATE-KEY-MATERIAL\n');
    const disguised = path.join(box.root, 'disguised.jsonl');
    await symlink(key, disguised);
    const result = await hook('PreCompact', payload('PreCompact', { trigger: 'auto', transcript_path: disguised }));
    expect(result).toEqual({ exitCode: 0, stdout: '', stderr: '' });
    expect(await logText()).toMatch(/PreCompact .*disguised\.jsonl" is a link to ".*id_ed25519", which is not a \.jsonl file/);
    const sessionDir = path.join(box.home, 'sessions', (await readdir(path.join(box.home, 'sessions')))[0], SID);
    const kept = await readdir(sessionDir, { recursive: true });
    for (const file of kept) expect(await readFile(path.join(sessionDir, String(file)), 'utf8').catch(() => '')).not.toContain('PRIVATE-KEY-MATERIAL');
    // Nor through a '..' after a linked folder (the kernel and path.resolve would read two files).
    await mkdir(path.join(box.root, 'real', 'sub'), { recursive: true });
    await symlink(path.join(box.root, 'real', 'sub'), path.join(box.root, 'lnk'));
    const dotted = `${box.root}/lnk/../disguised.jsonl`;
    expect(await hook('PreCompact', payload('PreCompact', { trigger: 'auto', transcript_path: dotted }))).toEqual({ exitCode: 0, stdout: '', stderr: '' });
    expect(await logText()).toMatch(/is not a normalized path/);
    // A link to a real transcript is followed as before.
    const linked = path.join(box.root, 'linked.jsonl');
    await symlink(transcript, linked);
    expect(await hook('PreCompact', payload('PreCompact', { trigger: 'auto', transcript_path: linked }))).toEqual({ exitCode: 0, stdout: '', stderr: '' });
    const archives = (await readdir(path.join(sessionDir, 'working-memory', 'archive'))).filter((n) => n.endsWith('.jsonl'));
    expect(archives).toHaveLength(1);
  });

  it('PostCompact keeps compact_summary in detail/, indexed in the overview', async () => {
    await answer('SessionStart', { source: 'startup' });
    const summary = 'Summary: the user asked to port billing to v2.\n1. Primary request: port the API.\n2. Files: src/billing.ts';
    expect(await hook('PostCompact', payload('PostCompact', { trigger: 'manual', compact_summary: summary }))).toEqual({ exitCode: 0, stdout: '', stderr: '' });
    const sessionDir = path.join(box.home, 'sessions', (await readdir(path.join(box.home, 'sessions')))[0], SID);
    const details = await readdir(path.join(sessionDir, 'working-memory', 'detail'));
    const file = details.find((n) => n.includes('compact-summary'))!;
    expect(await readFile(path.join(sessionDir, 'working-memory', 'detail', file), 'utf8')).toContain('port the API');
    const overview = await readFile(path.join(sessionDir, 'working-memory', 'overview.md'), 'utf8');
    expect(overview).toContain(`detail/${file}`);
    // Rendered ahead: the next prompt's hook, which the user waits on, finds the cache up to date.
    const cache = JSON.parse(await readFile(path.join(sessionDir, 'state', 'context-cache.json'), 'utf8'));
    expect(cache.overview.text).toBe(overview);
    const search = await box.run(['search', 'billing', '--session', SID]);
    if (search.exitCode === 0) expect(String(search.stdout)).toContain('compact-summary');
  });

  it('PostCompact takes the session lock once, to index the summary: none to find no handoff to drop', async () => {
    await answer('SessionStart', { source: 'startup' });
    const locks = await recorder('locks', `const mkdir = fs.mkdirSync; fs.mkdirSync = function (dir, ...rest) { if (String(dir).endsWith('.lock')) recorded.push(String(dir)); return mkdir.call(this, dir, ...rest); };`);
    const summary = 'Summary: the user asked to port billing to v2.';
    expect(await hook('PostCompact', payload('PostCompact', { trigger: 'manual', compact_summary: summary }), locks.env)).toEqual({ exitCode: 0, stdout: '', stderr: '' });
    const sessionDir = path.join(box.home, 'sessions', (await readdir(path.join(box.home, 'sessions')))[0], SID);
    expect((await locks.recorded()).filter((dir) => dir === path.join(sessionDir, '.lock'))).toHaveLength(1);
  });

  // The archive's name handed from PreCompact to PostCompact in the hook state is a change made in
  // memory alone, and PostCompact's overview edit synchronous calls alone: brief holds of
  // state/.lock and of the session lock, without an owner token's create and unlink (each a change
  // of the namespace that waits on the journal: bench/README.md, cmp19).
  it('the compaction hooks change their hook state and PostCompact its overview under brief holds: no owner token', async () => {
    await answer('SessionStart', { source: 'startup' });
    const tokens = await recorder('tokens', `const open = fs.openSync; fs.openSync = function (file, ...rest) { if (String(file).endsWith('.lock.owner')) recorded.push(require('node:path').basename(require('node:path').dirname(String(file))) + '/.lock.owner'); return open.call(this, file, ...rest); };`);
    const quiet = { exitCode: 0, stdout: '', stderr: '' };
    expect(await hook('PreCompact', payload('PreCompact', { trigger: 'auto', custom_instructions: '' }), tokens.env)).toEqual(quiet);
    expect(await tokens.recorded()).not.toContain('state/.lock.owner');
    expect(await hook('PostCompact', payload('PostCompact', { trigger: 'auto', compact_summary: 'Summary: the user is porting billing to v2.' }), tokens.env)).toEqual(quiet);
    // Its overview edit is a brief hold of the session lock too: no token at all.
    expect(await tokens.recorded()).toEqual([]);
    // The archive PreCompact made is still the one PostCompact names.
    const sessionDir = path.join(box.home, 'sessions', (await readdir(path.join(box.home, 'sessions')))[0], SID);
    const archives = (await readdir(path.join(sessionDir, 'working-memory', 'archive'))).filter((n) => n.startsWith('transcript-'));
    expect(archives).toHaveLength(1);
    expect(await readFile(path.join(sessionDir, 'working-memory', 'overview.md'), 'utf8')).toContain(`the transcript before it → archive/${archives[0]}`);
  });

  // What a compaction hook costs beyond its writes: no time zone set up for its stamps (toISOString's
  // first call reads /etc/localtime), PostCompact's folder fsyncs waited on without the thread pool
  // (its writes run one after the other), and each ends as soon as it has answered (process.exit),
  // not by a natural exit that tears its heap down: PreCompact answers from inside a folder fsync's
  // callback, whose request still counts as active there (bin/wmem.js endIfIdle).
  it('the compaction hooks stamp without a time zone, load no node:fs promise API, and end once they have answered; PostCompact starts no thread pool', async () => {
    await answer('SessionStart', { source: 'startup' });
    // fs.promises loads node:internal/fs/promises and what it needs: ~100 page faults (store/fd-handle.ts).
    const probe = await recorder('ends', `
const promises = Object.getOwnPropertyDescriptor(fs, 'promises'); Object.defineProperty(fs, 'promises', { ...promises, get() { recorded.push('fs.promises'); return promises.get.call(this); } });
const toISO = Date.prototype.toISOString; Date.prototype.toISOString = function () { recorded.push('toISOString'); return toISO.call(this); };
const cb = fs.fsync; fs.fsync = function (...args) { recorded.push('fsync in the thread pool'); return cb.apply(this, args); };
const exit = process.exit; process.exit = function (...args) { recorded.push('process.exit'); return exit.apply(this, args); };`);
    const quiet = { exitCode: 0, stdout: '', stderr: '' };
    expect(await hook('PreCompact', payload('PreCompact', { trigger: 'auto', custom_instructions: '' }), probe.env)).toEqual(quiet);
    const pre = await probe.recorded();
    expect(pre.filter((r) => r !== 'fsync in the thread pool')).toEqual(['process.exit']);
    expect(await hook('PostCompact', payload('PostCompact', { trigger: 'auto', compact_summary: 'Summary: the user is porting billing to v2.' }), probe.env)).toEqual(quiet);
    expect(await probe.recorded()).toEqual(['process.exit']);
  });

  it('PostToolUse and PostToolUseFailure keep hot session state; an interrupt opens no error', async () => {
    await answer('SessionStart', { source: 'startup' });
    const quiet = { exitCode: 0, stdout: '', stderr: '' };
    expect(await hook('PostToolUse', payload('PostToolUse', { tool_name: 'Edit', tool_input: { file_path: path.join(box.project, 'src/billing.ts'), old_string: 'a', new_string: 'b' }, tool_response: { filePath: path.join(box.project, 'src/billing.ts'), success: true }, tool_use_id: 't1' }))).toEqual(quiet);
    expect(await hook('PostToolUseFailure', payload('PostToolUseFailure', { tool_name: 'Bash', tool_input: { command: 'npx tsc --noEmit' }, tool_use_id: 't2', error: "Exit code 2\nsrc/billing.ts(12,5): error TS2304: Cannot find name 'Invoice'.", is_interrupt: false }))).toEqual(quiet);
    expect(await hook('PostToolUseFailure', payload('PostToolUseFailure', { tool_name: 'Bash', tool_input: { command: 'npm test' }, tool_use_id: 't3', error: 'Interrupted by user', is_interrupt: true }))).toEqual(quiet);
    let memory = String((await box.run(['context', '--part', 'memory', '--session', SID])).stdout);
    expect(memory).toMatch(/<session_state>[\s\S]*src\/billing\.ts[\s\S]*TS2304[\s\S]*<\/session_state>/);
    expect(memory).not.toMatch(/\[test\]/);
    // A passing run of the same command category clears the error (Claude Code fires PostToolUse only on success).
    await hook('PostToolUse', payload('PostToolUse', { tool_name: 'Bash', tool_input: { command: 'npx tsc --noEmit' }, tool_response: { stdout: '', stderr: '', interrupted: false }, tool_use_id: 't4' }));
    memory = String((await box.run(['context', '--part', 'memory', '--session', SID])).stdout);
    expect(memory).not.toContain('TS2304');
    const fired = JSON.parse(await readFile(path.join(box.home, 'logs', 'hooks-last', 'PostToolUseFailure.json'), 'utf8'));
    expect(fired).toMatchObject({ event: 'PostToolUseFailure', ok: true, session: SID });
  });

  it('tool hooks running at once lose no update', async () => {
    await answer('SessionStart', { source: 'startup' });
    const files = ['a', 'b', 'c', 'd', 'e', 'f'].map((n) => `src/${n}.ts`);
    const results = await Promise.all(
      files.map((f, i) => hook('PostToolUse', payload('PostToolUse', { tool_name: 'Edit', tool_input: { file_path: path.join(box.project, f), old_string: 'x', new_string: 'y' }, tool_response: { success: true }, tool_use_id: `c${i}` }))),
    );
    for (const r of results) expect(r).toEqual({ exitCode: 0, stdout: '', stderr: '' });
    const memory = String((await box.run(['context', '--part', 'memory', '--session', SID])).stdout);
    for (const f of files) expect(memory).toContain(`- ${f} (edit)`);
  });

  it('SessionEnd consolidates scratch notes into the overview, deterministically', async () => {
    await answer('SessionStart', { source: 'startup' });
    await box.run(['note', 'We chose pnpm over npm for the workspace', '--importance', '0.9', '--session', SID]);
    expect(await hook('SessionEnd', payload('SessionEnd', { reason: 'prompt_input_exit' }))).toEqual({ exitCode: 0, stdout: '', stderr: '' });
    const overview = String((await box.run(['show', 'overview', '--session', SID])).stdout);
    expect(overview).toContain('We chose pnpm over npm for the workspace');
    const scratch = String((await box.run(['show', 'scratch', '--session', SID])).stdout);
    expect(scratch).not.toContain('We chose pnpm');
    const fired = JSON.parse(await readFile(path.join(box.home, 'logs', 'hooks-last', 'SessionEnd.json'), 'utf8'));
    expect(fired.note).toMatch(/consolidated 1 note/);
  });
});

describe('a hook never breaks the agent', () => {
  const cases: [string, string, string | object, RegExp][] = [
    ['empty stdin', 'UserPromptSubmit', '', /empty hook input/],
    ['malformed JSON', 'UserPromptSubmit', '{"session_id": "abc", ', /not JSON/],
    ['not an object', 'SessionStart', '[]', /not a JSON object/],
    ['a session id that escapes', 'UserPromptSubmit', { session_id: '../x', cwd: '/tmp', hook_event_name: 'UserPromptSubmit', prompt: 'hi' }, /invalid session id/],
    ['an absolute session id', 'SessionStart', { session_id: '/etc/passwd', cwd: '/tmp', hook_event_name: 'SessionStart' }, /invalid session id/],
    ['an unknown event', 'Stop', { session_id: 'abc' }, /unsupported hook event/],
    ['a cwd that does not exist', 'SessionStart', { session_id: 'abc', cwd: '/no/such/folder', hook_event_name: 'SessionStart' }, /does not exist/],
  ];
  it.each(cases)('%s: exit 0, nothing on stdout, logged', async (_name, event, input, logged) => {
    const result = await hook(event, input);
    expect(result).toEqual({ exitCode: 0, stdout: '', stderr: '' });
    expect(await logText()).toMatch(logged);
    // Only events wmem answers get a last-fired record.
    expect(await readdir(path.join(box.home, 'logs', 'hooks-last')).catch(() => [])).not.toContain('Stop.json');
  });

  it('an agent with no hooks (MCP only): exit 0, and the log says it reaches wmem through wmem mcp', async () => {
    const result = await box.run(['hook', '--agent', 'amp', 'Stop'], { input: JSON.stringify({ session_id: 'abc', cwd: '/tmp', hook_event_name: 'Stop' }) });
    expect(result).toMatchObject({ exitCode: 0, stdout: '', stderr: '' });
    expect(await logText()).toMatch(/unsupported hook event "Stop" \(amp has no hooks: it reaches wmem through 'wmem mcp'\)/);
  });

  it('a session id holding a token after other characters is refused: no folder, meta.json or hooks-last record holds it', async () => {
    const token = 'ghp_R4nD0mT0k3nV4lu3F0rT3st1ngPurp0s3sXY';
    for (const event of ['SessionStart', 'UserPromptSubmit']) {
      const result = await hook(event, payload(event, { session_id: `S1${token}`, source: 'startup', prompt: 'hi' }));
      expect(result).toEqual({ exitCode: 0, stdout: '', stderr: '' });
    }
    expect(await logText()).toMatch(/invalid session id|looks like a GitHub token/);
    const files = (await readdir(box.home, { recursive: true })).map(String);
    expect(files.join('\n')).not.toContain('ghp_');
    for (const file of files) {
      const text = await readFile(path.join(box.home, file), 'utf8').catch(() => '');
      expect(text, file).not.toContain(token);
    }
  });

  it('an invalid session id in a project wmem has not seen creates nothing, not even the project record', async () => {
    const fresh = path.join(box.root, 'fresh-project');
    await mkdir(fresh);
    for (const sid of ['title-../../etc', '../x']) {
      const result = await hook('UserPromptSubmit', { session_id: sid, cwd: fresh, hook_event_name: 'UserPromptSubmit', prompt: 'hi' });
      expect(result).toEqual({ exitCode: 0, stdout: '', stderr: '' });
    }
    expect(await logText()).toMatch(/invalid session id "title-\.\.\/\.\.\/etc"/);
    const projects = await readdir(path.join(box.home, 'sessions')).catch(() => []);
    expect(projects.filter((name) => name.includes('fresh-project'))).toEqual([]);
  });

  it('a missing transcript: exit 0, nothing on stdout, logged', async () => {
    await answer('SessionStart', { source: 'startup' });
    const result = await hook('UserPromptSubmit', payload('UserPromptSubmit', { prompt: 'x', transcript_path: path.join(box.root, 'gone.jsonl') }));
    expect(result).toEqual({ exitCode: 0, stdout: '', stderr: '' });
    expect(await logText()).toMatch(/UserPromptSubmit session=.* error: transcript .*gone\.jsonl does not exist \(it was read before\)/);
    const pre = await hook('PreCompact', payload('PreCompact', { trigger: 'auto', transcript_path: path.join(box.root, 'gone.jsonl') }));
    expect(pre).toEqual({ exitCode: 0, stdout: '', stderr: '' });
    expect(await logText()).toMatch(/PreCompact .* does not exist: nothing archived/);
  });

  it('a transcript not written yet on the first prompt of a session is not a failure', async () => {
    const fresh = payload('UserPromptSubmit', { prompt: 'first', transcript_path: path.join(box.root, 'projects', 'new', `${SID}.jsonl`) });
    const result = await hook('UserPromptSubmit', fresh);
    expect(result.exitCode).toBe(0);
    const context = JSON.parse(result.stdout).hookSpecificOutput.additionalContext as string;
    expect(context).toContain('<working_memory>');
    expect(JSON.parse(context.slice(context.indexOf('<context_meta>')).split('\n')[1]).tokens_source).toBe('estimate');
    expect(await logText()).toBe('');
  });

  it('a failure (the transcript is a folder, or not a .jsonl file): exit 0, nothing on stdout, logged', async () => {
    const folder = path.join(box.root, 'folder.jsonl');
    await mkdir(folder);
    const result = await hook('UserPromptSubmit', payload('UserPromptSubmit', { prompt: 'x', transcript_path: folder }));
    expect(result).toEqual({ exitCode: 0, stdout: '', stderr: '' });
    expect(await logText()).toMatch(/UserPromptSubmit .*error: transcript_path ".*folder\.jsonl" is not a regular file/);
    expect(await hook('UserPromptSubmit', payload('UserPromptSubmit', { prompt: 'x', transcript_path: box.root }))).toEqual({ exitCode: 0, stdout: '', stderr: '' });
    expect(await logText()).toMatch(/UserPromptSubmit .*error: transcript_path ".*" is not a \.jsonl file/);
    const fired = JSON.parse(await readFile(path.join(box.home, 'logs', 'hooks-last', 'UserPromptSubmit.json'), 'utf8'));
    expect(fired.ok).toBe(false);
  });

  it('no event and unknown flags: exit 0, nothing on stdout', async () => {
    for (const args of [['hook'], ['hook', 'SessionStart', '--bogus'], ['hook', 'SessionStart', 'extra']]) {
      const result = await box.run(args, { input: JSON.stringify(payload('SessionStart')) });
      expect(result.exitCode, args.join(' ')).toBe(0);
      expect(String(result.stdout)).toBe('');
    }
  });

  it('--agent names the adapter by id or alias; an unknown agent is logged with the known ones, silently', async () => {
    for (const agent of ['claude', 'claude-code', 'CLAUDE']) {
      const result = await box.run(['hook', '--agent', agent, 'SessionStart'], { input: JSON.stringify(payload('SessionStart', { source: 'startup' })) });
      expect(result.exitCode, agent).toBe(0);
      expect(JSON.parse(String(result.stdout)).hookSpecificOutput.additionalContext, agent).toContain('<working_memory');
    }
    const unknown = await box.run(['hook', '--agent', 'cursor', 'SessionStart'], { input: JSON.stringify(payload('SessionStart')) });
    expect(unknown.exitCode).toBe(0);
    expect(String(unknown.stdout)).toBe('');
    expect(String(unknown.stderr)).toBe('');
    expect(await readFile(path.join(box.home, 'logs', 'hooks.log'), 'utf8')).toMatch(/unknown agent "cursor" \(wmem knows claude \(claude-code\)/);
  });

  it('the log is private', async () => {
    await hook('UserPromptSubmit', '');
    const { stat } = await import('node:fs/promises');
    expect((await stat(path.join(box.home, 'logs', 'hooks.log'))).mode & 0o777).toBe(0o600);
  });
});
