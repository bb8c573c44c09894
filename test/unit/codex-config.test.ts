// wmem's entries in a Codex hooks.json: merged without touching anything else, idempotent,
// refused when the file cannot be read, removed alone on uninstall; the trust state from the
// user's config.toml, in the key form Codex 0.169's app-server reports (hooks/list).
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { codex } from '../../src/agents/codex/index.js';
import { codexCommandPrefix, codexHooksFile, installedCodexHooks, isWmemCodexCommand, planCodexInstall, planCodexUninstall, PROJECT_TRUST_NOTE, snakeEvent, TRUST_NOTE } from '../../src/agents/codex/hooks-config.js';
import { ConfigShapeError } from '../../src/agents/adapter.js';

const FILE = '/home/u/.codex/hooks.json';
const CONFIG = '/home/u/.codex/config.toml';
const request = { command: 'wmem' };
// A hooks file in the usual layout (what JSON.stringify writes with the file's indentation): such a
// file comes back byte for byte; another layout keeps its content but is re-indented.
const theirs =
  JSON.stringify(
    {
      hooks: {
        PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: '~/bin/guard.sh', timeout: 5 }] }],
        SessionStart: [{ hooks: [{ type: 'command', command: 'echo hello' }] }],
      },
      other: [1, 2, 3],
    },
    null,
    4,
  ) + '\n';

describe('wmem commands in hooks.json', () => {
  it.each([
    ['wmem hook --agent codex SessionStart', true],
    ["'/usr/bin/node' '/opt/my tools/wmem/bin/wmem.js' --home /x hook --agent codex PostToolUse --tokens-max 300000", true],
    ['npx wmem hook --agent=codex PreCompact', true],
    ['wmem hook SessionStart', false],
    ['wmem hook --agent claude SessionStart', false],
    ['echo wmem hook --agent codex', false],
    ['~/bin/guard.sh', false],
  ])('%s → %s', (command, expected) => expect(isWmemCodexCommand(command)).toBe(expected));

  it('keeps the prefix that runs wmem', () => {
    expect(codexCommandPrefix("'/usr/bin/node' /opt/wmem/bin/wmem.js --home /x hook --agent codex SessionEnd --tokens-max 5")).toBe("'/usr/bin/node' /opt/wmem/bin/wmem.js --home /x");
  });

  it('names the user and project files', () => {
    expect(codexHooksFile('user', { cwd: '/p', env: { CODEX_HOME: '/ch' } })).toBe('/ch/hooks.json');
    expect(codexHooksFile('project', { cwd: '/p', env: {} })).toBe('/p/.codex/hooks.json');
    expect(codex.config.related!('project', { cwd: '/p', env: { CODEX_HOME: '/ch' } })).toEqual(['/ch/config.toml']);
  });
});

describe('install and uninstall plans', () => {
  it('adds wmem to a missing file, with the trust note', () => {
    const plan = planCodexInstall(FILE, undefined, { command: 'wmem', tokensMax: 300_000 });
    expect(plan.changed).toBe(true);
    expect(plan.events).toEqual(['SessionStart', 'UserPromptSubmit', 'PostToolUse', 'PreCompact', 'PostCompact', 'SessionEnd']);
    expect(plan.notes).toEqual([TRUST_NOTE, PROJECT_TRUST_NOTE]);
    const json = JSON.parse(plan.after);
    expect(json.hooks.SessionEnd).toEqual([{ hooks: [{ type: 'command', command: 'wmem hook --agent codex SessionEnd --tokens-max 300000', timeout: 3 }] }]);
  });

  it("merges beside the user's hooks, keeps their indentation, and a second install changes nothing", () => {
    const plan = planCodexInstall(FILE, theirs, request);
    const json = JSON.parse(plan.after);
    expect(plan.after).toMatch(/^\{\n {4}"hooks"/);
    expect(json.other).toEqual([1, 2, 3]);
    expect(json.hooks.PreToolUse).toEqual(JSON.parse(theirs).hooks.PreToolUse);
    expect(json.hooks.SessionStart[0]).toEqual(JSON.parse(theirs).hooks.SessionStart[0]);
    expect(json.hooks.SessionStart[1].hooks[0].command).toBe('wmem hook --agent codex SessionStart');
    const again = planCodexInstall(FILE, plan.after, request);
    expect(again.changed).toBe(false);
    expect(again.after).toBe(plan.after);
    expect(again.events).toEqual([]);
  });

  it('updates its own entries in place of the old ones (a new command or window)', () => {
    const first = planCodexInstall(FILE, theirs, request).after;
    const second = planCodexInstall(FILE, first, { command: '/usr/bin/node /opt/wmem.js', tokensMax: 5000 });
    const json = JSON.parse(second.after);
    expect(second.events).toHaveLength(6);
    expect(json.hooks.SessionStart).toHaveLength(2);
    expect(json.hooks.SessionStart[1].hooks[0].command).toBe('/usr/bin/node /opt/wmem.js hook --agent codex SessionStart --tokens-max 5000');
  });

  it('uninstall gives back the bytes that were there before install', () => {
    const installed = planCodexInstall(FILE, theirs, request).after;
    const removed = planCodexUninstall(FILE, installed);
    expect(removed.removed).toBe(6);
    expect(removed.after).toBe(theirs);
    const nothing = planCodexUninstall(FILE, theirs);
    expect(nothing.changed).toBe(false);
    expect(nothing.after).toBe(theirs);
    expect(planCodexUninstall(FILE, undefined).changed).toBe(false);
    // From a file wmem created: only an empty object is left.
    expect(planCodexUninstall(FILE, planCodexInstall(FILE, undefined, request).after).after).toBe('{}\n');
  });

  it.each([
    ['{ not json', /is not valid JSON/],
    ['[]', /does not hold a JSON object/],
    ['{"hooks": []}', /"hooks" is not an object/],
    ['{"hooks": {"Stop": {}}}', /"hooks.Stop" is not a list/],
    ['{"hooks": {"Stop": [1]}}', /"hooks.Stop\[0\]" is not a matcher group/],
  ])('refuses %s by name, for install and uninstall', (text, message) => {
    for (const plan of [() => planCodexInstall(FILE, text, request), () => planCodexUninstall(FILE, text)]) {
      expect(plan).toThrow(ConfigShapeError);
      expect(plan).toThrow(message);
      expect(plan).toThrow(FILE);
    }
  });

  it('property: install then uninstall of any hooks file without wmem gives its bytes back', () => {
    const handler = fc.record({ type: fc.constant('command'), command: fc.constantFrom('echo a', 'guard.sh', 'notify --x'), timeout: fc.nat(100) });
    const group = fc.record({ matcher: fc.option(fc.constantFrom('Bash', '.*'), { nil: undefined }), hooks: fc.array(handler, { maxLength: 3 }) }, { requiredKeys: ['hooks'] });
    // (Empty "hooks": {} or "Event": [] are not kept: uninstall drops what it leaves empty.)
    const events = fc.dictionary(fc.constantFrom('SessionStart', 'PostToolUse', 'Stop', 'PreToolUse'), fc.array(group, { minLength: 1, maxLength: 2 }), { minKeys: 1 });
    fc.assert(
      fc.property(events, fc.constantFrom(2, 4, '\t'), (hooks, indent) => {
        const text = JSON.stringify({ hooks, keep: true }, null, indent) + '\n';
        const installed = planCodexInstall(FILE, text, request).after;
        expect(planCodexInstall(FILE, installed, request).changed).toBe(false);
        expect(planCodexUninstall(FILE, installed).after).toBe(text);
      }),
    );
  });
});

describe('doctor: installed and trusted', () => {
  const installed = planCodexInstall(FILE, theirs, request).after;
  const keyOf = (event: string) => installedCodexHooks(FILE, JSON.parse(installed)).find((h) => h.event === event)!.key!;

  it("forms Codex's keys: file, snake_case event, group and handler index", () => {
    expect(snakeEvent('UserPromptSubmit')).toBe('user_prompt_submit');
    expect(keyOf('SessionStart')).toBe(`${FILE}:session_start:1:0`);
    expect(keyOf('PostToolUse')).toBe(`${FILE}:post_tool_use:0:0`);
  });

  it('says installed, not trusted, until config.toml records trust for every entry', () => {
    const status = codex.config.diagnose('user', FILE, installed, { [CONFIG]: 'model = "o3"\n' });
    expect(status.installed).toHaveLength(6);
    expect(status.problems).toEqual([expect.stringMatching(/^installed, not trusted: \/home\/u\/\.codex\/hooks\.json\. Codex runs these hooks only once you trust them/)]);
    const some = `[hooks.state."${keyOf('SessionStart')}"]\ntrusted_hash = "sha256:00"\n`;
    expect(codex.config.diagnose('user', FILE, installed, { [CONFIG]: some }).problems[0]).toMatch(/^installed, not trusted \(UserPromptSubmit, PostToolUse, PreCompact, PostCompact, SessionEnd\)/);
    const all = ['SessionStart', 'UserPromptSubmit', 'PostToolUse', 'PreCompact', 'PostCompact', 'SessionEnd'].map((e) => `[hooks.state."${keyOf(e)}"]\ntrusted_hash = "sha256:${e}"\n`).join('\n');
    expect(codex.config.diagnose('user', FILE, installed, { [CONFIG]: all }).problems).toEqual([]);
  });

  it('says it cannot tell when config.toml does not parse, and reports a broken hooks file', () => {
    expect(codex.config.diagnose('user', FILE, installed, { [CONFIG]: '[hooks\n' }).problems[0]).toMatch(/^cannot tell whether Codex trusts wmem's hooks in .*config\.toml does not parse as TOML/);
    const broken = codex.config.diagnose('user', FILE, '{', { [CONFIG]: undefined });
    expect(broken.error).toMatch(/not valid JSON/);
    const none = codex.config.diagnose('user', FILE, undefined, { [CONFIG]: undefined });
    expect(none).toMatchObject({ exists: false, installed: [], problems: [] });
  });
});

describe('doctor: project hooks in a project Codex trusts', () => {
  const PFILE = '/home/u/app/.codex/hooks.json';
  const installed = planCodexInstall(PFILE, undefined, request).after;
  const problems = (config: string | undefined) => codex.config.diagnose('project', PFILE, installed, { [CONFIG]: config }).problems;

  it('says the project is not trusted until config.toml trusts it or an ancestor', () => {
    expect(problems('model = "o3"\n')[0]).toMatch(/^\/home\/u\/app is not a trusted project in Codex, so it does not read \/home\/u\/app\/\.codex\/hooks\.json\. A project's/);
    for (const dir of ['/home/u/app', '/home/u']) {
      expect(problems(`[projects."${dir}"]\ntrust_level = "trusted"\n`).some((p) => /not a trusted project/.test(p))).toBe(false);
    }
    expect(problems('[projects."/home/u/app"]\ntrust_level = "untrusted"\n')[0]).toMatch(/not a trusted project/);
    // The user scope has no such condition.
    expect(codex.config.diagnose('user', FILE, planCodexInstall(FILE, undefined, request).after, { [CONFIG]: '' }).problems.some((p) => /trusted project/.test(p))).toBe(false);
  });
});
