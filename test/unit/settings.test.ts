// Merging wmem's hooks into Claude Code settings: every other setting and hook kept, idempotent,
// and uninstall removes only wmem's entries.
import { describe, expect, it } from 'vitest';
import { detectIndent, installedHooks, isWmemCommand, mergeWmemHooks, removeWmemHooks, shellQuote, WMEM_HOOKS, wmemPrefix } from '../../src/agents/claude/settings.js';

const theirs = () => ({
  model: 'opus',
  permissions: { allow: ['Bash(npm test:*)'], deny: [] },
  env: { FOO: '1' },
  hooks: {
    PostToolUse: [{ matcher: 'Edit|Write', hooks: [{ type: 'command', command: 'npx prettier --write "$CLAUDE_FILE"', timeout: 30 }] }],
    Stop: [{ hooks: [{ type: 'command', command: '~/bin/notify.sh' }] }],
    SessionStart: [{ matcher: 'startup', hooks: [{ type: 'command', command: 'echo hello' }] }],
  },
});

describe('isWmemCommand', () => {
  it.each([
    ['wmem hook SessionStart', true],
    ['/usr/bin/node /opt/wmem/bin/wmem.js hook PreCompact', true],
    ["'/usr/local/bin/node' '/home/me/my tools/wmem/bin/wmem.js' --home /x hook SessionEnd", true],
    ['npx wmem hook UserPromptSubmit', true],
    ['echo wmem', false],
    ['wmem context --part meta', false],
    ['mywmem hook SessionStart', false],
    ['prettier --write', false],
  ])('%s → %s', (command, expected) => {
    expect(isWmemCommand(command)).toBe(expected);
  });

  it('finds the prefix that runs wmem', () => {
    expect(wmemPrefix("'/usr/bin/node' '/a b/wmem.js' hook SessionStart")).toBe("'/usr/bin/node' '/a b/wmem.js'");
    expect(shellQuote('/a b/it\'s')).toBe(`'/a b/it'\\''s'`);
    expect(shellQuote('/usr/bin/node')).toBe('/usr/bin/node');
  });
});

describe('mergeWmemHooks', () => {
  it('adds every event and keeps every other setting and hook', () => {
    const before = theirs();
    const { settings, changed, events } = mergeWmemHooks(before, 'wmem');
    expect(changed).toBe(true);
    expect(events).toEqual(WMEM_HOOKS.map((h) => h.event));
    expect(settings.model).toBe('opus');
    expect(settings.permissions).toEqual(before.permissions);
    const hooks = settings.hooks as Record<string, any[]>;
    expect(hooks.Stop).toEqual(before.hooks.Stop);
    expect(hooks.PostToolUse[0]).toEqual(before.hooks.PostToolUse[0]);
    expect(hooks.PostToolUse[1].hooks[0]).toEqual({ type: 'command', command: 'wmem hook PostToolUse', timeout: 10 });
    expect(hooks.SessionStart).toHaveLength(2);
    expect(installedHooks(settings).every((h) => h.installed)).toBe(true);
    expect(before).toEqual(theirs()); // the input is not mutated
  });

  it('changes nothing the second time', () => {
    const once = mergeWmemHooks(theirs(), 'wmem').settings;
    const twice = mergeWmemHooks(once, 'wmem');
    expect(twice.changed).toBe(false);
    expect(twice.settings).toBe(once);
  });

  it('updates a wmem entry whose command moved, without duplicating it', () => {
    const old = mergeWmemHooks(theirs(), '/old/node /old/bin/wmem.js').settings;
    const { settings, changed } = mergeWmemHooks(old, 'wmem');
    expect(changed).toBe(true);
    const all = JSON.stringify(settings);
    expect(all).not.toContain('/old/bin/wmem.js');
    expect((settings.hooks as any).UserPromptSubmit).toHaveLength(1);
  });

  it('refuses a hooks value of the wrong shape', () => {
    expect(() => mergeWmemHooks({ hooks: [] }, 'wmem')).toThrow(/"hooks" is not an object/);
    expect(() => mergeWmemHooks({ hooks: { Stop: {} } }, 'wmem')).toThrow(/"hooks.Stop" is not a list/);
  });
});

describe('removeWmemHooks', () => {
  it('round-trips to the original settings', () => {
    const installed = mergeWmemHooks(theirs(), 'wmem').settings;
    const { settings, removed } = removeWmemHooks(installed);
    expect(removed).toBe(WMEM_HOOKS.length);
    expect(settings).toEqual(theirs());
  });

  it('removes hooks added only by wmem entirely, and a wmem hook sharing a group with another', () => {
    const { settings } = removeWmemHooks(mergeWmemHooks({ model: 'x' }, 'wmem').settings);
    expect(settings).toEqual({ model: 'x' });
    const shared = { hooks: { Stop: [{ hooks: [{ type: 'command', command: 'a' }, { type: 'command', command: 'wmem hook SessionEnd' }] }] } };
    expect(removeWmemHooks(shared).settings).toEqual({ hooks: { Stop: [{ hooks: [{ type: 'command', command: 'a' }] }] } });
  });

  it('leaves settings without wmem hooks as they are', () => {
    const s = theirs();
    expect(removeWmemHooks(s)).toEqual({ settings: s, changed: false, removed: 0 });
  });
});

it('detects indentation', () => {
  expect(detectIndent('{\n    "a": 1\n}')).toBe(4);
  expect(detectIndent('{\n\t"a": 1\n}')).toBe('\t');
  expect(detectIndent('{"a":1}')).toBe(2);
});
