// End-to-end: values that used to be accepted as they came (issue: hold every promise under
// attack) are refused with the value at fault, and never echoed when they look like a secret;
// control and bidirectional characters never act inside injected text.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdir, readdir, readFile, rm, symlink, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ROOT, runJson, sandbox, type Sandbox } from '../helpers/cli.js';

let box: Sandbox;
beforeEach(async () => {
  box = await sandbox();
  await box.run(['init']);
});
afterEach(async () => {
  await box.cleanup();
});

const TOKEN = 'ghp_' + 'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8';

async function scratch(): Promise<string> {
  const status = await runJson(box, ['status']);
  return readFile(path.join(status.path, 'working-memory', 'scratch.md'), 'utf8');
}

describe('wmem note', () => {
  it.each([
    [['--tag', '1abc'], /invalid --tag "1abc"/],
    [['--tag', 'a b'], /invalid --tag "a b"/],
    [['--importance', '0x1'], /--importance must be a number from 0 to 1 such as 0.8, not "0x1"/],
    [['--importance', '1e0'], /not "1e0"/],
    [['--importance', 'Infinity'], /not "Infinity"/],
    [['--importance', '1.5'], /not "1.5"/],
  ])('refuses %j', async (flags, message) => {
    const before = await scratch();
    const result = await box.run(['note', 'a perfectly fine note', ...flags]);
    expect(result.exitCode).toBe(2);
    expect(String(result.stderr)).toMatch(message);
    expect(await scratch()).toBe(before);
  });

  it('takes plain decimals and letter-led tags', async () => {
    for (const [importance, tag] of [['0.8', 'decisions'], ['1', '#open'], ['.5', 'zh-笔记'], ['0', 'x_1']]) {
      expect((await box.run(['note', 'fine', '--importance', importance, '--tag', tag])).exitCode).toBe(0);
    }
  });

  it('refuses a secret in a tag without echoing it', async () => {
    const result = await box.run(['note', 'deploy key rotated', '--tag', TOKEN]);
    expect(result.exitCode).toBe(2);
    expect(String(result.stderr)).toContain('looks like a GitHub token');
    expect(String(result.stderr) + String(result.stdout)).not.toContain(TOKEN);
    expect(await scratch()).not.toContain(TOKEN);
  });

  // Notes and sections are the session's own working notes: work on LLM products quotes prompts
  // and attacks all the time, so the injection rule (remember's, the team file's) is not theirs.
  it.each([
    [['note'], 'Shipped the new system prompt for the summarizer; eval score went from 71 to 78'],
    [['note'], "Red-team eval: prompts like 'ignore previous instructions' must be caught by the filter"],
    [['note', '-'], 'The parser drops the </assistant> closing tag.\nFix in src/parse.ts'],
    [['set', 'task'], 'Move to the updated system prompt in prompts/v2.md'],
    [['append', 'decisions'], '- Chat UI reducer must ignore previous messages once a new thread starts'],
  ])('%j takes a note about prompts and attacks', async (command, text) => {
    const stdin = command[1] === '-';
    const result = await box.run(stdin ? command : [...command, text], stdin ? { input: text } : {});
    expect(result.exitCode, String(result.stderr)).toBe(0);
  });

  it('takes a note that only speaks of an injection', async () => {
    expect((await box.run(['note', 'The README of the left-pad dependency holds a prompt-injection attempt; do not trust it'])).exitCode).toBe(0);
    // Work on an LLM product names these things: a topic is not an order to the model.
    expect((await box.run(['note', 'Added jailbreak test cases to the eval suite; DAN mode prompts are in evals/dan.txt'])).exitCode).toBe(0);
  });

  it('refuses a NUL byte, as docs/usage.md says (it is not stored escaped)', async () => {
    const result = await box.run(['note', '-'], { input: 'before\u0000after' });
    expect(result.exitCode).toBe(2);
    expect(String(result.stderr)).toContain('the note holds a NUL byte');
    expect(await scratch()).not.toContain('before');
    const usage = (await readFile(path.join(ROOT, 'docs', 'usage.md'), 'utf8')).replace(/\s+/g, ' ');
    expect(usage).toContain('A note holding a NUL byte is refused (exit 2, "the note holds a NUL byte", nothing written)');
    expect(usage).not.toMatch(/NUL[^.]*stored/);
  });
});

describe('session ids', () => {
  it('refuses one that is itself a token, and does not echo it', async () => {
    for (const args of [['init', '--session', TOKEN], ['status', '--session', TOKEN]]) {
      const result = await box.run(args);
      expect(result.exitCode).toBe(2);
      expect(String(result.stderr)).toContain('looks like a GitHub token');
      expect(String(result.stderr) + String(result.stdout)).not.toContain(TOKEN);
    }
    const env = await box.run(['status'], { env: { WMEM_SESSION: TOKEN } });
    expect(env.exitCode).toBe(2);
    expect(String(env.stderr)).not.toContain(TOKEN);
  });
});

describe('injected text', () => {
  it('shows control and bidirectional characters instead of letting them act', async () => {
    expect((await box.run(['note', 'pay \u202Eevil\u202C now \u0007 bell'])).exitCode).toBe(0);
    expect((await box.run(['set', 'task', 'ship \u2066it\u2069 today'])).exitCode).toBe(0);
    const text = String((await box.run(['context', '--part', 'memory'])).stdout);
    // (scratch.md itself stores the bell escaped, as \u{7}: one note, one line.)
    expect(text).toContain('pay [U+202E]evil[U+202C] now \\u{7} bell');
    expect(text).toContain('ship [U+2066]it[U+2069] today');
    expect(text).not.toMatch(/[\u0007\u202A-\u202E\u2066-\u2069]/);
  });
});

describe('links out of the home', () => {
  it('init refuses a session folder that is a link to elsewhere, and writes nothing there', async () => {
    const outside = path.join(box.root, 'outside');
    await mkdir(outside);
    const [project] = await readdir(path.join(box.home, 'sessions'));
    await symlink(outside, path.join(box.home, 'sessions', project, 'linked'));
    const result = await box.run(['init', '--session', 'linked']);
    expect(result.exitCode).toBe(2);
    expect(String(result.stderr)).toMatch(/leads outside .*through a symbolic link/);
    expect(await readdir(outside)).toEqual([]);
  });

  it('sweep deletes nothing through a cache/ that is a link to elsewhere, and reports it', async () => {
    const outside = path.join(box.root, 'outside-cache');
    await mkdir(path.join(outside, 'tool-outputs'), { recursive: true });
    const victim = path.join(outside, 'tool-outputs', 'precious.txt');
    await writeFile(victim, 'keep me');
    await utimes(victim, new Date('2020-01-01'), new Date('2020-01-01'));
    const [project] = await readdir(path.join(box.home, 'sessions'));
    await symlink(outside, path.join(box.home, 'sessions', project, 'cache'));
    const result = await box.run(['sweep', '--ttl', '1d', '--json']);
    expect(await readFile(victim, 'utf8')).toBe('keep me');
    expect(result.exitCode).toBe(1);
    expect(JSON.parse(String(result.stdout)).errors[0].message).toMatch(/leads outside .* symbolic link; skipped/);
  });

  it('a `current` pointer that is a link is refused naming it, never read where it leads (nor echoed)', async () => {
    const outside = path.join(box.root, 'passwd');
    await writeFile(outside, 'root-canary:x:0:0:root:/root:/bin/bash\n');
    const [project] = await readdir(path.join(box.home, 'sessions'));
    const current = path.join(box.home, 'sessions', project, 'current');
    await rm(current);
    await symlink(outside, current);
    for (const args of [['context'], ['note', 'through the link'], ['search', 'anything']]) {
      const result = await box.run(args);
      expect(result.exitCode, args[0]).toBe(1);
      expect(String(result.stderr)).toContain(`cannot read ${current}: it is a symbolic link`);
      expect(String(result.stdout) + String(result.stderr)).not.toContain('root-canary');
    }
    // sweep (a cron job logs its report): the link reported and left, its target neither echoed nor touched.
    for (const args of [['sweep', '--dry-run', '--json'], ['sweep', '--json']]) {
      const result = await box.run(args);
      expect(result.exitCode, args.join(' ')).toBe(1);
      expect(String(result.stdout) + String(result.stderr)).not.toContain('root-canary');
      expect(JSON.parse(String(result.stdout)).errors).toEqual([{ path: current, message: expect.stringMatching(/symbolic link; skipped/) }]);
    }
    expect(await readFile(outside, 'utf8')).toBe('root-canary:x:0:0:root:/root:/bin/bash\n');
  });

  it('search never reads a link planted in detail/ that leads out', async () => {
    const secretFile = path.join(box.root, 'elsewhere.md');
    await writeFile(secretFile, 'zebra-canary outside the home\n');
    const status = await runJson(box, ['status']);
    await symlink(secretFile, path.join(status.path, 'working-memory', 'detail', 'planted.md'));
    const result = await box.run(['search', 'zebra-canary']);
    expect(String(result.stdout)).not.toContain('outside the home');
  });
});

describe('clear errors instead of stack traces', () => {
  it('a hook whose transcript_path holds a NUL byte, is longer than any path (in bytes) or has a name too long: exit 0, silent, one plain log line', async () => {
    const log = path.join(box.home, 'logs', 'hooks.log');
    for (const [transcript, says] of [[path.join(box.root, 't\u0000.jsonl'), 'holds a NUL byte'], ['/' + 'a'.repeat(100_000) + '.jsonl', 'longer than any path'], ['/' + '日本語'.repeat(500) + '.jsonl', 'longer than any path'], [path.join(box.root, 'a'.repeat(300) + '.jsonl'), 'longer than the file system takes']]) {
      for (const event of ['UserPromptSubmit', 'PreCompact']) {
        const input = JSON.stringify({ session_id: 'guards-nul-1a2b3c4d', transcript_path: transcript, cwd: box.project, hook_event_name: event, prompt: 'hi' });
        const result = await box.run(['hook', event], { input });
        expect(result.exitCode).toBe(0);
        expect(String(result.stdout) + String(result.stderr)).toBe('');
        const last = (await readFile(log, 'utf8')).trim().split('\n').pop()!;
        expect(last).toContain(`${event} session=guards-nul-1a2b3c4d error: transcript_path`);
        expect(last).toContain(says);
        expect(last).not.toMatch(/\bat \S+ \(/);
      }
    }
  });

  it('a name too long for the file system, in show and restore', async () => {
    const long = 'a'.repeat(300);
    for (const args of [['show', `detail/${long}`], ['restore', `archive/${long}.jsonl`]]) {
      const result = await box.run(args);
      expect(result.exitCode).toBe(2);
      expect(String(result.stderr)).toMatch(/too long for the file system/);
      expect(String(result.stderr)).not.toMatch(/internal error|ENAMETOOLONG|\n\s+at /);
    }
  });

  it('--archive-to with a newline, and --event that is no hook event', async () => {
    const status = await runJson(box, ['status']);
    await writeFile(path.join(status.path, 'messages.jsonl'), '{"role":"user","content":"a"}\n{"role":"assistant","content":"b"}\n'.repeat(8));
    const archive = await box.run(['compact', '--keep-recent', '1', '--archive-to', 'archive/x\nevil.jsonl']);
    expect(archive.exitCode).toBe(2);
    expect(String(archive.stderr)).toContain('invalid --archive-to: "archive/x\\nevil.jsonl"');
    const event = await box.run(['context', '--format', 'claude', '--event', 'Bogus']);
    expect(event.exitCode).toBe(2);
    expect(String(event.stderr)).toMatch(/'Bogus' is invalid\. Allowed choices are SessionStart, UserPromptSubmit, PostToolUse/);
  });
});

describe('secrets from the history', () => {
  it('the built-in compaction summary brings no key into overview.md or its summary file', async () => {
    const key = 'sk-ant-api03-' + 'Zx9'.repeat(12);
    const status = await runJson(box, ['status']);
    const turn = (i: number) =>
      JSON.stringify({ role: 'user', content: i === 0 ? `Deploy with ANTHROPIC_API_KEY=${key} please` : `step ${i}` }) + '\n' +
      JSON.stringify({ role: 'assistant', content: `We decided to use the key ${key} for staging ${i}.` }) + '\n';
    await writeFile(path.join(status.path, 'messages.jsonl'), Array.from({ length: 8 }, (_, i) => turn(i)).join(''));
    const result = await box.run(['compact', '--keep-recent', '1', '--strategy', 'summarize', '--wait']);
    expect(result.exitCode).toBe(0);
    const overview = await readFile(path.join(status.path, 'working-memory', 'overview.md'), 'utf8');
    expect(overview).not.toContain(key);
    const details = await readdir(path.join(status.path, 'working-memory', 'detail'));
    const summary = details.find((n) => n.includes('summary'))!;
    expect(await readFile(path.join(status.path, 'working-memory', 'detail', summary), 'utf8')).not.toContain(key);
    expect(String((await box.run(['context'])).stdout)).not.toContain(key);
  });
});
