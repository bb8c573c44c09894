// End-to-end: `wmem install claude` / `wmem uninstall claude` on settings files that already have
// other settings and hooks; `wmem rm`.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { runJson, sandbox, type Sandbox } from '../helpers/cli.js';

let box: Sandbox;
beforeEach(async () => {
  box = await sandbox();
});
afterEach(async () => {
  await box.cleanup();
});

const projectSettings = () => path.join(box.project, '.claude', 'settings.json');
const existing = {
  $schema: 'https://json.schemastore.org/claude-code-settings.json',
  model: 'opus',
  permissions: { allow: ['Bash(npm run test:*)'], deny: ['Read(./.env)'] },
  hooks: {
    PostToolUse: [{ matcher: 'Edit|Write', hooks: [{ type: 'command', command: 'npx prettier --write', timeout: 30 }] }],
    UserPromptSubmit: [{ hooks: [{ type: 'command', command: '"$CLAUDE_PROJECT_DIR"/.claude/hooks/check.sh' }] }],
    Notification: [{ hooks: [{ type: 'command', command: 'notify-send Claude' }] }],
  },
};

async function writeExisting(file = projectSettings(), indent = 4) {
  await mkdir(path.dirname(file), { recursive: true });
  const text = JSON.stringify(existing, null, indent) + '\n';
  await writeFile(file, text);
  return text;
}

describe('install claude', () => {
  it('merges wmem hooks, keeps everything else, and a second run changes nothing', async () => {
    await writeExisting();
    const first = await runJson(box, ['install', 'claude']);
    expect(first).toMatchObject({ scope: 'project', file: projectSettings(), changed: true });
    expect(first.events).toHaveLength(7);
    const text = await readFile(projectSettings(), 'utf8');
    expect(text).toMatch(/^\{\n {4}"\$schema"/); // the file's indentation is kept
    const settings = JSON.parse(text);
    expect(settings.model).toBe('opus');
    expect(settings.permissions).toEqual(existing.permissions);
    expect(settings.hooks.Notification).toEqual(existing.hooks.Notification);
    expect(settings.hooks.PostToolUse[0]).toEqual(existing.hooks.PostToolUse[0]);
    expect(settings.hooks.UserPromptSubmit[0]).toEqual(existing.hooks.UserPromptSubmit[0]);
    for (const event of ['SessionStart', 'UserPromptSubmit', 'PostToolUse', 'PostToolUseFailure', 'PreCompact', 'PostCompact', 'SessionEnd']) {
      const wmem = settings.hooks[event].flatMap((g: any) => g.hooks).filter((h: any) => / hook /.test(h.command) && h.command.includes('wmem'));
      expect(wmem, event).toHaveLength(1);
      expect(wmem[0]).toMatchObject({ type: 'command', command: expect.stringMatching(new RegExp(`hook ${event}$`)), timeout: expect.any(Number) });
    }
    const before = await stat(projectSettings());
    const second = await runJson(box, ['install', 'claude']);
    expect(second.changed).toBe(false);
    expect(await readFile(projectSettings(), 'utf8')).toBe(text);
    expect((await stat(projectSettings())).mtimeMs).toBe(before.mtimeMs);
  });

  it('the installed command really answers a hook', async () => {
    await runJson(box, ['install', 'claude']);
    const settings = JSON.parse(await readFile(projectSettings(), 'utf8'));
    const command: string = settings.hooks.SessionStart[0].hooks[0].command;
    const { execa } = await import('execa');
    const result = await execa('/bin/sh', ['-c', command], {
      input: JSON.stringify({ session_id: 'sh-1', cwd: box.project, hook_event_name: 'SessionStart', source: 'startup' }),
      env: { PATH: process.env.PATH ?? '', HOME: box.home, WMEM_HOME: box.home },
      extendEnv: false,
      reject: false,
    });
    expect(result.exitCode).toBe(0);
    expect(JSON.parse(result.stdout).hookSpecificOutput.hookEventName).toBe('SessionStart');
  });

  it('passes --home on to the hook command', async () => {
    const other = `${box.root}/other home`;
    const result = await box.run(['install', 'claude', '--home', other, '--json']);
    expect(result.exitCode).toBe(0);
    const settings = JSON.parse(await readFile(projectSettings(), 'utf8'));
    const command: string = settings.hooks.SessionStart[0].hooks[0].command;
    expect(command).toContain(`--home '${other}' hook SessionStart`);
    const { execa } = await import('execa');
    await execa('/bin/sh', ['-c', command], { input: JSON.stringify({ session_id: 'h-1', cwd: box.project, hook_event_name: 'SessionStart' }), env: { PATH: process.env.PATH ?? '' }, extendEnv: false });
    const { readdir } = await import('node:fs/promises');
    expect(await readdir(path.join(other, 'sessions'))).toHaveLength(1);
    // And a second install with the same home changes nothing.
    expect(JSON.parse(String((await box.run(['install', 'claude', '--home', other, '--json'])).stdout)).changed).toBe(false);
  });

  it('uninstall removes only wmem entries: install + uninstall gives the original settings back', async () => {
    await writeExisting();
    await runJson(box, ['install', 'claude']);
    const removed = await runJson(box, ['uninstall', 'claude']);
    expect(removed).toMatchObject({ changed: true, removed: 7 });
    expect(JSON.parse(await readFile(projectSettings(), 'utf8'))).toEqual(existing);
    expect((await runJson(box, ['uninstall', 'claude'])).changed).toBe(false);
  });

  it('--dry-run prints the result and writes nothing', async () => {
    const original = await writeExisting();
    const result = await box.run(['install', 'claude', '--dry-run']);
    expect(result.exitCode).toBe(0);
    const printed = JSON.parse(String(result.stdout));
    expect(printed.hooks.SessionStart[0].hooks[0].command).toMatch(/hook SessionStart$/);
    expect(printed.model).toBe('opus');
    expect(await readFile(projectSettings(), 'utf8')).toBe(original);
    await runJson(box, ['install', 'claude']);
    const un = await box.run(['uninstall', 'claude', '--dry-run']);
    expect(JSON.parse(String(un.stdout))).toEqual(existing);
    expect(await readFile(projectSettings(), 'utf8')).not.toBe(original);
  });

  it('refuses a settings file that does not parse, naming it, and leaves it untouched', async () => {
    await mkdir(path.dirname(projectSettings()), { recursive: true });
    const broken = '{\n  "model": "opus",\n  // a comment\n}\n';
    await writeFile(projectSettings(), broken);
    for (const command of ['install', 'uninstall']) {
      const result = await box.run([command, 'claude']);
      expect(result.exitCode).toBe(2);
      expect(String(result.stderr)).toContain(`${projectSettings()} is not valid JSON`);
      expect(String(result.stderr)).not.toMatch(/^\s+at /m);
      expect(await readFile(projectSettings(), 'utf8')).toBe(broken);
    }
    await writeFile(projectSettings(), '{"hooks": []}');
    const shape = await box.run(['install', 'claude']);
    expect(shape.exitCode).toBe(2);
    expect(String(shape.stderr)).toContain('"hooks" is not an object');
  });

  it('writes the user and local scopes to their files', async () => {
    const user = await runJson(box, ['install', 'claude', '--scope', 'user']);
    expect(user.file).toBe(path.join(box.home, '.claude', 'settings.json'));
    expect(JSON.parse(await readFile(user.file, 'utf8')).hooks.SessionEnd).toHaveLength(1);
    const local = await runJson(box, ['install', 'claude', '--scope', 'local']);
    expect(local.file).toBe(path.join(box.project, '.claude', 'settings.local.json'));
  });

  it('refuses an agent it does not know', async () => {
    const result = await box.run(['install', 'cursor']);
    expect(result.exitCode).toBe(2);
    expect(String(result.stderr)).toMatch(/cannot install hooks for "cursor"/);
    expect(String(result.stderr)).toMatch(/known agents: claude \(claude-code\)/);
    const un = await box.run(['uninstall', 'cursor']);
    expect(un.exitCode).toBe(2);
    expect(String(un.stderr)).toMatch(/cannot uninstall hooks of "cursor"/);
  });
});

describe('rm', () => {
  it('deletes a session with --yes, refuses without it off a terminal', async () => {
    const { id, path: dir } = await runJson(box, ['init']);
    const refused = await box.run(['rm', id]);
    expect(refused.exitCode).toBe(2);
    expect(String(refused.stderr)).toMatch(/needs --yes/);
    await stat(dir);
    const done = await runJson(box, ['rm', id, '--yes']);
    expect(done).toMatchObject({ id, deleted: true });
    await expect(stat(dir)).rejects.toThrow();
    await expect(stat(path.join(path.dirname(dir), 'current'))).rejects.toThrow();
    const again = await box.run(['rm', id, '--yes']);
    expect(again.exitCode).toBe(2);
    expect(String(again.stderr)).toMatch(/no session/);
    expect((await box.run(['rm', '../x', '--yes'])).exitCode).toBe(2);
  });
});
