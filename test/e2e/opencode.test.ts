// The built wmem as OpenCode's plugin runs it: `wmem install opencode` / `uninstall opencode`, and
// `wmem hook --agent opencode EVENT` fed what OpenCode 1.18.33 gave the plugin in a real run
// (test/fixtures/opencode). The real client itself runs in test/agents/opencode.test.ts.
import { existsSync } from 'node:fs';
import { appendFile, mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ROOT, runJson, sandbox, type Sandbox } from '../helpers/cli.js';

const FIXTURES = path.join(ROOT, 'test', 'fixtures', 'opencode');
const SID = 'ses_dee354f7effenNQjrymbAZ7BCT';
let box: Sandbox;
let messages: any[];

beforeEach(async () => {
  box = await sandbox();
  messages = JSON.parse(await readFile(path.join(FIXTURES, 'messages-before-compaction.json'), 'utf8'));
});
afterEach(() => box.cleanup());

const plugin = () => path.join(box.project, '.opencode', 'plugin', 'wmem.ts');
const model = { providerID: 'mock', modelID: 'm1', limit: { context: 4000, output: 500 } };
const hook = (event: string, input: Record<string, unknown>, env?: Record<string, string>) => box.run(['hook', '--agent', 'opencode', event], { input: JSON.stringify({ event, sessionID: SID, directory: box.project, model, ...input }), env });

describe('wmem install opencode', () => {
  it("writes .opencode/plugin/wmem.ts marked as wmem's, idempotently; uninstall removes it", async () => {
    const first = await box.run(['install', 'opencode']);
    expect(first.exitCode).toBe(0);
    expect(String(first.stderr)).toMatch(/installed wmem's hooks in .*\.opencode\/plugin\/wmem\.ts: plugin/);
    const text = await readFile(plugin(), 'utf8');
    expect(text.startsWith('// wmem:opencode-plugin')).toBe(true);
    expect(text).toMatch(/^const WMEM = ".*wmem\.js.*";$/m);
    expect(String((await box.run(['install', 'opencode'])).stderr)).toMatch(/already installed/);
    expect(await readFile(plugin(), 'utf8')).toBe(text);
    const doctor = await box.run(['doctor']);
    expect(String(doctor.stdout)).toMatch(/OpenCode/);
    const removed = await box.run(['uninstall', 'opencode']);
    expect(removed.exitCode).toBe(0);
    expect(String(removed.stderr)).toMatch(/removed wmem's plugin/);
    expect(existsSync(plugin())).toBe(false);
  });

  it("refuses to overwrite a user's own wmem.ts (exit 2, untouched) and uninstall leaves it; --dry-run writes nothing", async () => {
    await mkdir(path.dirname(plugin()), { recursive: true });
    await writeFile(plugin(), 'export const Mine = async () => ({});\n');
    const refused = await box.run(['install', 'opencode']);
    expect(refused.exitCode).toBe(2);
    expect(String(refused.stderr).trim().split('\n')[0]).toMatch(/wmem\.ts is not wmem's plugin/);
    const kept = await box.run(['uninstall', 'opencode']);
    expect(kept.exitCode).toBe(0);
    expect(await readFile(plugin(), 'utf8')).toBe('export const Mine = async () => ({});\n');
    const dry = await box.run(['install', 'opencode', '--scope', 'user', '--dry-run'], { env: { XDG_CONFIG_HOME: path.join(box.root, 'xdg') } });
    expect(dry.exitCode).toBe(0);
    expect(String(dry.stdout).startsWith('// wmem:opencode-plugin')).toBe(true);
    expect(existsSync(path.join(box.root, 'xdg'))).toBe(false);
  });
});

describe('wmem hook --agent opencode', () => {
  it('answers the memory part for the system prompt with the same bytes while memory is unchanged, and the meter from the usage passed', async () => {
    const a = await hook('system.transform', {});
    const b = await hook('system.transform', {});
    expect(a.exitCode).toBe(0);
    const memory = JSON.parse(String(a.stdout)).context;
    expect(memory).toContain('<working_memory>');
    expect(JSON.parse(String(b.stdout)).context).toBe(memory);
    const prompt = await hook('chat.message', { messages: messages.map((m) => ({ info: m.info })) });
    const meta = JSON.parse(String(prompt.stdout)).context;
    expect(meta).not.toContain('<working_memory>');
    expect(JSON.parse(meta.match(/<context_meta>\n(.*)\n/)[1])).toMatchObject({ tokens_used: 3730, tokens_max: 4000, tokens_source: 'usage' });
    // On idle the usage is kept for `wmem status`.
    await hook('session.idle', { messages: messages.map((m) => ({ info: m.info })) });
    const status = await runJson(box, ['status', '--session', SID]);
    expect(status).toMatchObject({ tokens_used: 3730, tokens_max: 4000 });
  });

  it('tracks bash calls; a failing test run (exit code from the metadata) becomes an open error', async () => {
    const raw = JSON.parse(await readFile(path.join(FIXTURES, 'tool-execute-after-failed.json'), 'utf8'));
    const result = await hook('tool.execute.after', { tool: { ...raw.input, ...raw.output } });
    expect(result.exitCode).toBe(0);
    expect(String(result.stdout)).toBe('');
    const failing = 'FAIL src/a.test.ts\nAssertionError: expected 1 to be 2\n';
    const tool = { ...raw.input, args: { command: 'npm test' }, output: failing, metadata: { output: failing, exit: 1 } };
    expect((await hook('tool.execute.after', { tool })).exitCode).toBe(0);
    const status = await runJson(box, ['status', '--session', SID]);
    const hot = JSON.parse(await readFile(path.join(status.path, 'state', 'hot.json'), 'utf8'));
    expect(hot.seq).toBe(2);
    expect(hot.errors).toEqual([expect.objectContaining({ category: 'test', summary: 'FAIL src/a.test.ts', command: 'npm test' })]);
  });

  it('archives the messages before a compaction, each once, and keeps the summary after it, without node:fs\'s promise API', async () => {
    expect((await hook('session.compacting', { messages: messages.slice(0, 3) })).exitCode).toBe(0);
    // Loading fs.promises costs the hook ~100 page faults (store/fd-handle.ts): the mirror's append and the archive do without.
    const probe = path.join(box.root, 'promises.cjs');
    const seen = path.join(box.root, 'promises.json');
    await writeFile(probe, `const fs = require('node:fs'); const d = Object.getOwnPropertyDescriptor(fs, 'promises'); let used = false;\nObject.defineProperty(fs, 'promises', { ...d, get() { used = true; return d.get.call(this); } });\nprocess.on('exit', () => fs.writeFileSync(${JSON.stringify(seen)}, JSON.stringify(used)));`);
    expect((await hook('session.compacting', { messages }, { NODE_OPTIONS: `--require ${probe}` })).exitCode).toBe(0);
    expect(JSON.parse(await readFile(seen, 'utf8'))).toBe(false);
    const summary = { info: { id: 'msg_zz_summary', role: 'assistant', summary: true, tokens: { total: 100, input: 90, output: 10 } }, parts: [{ type: 'text', text: 'Summary: listed a missing folder.' }] };
    expect((await hook('session.compacted', { messages: [...messages, summary] })).exitCode).toBe(0);
    const status = await runJson(box, ['status', '--session', SID]);
    const wm = path.join(status.path, 'working-memory');
    const archives = (await readdir(path.join(wm, 'archive'))).filter((n) => n.endsWith('.jsonl')).sort();
    expect(archives).toHaveLength(2);
    const lines = (await Promise.all(archives.map((n) => readFile(path.join(wm, 'archive', n), 'utf8')))).join('').trim().split('\n');
    // Every message, whole and once, in order.
    expect(lines.map((l) => JSON.parse(l))).toEqual(messages);
    const overview = await readFile(path.join(wm, 'overview.md'), 'utf8');
    expect(overview).toMatch(/OpenCode compacted the conversation \(auto\): its summary → detail\/.*compact-summary/);
    const log = await readFile(path.join(box.home, 'logs', 'hooks.log'), 'utf8').catch(() => '');
    expect(log).not.toMatch(/ error: /);
  });

  // The mirror and the archive under one hold of the session lock (was two), the mirror's append
  // fsynced beside the archive's files, before the record of how far it was archived names its
  // bytes: a power cut never leaves a record past what the mirror kept (bench/README.md, cmp19).
  /** A --require probe that records the session locks taken, the fsyncs and the renames, in order. */
  async function orderProbe(): Promise<{ env: Record<string, string>; recorded: () => Promise<string[]> }> {
    const probe = path.join(box.root, 'order.cjs');
    const seen = path.join(box.root, 'order.json');
    await rm(seen, { force: true });
    await writeFile(
      probe,
      `const fs = require('node:fs'); const path = require('node:path'); const recorded = [];
const named = (fd) => { try { return path.basename(fs.readlinkSync('/proc/self/fd/' + fd)); } catch { return '?'; } };
const mkdir = fs.mkdirSync; fs.mkdirSync = function (dir, ...rest) { if (String(dir).endsWith('.lock')) recorded.push('lock ' + path.basename(path.dirname(String(dir)))); return mkdir.call(this, dir, ...rest); };
const fsync = fs.fsync; fs.fsync = function (fd, ...rest) { recorded.push('fsync ' + named(fd)); return fsync.call(this, fd, ...rest); };
const fsyncSync = fs.fsyncSync; fs.fsyncSync = function (fd) { recorded.push('fsync ' + named(fd)); return fsyncSync.call(this, fd); };
const rename = fs.renameSync; fs.renameSync = function (from, to) { recorded.push('rename ' + path.basename(String(to))); return rename.call(this, from, to); };
const renameCb = fs.rename; fs.rename = function (from, to, ...rest) { recorded.push('rename ' + path.basename(String(to))); return renameCb.call(this, from, to, ...rest); };
process.on('exit', () => fs.writeFileSync(${JSON.stringify(seen)}, JSON.stringify(recorded)));`,
    );
    return { env: { NODE_OPTIONS: `--require ${probe}` }, recorded: async () => JSON.parse(await readFile(seen, 'utf8')) };
  }

  /** Every message archived whole and once, in order. */
  async function expectArchived(): Promise<void> {
    const status = await runJson(box, ['status', '--session', SID]);
    const archive = path.join(status.path, 'working-memory', 'archive');
    const names = (await readdir(archive)).filter((n) => n.endsWith('.jsonl')).sort();
    const lines = (await Promise.all(names.map((n) => readFile(path.join(archive, n), 'utf8')))).join('').trim().split('\n');
    expect(lines.map((l) => JSON.parse(l))).toEqual(messages);
  }

  it('session.compacting mirrors and archives under one hold of the session lock, the mirror fsynced before the record', async () => {
    expect((await hook('session.compacting', { messages: messages.slice(0, 3) })).exitCode).toBe(0);
    const probe = await orderProbe();
    expect((await hook('session.compacting', { messages }, probe.env)).exitCode).toBe(0);
    const recorded = await probe.recorded();
    expect(recorded.filter((r) => r === `lock ${SID}`)).toHaveLength(1);
    const mirrorSynced = recorded.indexOf('fsync opencode-transcript.jsonl');
    expect(mirrorSynced).toBeGreaterThanOrEqual(0);
    expect(mirrorSynced).toBeLessThan(recorded.indexOf('rename transcripts.json'));
    await expectArchived();
  });

  it('a mirror appended by a hook killed before its fsync is fsynced by the next compaction, though it brings no new message', async () => {
    expect((await hook('session.compacting', { messages: messages.slice(0, 3) })).exitCode).toBe(0);
    const status = await runJson(box, ['status', '--session', SID]);
    const mirror = path.join(status.path, 'state', 'opencode-transcript.jsonl');
    // What the killed hook left: the other messages appended, never fsynced, never archived.
    await appendFile(mirror, messages.slice(3).map((m) => JSON.stringify(m) + '\n').join(''));
    const probe = await orderProbe();
    expect((await hook('session.compacting', { messages }, probe.env)).exitCode).toBe(0);
    const recorded = await probe.recorded();
    const mirrorSynced = recorded.indexOf('fsync opencode-transcript.jsonl');
    expect(mirrorSynced).toBeGreaterThanOrEqual(0);
    expect(mirrorSynced).toBeLessThan(recorded.indexOf('rename transcripts.json'));
    await expectArchived();
  });

  it('a session.deleted for a session wmem never saw makes no folder and says so; a known one is consolidated', async () => {
    const other = 'ses_0000000000000NeverSeenByWmem';
    const result = await box.run(['hook', '--agent', 'opencode', 'session.deleted'], { input: JSON.stringify({ event: 'session.deleted', sessionID: other, directory: box.project }) });
    expect(result.exitCode).toBe(0);
    expect(String(result.stdout)).toBe('');
    const sessions = path.join(box.home, 'sessions');
    const folders = existsSync(sessions) ? (await readdir(sessions, { recursive: true })).map(String) : [];
    expect(folders.filter((f) => f.includes(other))).toEqual([]);
    const fired = JSON.parse(await readFile(path.join(box.home, 'logs', 'hooks-last', 'opencode-session.deleted.json'), 'utf8'));
    expect(fired).toMatchObject({ ok: true, note: expect.stringMatching(/never seen by wmem: nothing to do/) });
    // A session wmem knows is still ended as before (its folder kept, consolidated).
    expect((await hook('chat.message', { messages })).exitCode).toBe(0);
    expect((await hook('session.deleted', {})).exitCode).toBe(0);
    const known = JSON.parse(await readFile(path.join(box.home, 'logs', 'hooks-last', 'opencode-session.deleted.json'), 'utf8'));
    expect(known.ok).toBe(true);
    expect(known.note).not.toMatch(/never seen/);
    expect(known.note).toMatch(/reason deleted/);
    expect((await readdir(sessions, { recursive: true })).map(String).some((f) => f.endsWith(path.join(SID, 'working-memory', 'overview.md')))).toBe(true);
  });

  it('a malformed input is logged, never shown, exit 0', async () => {
    const result = await box.run(['hook', '--agent', 'opencode', 'chat.message'], { input: '{"sessionID": 7}' });
    expect(result.exitCode).toBe(0);
    expect(String(result.stdout)).toBe('');
    expect(await readFile(path.join(box.home, 'logs', 'hooks.log'), 'utf8')).toMatch(/sessionID is not a string/);
  });
});
