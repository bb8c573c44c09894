// End to end with the built CLI: the handoff a new session gets (wmem init --new, the hooks),
// `wmem init --continue [ID]`, decisions offered to workspace memory at the end moment and at
// consolidation, and sources that are broken, huge, linked or hold a secret.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { readdir, readFile, rm, stat, symlink, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { runJson, sandbox, type Sandbox } from '../helpers/cli.js';

let box: Sandbox;
beforeEach(async () => {
  box = await sandbox();
});
afterEach(async () => {
  await box.cleanup();
});

const TASK = 'Port the billing API to v2; done when contract tests pass';
const HOUR = 3_600_000;

async function ok(args: string[], env?: Record<string, string>): Promise<string> {
  const result = await box.run(args, { env });
  expect(result.exitCode, `wmem ${args.join(' ')}: ${result.stderr}`).toBe(0);
  return String(result.stdout);
}

/** A session with a task, progress, a decision, an open question and a decision note, dated `hours` back. */
async function earlierSession(hours = 14): Promise<{ id: string; path: string }> {
  const init = await runJson(box, ['init', '--new']);
  await ok(['set', 'task', TASK]);
  await ok(['append', 'progress', '- invoices endpoint ported']);
  await ok(['append', 'decisions', '- REST over gRPC because the clients are browsers']);
  await ok(['append', 'context', '- contract tests: npm run test:contract']);
  await ok(['append', 'open', '- do refunds move to v2 too?']);
  await ok(['note', '--importance', '0.9', '--tag', 'decisions', 'idempotency keys on every POST to charges']);
  await backdate(init.path, hours);
  return { id: init.id, path: init.path };
}

async function backdate(dir: string, hours: number): Promise<void> {
  const when = new Date(Date.now() - hours * HOUR);
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) await utimes(path.join(entry.parentPath, entry.name), when, when);
}

/** Every file of a folder and its bytes' hash: to show a session left byte for byte as it was. */
async function fingerprint(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    out[path.relative(dir, file)] = createHash('sha256').update(await readFile(file)).digest('hex');
  }
  return out;
}

const memory = () => ok(['context', '--part', 'memory']);
const block = (text: string) => /<previous_session>\n([\s\S]*?)\n<\/previous_session>/.exec(text)?.[1];

describe('the handoff a new session gets', { timeout: 180_000 }, () => {
  it('wmem init --new: the previous session in <previous_session>, the same bytes on every prompt even when the source changes', async () => {
    const earlier = await earlierSession();
    const next = await runJson(box, ['init', '--new']);
    expect(next.handoffFrom).toBe(earlier.id);
    const first = await memory();
    const text = block(first)!;
    expect(text).toContain(`The previous session of this project, ${earlier.id}, was last active 14 h ago.`);
    for (const part of [TASK, '- invoices endpoint ported', '- REST over gRPC', '- do refunds move to v2 too?', '- idempotency keys on every POST to charges #decisions', `${earlier.path}/working-memory/overview.md`, `wmem search --session ${earlier.id}`]) {
      expect(text).toContain(part);
    }
    expect(`<previous_session>\n${text}\n</previous_session>`.length).toBeLessThanOrEqual(1500);
    // A note typed in the earlier session afterwards, and its overview rewritten: this session's block is frozen.
    await ok(['--session', earlier.id, 'note', 'a later note in the old session']);
    await ok(['--session', earlier.id, 'set', 'task', 'something else entirely']);
    expect(await memory()).toBe(first);
  });

  it('WMEM_HANDOFF_CHARS bounds the block; 0 turns it off', async () => {
    await earlierSession();
    await runJson(box, ['init', '--new'], { env: { WMEM_HANDOFF_CHARS: '600' } });
    const small = block(await memory())!;
    expect(`<previous_session>\n${small}\n</previous_session>`.length).toBeLessThanOrEqual(600);
    expect(small).toMatch(/\[cut to fit \d+ characters: /);
    await runJson(box, ['init', '--new'], { env: { WMEM_HANDOFF_CHARS: '0' } });
    expect(await memory()).not.toContain('previous_session');
  });

  it('a bare-template session is passed over; the first session of a project has no block', async () => {
    await runJson(box, ['init', '--new']);
    await runJson(box, ['init', '--new']);
    expect(await memory()).not.toContain('previous_session');
  });

  it('the start hook freezes it for a new session; not for a resume, and not after the session compacted', async () => {
    const earlier = await earlierSession();
    const start = async (id: string, source: string) => {
      const result = await box.run(['hook', 'SessionStart'], { input: JSON.stringify({ session_id: id, cwd: box.project, hook_event_name: 'SessionStart', source }) });
      expect(result.exitCode).toBe(0);
      return String(JSON.parse(String(result.stdout)).hookSpecificOutput.additionalContext);
    };
    const fresh = await start('new-one', 'startup');
    expect(block(fresh)).toContain(earlier.id);
    // Resuming a conversation wmem never saw: it has its own history, no handoff.
    expect(await start('resumed-one', 'resume')).not.toContain('previous_session');
    // The new session's own compaction ends the handoff.
    const post = await box.run(['hook', 'PostCompact'], { input: JSON.stringify({ session_id: 'new-one', cwd: box.project, hook_event_name: 'PostCompact', trigger: 'manual', compact_summary: 'the summary' }) });
    expect(post.exitCode).toBe(0);
    expect(await ok(['--session', 'new-one', 'context', '--part', 'memory'])).not.toContain('previous_session');
  });

  it('a part recalled on a prompt before the compaction does not keep the block after it, with or without a tool call since', async () => {
    await earlierSession();
    for (const [id, toolCall] of [['no-tool', false], ['tool', true]] as const) {
      const hook = async (event: string, fields: Record<string, unknown>) => {
        const result = await box.run(['hook', event], { input: JSON.stringify({ session_id: id, cwd: box.project, hook_event_name: event, ...fields }) });
        expect(result.exitCode, `${event}: ${result.stderr}`).toBe(0);
        return String(result.stdout);
      };
      expect(await hook('SessionStart', { source: 'startup' })).toContain('previous_session');
      // A prompt records what the part was recalled by, the handoff among it.
      await hook('UserPromptSubmit', { prompt: 'go on' });
      await hook('PostCompact', { trigger: 'manual' });
      if (toolCall) await hook('PostToolUse', { tool_name: 'Bash', tool_input: { command: 'ls' }, tool_response: { stdout: 'x' } });
      expect(await ok(['--session', id, 'context', '--part', 'memory'])).not.toContain('previous_session');
    }
  });

  it('sources that are broken, huge, a link or hold a secret: skipped or redacted, the hook still answers', async () => {
    const good = await earlierSession(30);
    // A secret written straight into the overview (past the gate): redacted in the block.
    const overview = path.join(good.path, 'working-memory', 'overview.md');
    const secret = 'sk-ant-api03-' + 'Z'.repeat(40);
    await writeFile(overview, (await readFile(overview, 'utf8')).replace(TASK, `${TASK} (key ${secret})`));
    await backdate(good.path, 30);
    // Newer sessions whose overview is huge, a link out of the home, or does not parse.
    const huge = await runJson(box, ['init', '--new']);
    await writeFile(path.join(huge.path, 'working-memory', 'overview.md'), `## Current Task\n${'huge '.repeat(70_000)}\n`);
    await backdate(huge.path, 3);
    const linked = await runJson(box, ['init', '--new']);
    const outside = path.join(box.root, 'outside.md');
    await writeFile(outside, '## Current Task\nLEAKED FROM OUTSIDE THE HOME\n');
    await rm(path.join(linked.path, 'working-memory', 'overview.md'));
    await symlink(outside, path.join(linked.path, 'working-memory', 'overview.md'));
    const broken = await runJson(box, ['init', '--new']);
    await writeFile(path.join(broken.path, 'working-memory', 'overview.md'), '---\n: [unclosed\n---\n```\nnothing');
    await backdate(broken.path, 2);
    const result = await box.run(['hook', 'SessionStart'], { input: JSON.stringify({ session_id: 'after-bad-ones', cwd: box.project, hook_event_name: 'SessionStart', source: 'startup' }) });
    expect(result.exitCode).toBe(0);
    const context = String(JSON.parse(String(result.stdout)).hookSpecificOutput.additionalContext);
    const text = block(context)!;
    expect(text).toContain(good.id);
    expect(text).toContain('[redacted: an Anthropic API key]');
    expect(context).not.toContain(secret.slice(0, 24));
    expect(context).not.toContain('LEAKED');
    expect(context).not.toContain('huge huge');
    expect(await readFile(path.join(box.home, 'logs', 'hooks.log'), 'utf8').catch(() => '')).not.toMatch(/ error: /);
  });
});

describe('wmem init --continue', { timeout: 180_000 }, () => {
  it('starts a new session from the most recent one; the old session is left byte for byte', async () => {
    const earlier = await earlierSession();
    const before = await fingerprint(earlier.path);
    const next = await runJson(box, ['init', '--continue']);
    expect(next.id).not.toBe(earlier.id);
    expect(next.continuedFrom).toBe(earlier.id);
    const overview = await ok(['show', 'overview']);
    for (const part of [TASK, '- invoices endpoint ported', '- REST over gRPC', '- contract tests: npm run test:contract', '- do refunds move to v2 too?']) expect(overview).toContain(part);
    expect(overview).toMatch(new RegExp(`## Recent Actions\\n<!--.*-->\\n- \\S+ continued from session ${earlier.id} \\(its overview: .*overview\\.md`));
    // The overview carries it: no handoff block besides.
    expect(await memory()).not.toContain('previous_session');
    expect(await fingerprint(earlier.path)).toEqual(before);
  });

  it('continues a named session', async () => {
    const a = await earlierSession(30);
    await earlierSession(2);
    const next = await runJson(box, ['init', '--continue', a.id]);
    expect(next.continuedFrom).toBe(a.id);
  });

  it('an unknown id: exit 2 naming it and listing the project\'s sessions; nothing created', async () => {
    const a = await earlierSession();
    const result = await box.run(['init', '--continue', 'no-such-session']);
    expect(result.exitCode).toBe(2);
    expect(String(result.stderr)).toContain('unknown session no-such-session');
    expect(String(result.stderr)).toContain(a.id);
    expect(String(result.stdout)).toBe('');
    const sessions = await readdir(path.dirname(a.path));
    expect(sessions.filter((n) => !['project.json', 'current', 'workspace-memory.json'].includes(n) && !n.startsWith('.'))).toEqual([a.id]);
  });

  it('the continue setting does the same for a session a hook starts', async () => {
    const earlier = await earlierSession();
    const result = await box.run(['hook', 'SessionStart'], {
      input: JSON.stringify({ session_id: 'continued-by-hook', cwd: box.project, hook_event_name: 'SessionStart', source: 'startup' }),
      env: { WMEM_CONTINUE: '1' },
    });
    expect(result.exitCode).toBe(0);
    const context = String(JSON.parse(String(result.stdout)).hookSpecificOutput.additionalContext);
    expect(context).toContain(TASK);
    expect(context).toContain(`continued from session ${earlier.id}`);
    expect(context).not.toContain('previous_session');
  });
});

describe('decisions outlive the session', { timeout: 180_000 }, () => {
  it('the end moment offers them to workspace memory; wmem memories names the session', async () => {
    const earlier = await earlierSession();
    const end = await box.run(['hook', 'SessionEnd'], { input: JSON.stringify({ session_id: earlier.id, cwd: box.project, hook_event_name: 'SessionEnd', reason: 'exit' }) });
    expect(end.exitCode).toBe(0);
    const list = await runJson(box, ['memories']);
    const decisions = list.entries.filter((e: any) => e.source === 'session');
    expect(decisions.map((e: any) => [e.type, e.text, e.session, e.confidence])).toEqual(
      expect.arrayContaining([
        ['decision', 'idempotency keys on every POST to charges', earlier.id, 0.9],
        ['decision', 'REST over gRPC because the clients are browsers', earlier.id, 0.8],
      ]),
    );
    expect(decisions).toHaveLength(2);
    expect(await ok(['memories'])).toContain(`from session ${earlier.id}, confidence 0.9`);
    // Offered again at a consolidation and at a second end moment (after a resume): folded with
    // themselves, never twice, and the file is not rewritten (the session confirmed nothing new).
    const workspaceFile = path.join(path.dirname(earlier.path), 'workspace-memory.json');
    const written = await readFile(workspaceFile, 'utf8');
    await ok(['--session', earlier.id, 'consolidate']);
    const again = await box.run(['hook', 'SessionEnd'], { input: JSON.stringify({ session_id: earlier.id, cwd: box.project, hook_event_name: 'SessionEnd', reason: 'exit' }) });
    expect(again.exitCode).toBe(0);
    expect(await readFile(workspaceFile, 'utf8')).toBe(written);
    expect((await runJson(box, ['memories'])).entries.filter((e: any) => e.source === 'session')).toHaveLength(2);
    // The next session's handoff does not repeat what workspace memory already shows.
    await runJson(box, ['init', '--new']);
    const next = await memory();
    expect(next.split('idempotency keys on every POST to charges').length - 1).toBe(1);
  });

  it('an end with nothing new since the last offer does not offer again (OpenCode ends one every turn); a change is offered at the next', async () => {
    const earlier = await earlierSession();
    // Records, as the hook exits, every file it opened with openSync (how workspace memory is read).
    const probe = path.join(box.root, 'opened.cjs');
    await writeFile(probe, `const fs = require('node:fs'); const opened = []; const open = fs.openSync;
fs.openSync = function (file, ...rest) { opened.push(String(file)); return open.call(this, file, ...rest); };
process.on('exit', () => fs.writeFileSync(process.env.WMEM_TEST_OPENED, JSON.stringify(opened)));`);
    const log = path.join(box.root, 'opened.json');
    const end = async () => {
      const run = await box.run(['hook', 'SessionEnd'], { input: JSON.stringify({ session_id: earlier.id, cwd: box.project, hook_event_name: 'SessionEnd', reason: 'other' }), env: { NODE_OPTIONS: `--require ${probe}`, WMEM_TEST_OPENED: log } });
      expect(run.exitCode).toBe(0);
      return (JSON.parse(await readFile(log, 'utf8')) as string[]).some((file) => file.endsWith('workspace-memory.json'));
    };
    const sessionDecisions = async () => (await runJson(box, ['memories'])).entries.filter((e: any) => e.source === 'session').map((e: any) => e.text).sort();
    const sources = ['overview.md', 'scratch.md'].map((name) => path.join(earlier.path, 'working-memory', name));
    // The first end consolidates the note and offers; the second finds nothing new and offers once more.
    expect([await end(), await end()]).toEqual([true, true]);
    expect(await sessionDecisions()).toEqual(['REST over gRPC because the clients are browsers', 'idempotency keys on every POST to charges']);
    // Nothing changed since: workspace memory is not even read.
    expect(await end()).toBe(false);
    // A decision the agent adds to its overview is offered at the next end.
    await ok(['--session', earlier.id, 'append', 'decisions', '- invoices keep their v1 ids']);
    expect(await end()).toBe(true);
    expect(await sessionDecisions()).toContain('invoices keep their v1 ids');
    expect(await end()).toBe(false);
    // An edit of the same size with its mtime set back (cp -p, touch -d): its ctime tells.
    const overviewFile = sources[0];
    const was = await stat(overviewFile);
    await writeFile(overviewFile, (await readFile(overviewFile, 'utf8')).replace('invoices keep their v1 ids', 'invoices keep their v2 ids'));
    await utimes(overviewFile, was.atime, was.mtime);
    expect((await stat(overviewFile)).size).toBe(was.size);
    expect(await end()).toBe(true);
    // Workspace memory changed by another hand (its session entries cleared): offered again.
    const workspaceFile = path.join(path.dirname(earlier.path), 'workspace-memory.json');
    const workspace = JSON.parse(await readFile(workspaceFile, 'utf8'));
    await writeFile(workspaceFile, JSON.stringify({ ...workspace, entries: workspace.entries.filter((e: any) => e.source !== 'session') }));
    expect(await end()).toBe(true);
    expect(await sessionDecisions()).toEqual(['REST over gRPC because the clients are browsers', 'idempotency keys on every POST to charges', 'invoices keep their v2 ids']);
    // A record made under other rules (an upgrade that changed the gate) does not stand for an
    // offer: neither one an earlier wmem wrote (no rules named) nor one of another rules version.
    expect(await end()).toBe(false);
    const record = path.join(earlier.path, 'state', 'decisions-offered.json');
    const { rules, ...earlierRecord } = JSON.parse(await readFile(record, 'utf8'));
    for (const other of [earlierRecord, { ...earlierRecord, rules: `${rules}-before` }]) {
      await writeFile(record, JSON.stringify(other) + '\n');
      expect(await end()).toBe(true);
      expect(await end()).toBe(false);
    }
  });

  it('a handful per session at most, and never at the cost of an explicit entry', async () => {
    await runJson(box, ['init', '--new']);
    for (let i = 0; i < 8; i++) await ok(['append', 'decisions', `- decision number ${i} about the billing service design`]);
    const result = await runJson(box, ['consolidate']);
    expect(result.decisions.added).toBe(5);
    // A full workspace of explicit entries: nothing is evicted for a session's decision.
    await runJson(box, ['init', '--new']);
    const project = path.dirname((await runJson(box, ['status'])).path);
    const entries = Array.from({ length: 28 }, (_, i) => ({ id: `m-x${i}`, type: 'project', text: `explicit fact number ${i} about the project`, source: 'explicit', confidence: 1, created: '2026-11-01T00:00:00.000Z', updated: '2026-11-01T00:00:00.000Z' }));
    await writeFile(path.join(project, 'workspace-memory.json'), JSON.stringify({ version: 1, entries }));
    await ok(['append', 'decisions', '- a brand new decision that would need room']);
    const again = await runJson(box, ['consolidate']);
    expect(again.decisions.added).toBe(0);
    expect(again.decisions.declined[0].reason).toMatch(/only explicit entries could make room/);
    expect((await runJson(box, ['memories'])).entries.filter((e: any) => e.source === 'explicit')).toHaveLength(28);
  });
});
