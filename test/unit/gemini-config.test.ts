// wmem's entries in a Gemini CLI settings.json: merged without touching anything else, idempotent,
// timeouts in milliseconds, refused when the file cannot be read (comments included), removed
// alone on uninstall; doctor's view of them (missing events, disabled hooks, folder trust).
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { gemini } from '../../src/agents/gemini/index.js';
import { geminiCommandPrefix, geminiHookName, geminiSettingsFile, isWmemGeminiCommand, planGeminiInstall, planGeminiUninstall, PROJECT_TRUST_NOTE } from '../../src/agents/gemini/settings.js';
import { folderTrust } from '../../src/agents/gemini/trust.js';
import { ConfigShapeError } from '../../src/agents/adapter.js';

const FILE = '/home/u/.gemini/settings.json';
const PROJECT_FILE = '/work/p/.gemini/settings.json';
const request = { command: 'wmem' };
// A settings file in the usual layout (what JSON.stringify writes with the file's indentation):
// such a file comes back byte for byte after install + uninstall.
const theirs =
  JSON.stringify(
    {
      security: { auth: { selectedType: 'gemini-api-key' } },
      hooks: { BeforeTool: [{ matcher: 'run_shell_command', hooks: [{ type: 'command', command: '~/bin/guard.sh', name: 'guard', timeout: 5000 }] }] },
      hooksConfig: { notifications: true },
      model: { name: 'gemini-2.5-pro' },
    },
    null,
    4,
  ) + '\n';

describe('wmem commands in settings.json', () => {
  it.each([
    ['wmem hook --agent gemini SessionStart', true],
    ["'/usr/bin/node' '/opt/my tools/wmem/bin/wmem.js' --home /x hook --agent gemini AfterTool --tokens-max 300000", true],
    ['wmem hook --agent codex SessionStart', false],
    ['wmem hook SessionStart', false],
    ['~/bin/guard.sh', false],
  ])('%s → %s', (command, expected) => expect(isWmemGeminiCommand(command)).toBe(expected));

  it('keeps the prefix that runs wmem; names hooks for hooksConfig.disabled', () => {
    expect(geminiCommandPrefix('wmem --home /x hook --agent gemini SessionEnd --tokens-max 5')).toBe('wmem --home /x');
    expect(geminiHookName('BeforeAgent')).toBe('wmem-before-agent');
    expect(geminiHookName('PreCompress')).toBe('wmem-pre-compress');
  });

  it('finds the files of both scopes ($GEMINI_CLI_HOME like Gemini)', () => {
    expect(geminiSettingsFile('user', { cwd: '/w', env: { GEMINI_CLI_HOME: '/gh' } })).toBe('/gh/.gemini/settings.json');
    expect(geminiSettingsFile('project', { cwd: '/w/p', env: {} })).toBe('/w/p/.gemini/settings.json');
  });
});

describe('install and uninstall plans', () => {
  it('adds one named entry per event, timeouts in milliseconds, no matcher', () => {
    const plan = planGeminiInstall(FILE, undefined, request, 'user');
    const hooks = (plan.preview as any).hooks;
    expect(Object.keys(hooks)).toEqual(['SessionStart', 'BeforeAgent', 'AfterTool', 'PreCompress', 'SessionEnd']);
    expect(hooks.BeforeAgent).toEqual([{ hooks: [{ type: 'command', command: 'wmem hook --agent gemini BeforeAgent', name: 'wmem-before-agent', timeout: 10_000 }] }]);
    expect(hooks.PreCompress[0].hooks[0].timeout).toBe(60_000);
    expect(plan.notes).toEqual([]);
    expect(planGeminiInstall(PROJECT_FILE, undefined, request, 'project').notes).toEqual([PROJECT_TRUST_NOTE]);
  });

  it('keeps everything else, is idempotent, and uninstall gives the bytes back', () => {
    const installed = planGeminiInstall(FILE, theirs, request, 'user');
    expect(installed.changed).toBe(true);
    const json = JSON.parse(installed.after);
    expect(json.hooks.BeforeTool).toEqual(JSON.parse(theirs).hooks.BeforeTool);
    expect(json.model).toEqual({ name: 'gemini-2.5-pro' });
    expect(installed.after).toMatch(/^\{\n {4}"security"/);
    const again = planGeminiInstall(FILE, installed.after, request, 'user');
    expect(again).toMatchObject({ changed: false, events: [] });
    expect(again.after).toBe(installed.after);
    const removed = planGeminiUninstall(FILE, installed.after);
    expect(removed).toMatchObject({ changed: true, removed: 5 });
    expect(removed.after).toBe(theirs);
    expect(planGeminiUninstall(FILE, theirs)).toMatchObject({ changed: false, removed: 0, after: theirs });
  });

  it('updates an entry whose command changed, in place of the old one', () => {
    const first = planGeminiInstall(FILE, undefined, { command: 'wmem' }, 'user').after;
    const second = planGeminiInstall(FILE, first, { command: 'wmem', tokensMax: 500_000 }, 'user');
    expect(second.events).toHaveLength(5);
    const hooks = JSON.parse(second.after).hooks;
    expect(hooks.SessionStart).toEqual([{ hooks: [{ type: 'command', command: 'wmem hook --agent gemini SessionStart --tokens-max 500000', name: 'wmem-session-start', timeout: 10_000 }] }]);
  });

  it.each([
    ['{ "a": 1, }', /not valid JSON/],
    ['// my settings\n{ "a": 1 }', /comments/],
    ['[1, 2]', /does not hold a JSON object/],
    ['{"hooks": []}', /"hooks" is not an object/],
    ['{"hooks": {"AfterTool": [3]}}', /hooks.AfterTool\[0\]/],
  ])('refuses %s', (text, message) => {
    expect(() => planGeminiInstall(FILE, text, request, 'user')).toThrow(ConfigShapeError);
    expect(() => planGeminiInstall(FILE, text, request, 'user')).toThrow(message);
  });

  it('install then uninstall gives any object-shaped settings back (fast-check)', () => {
    const settings = fc.dictionary(fc.string({ minLength: 1, maxLength: 8 }).filter((k) => k !== 'hooks' && k !== '__proto__'), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 5 });
    fc.assert(
      fc.property(settings, fc.constantFrom(2, 4, '\t'), (value, indent) => {
        const text = JSON.stringify(value, null, indent) + '\n';
        const installed = planGeminiInstall(FILE, text, request, 'user');
        expect(planGeminiUninstall(FILE, installed.after).after).toBe(Object.keys(value).length ? text : '{}\n');
      }),
    );
  });
});

describe('doctor', () => {
  const installed = planGeminiInstall(PROJECT_FILE, undefined, request, 'project').after;
  it('says what is installed and when a project folder is not trusted', () => {
    const trust = '/home/u/.gemini/trustedFolders.json';
    const untrusted = gemini.config.diagnose('project', PROJECT_FILE, installed, { [trust]: undefined });
    expect(untrusted.installed).toHaveLength(5);
    expect(untrusted.problems.join('\n')).toMatch(/installed, folder not trusted: \/work\/p/);
    const trusted = gemini.config.diagnose('project', PROJECT_FILE, installed, { [trust]: JSON.stringify({ '/work': 'TRUST_FOLDER' }) });
    expect(trusted.problems).toEqual([]);
  });

  it('names hooks Gemini is told to skip, and missing events', () => {
    const json = JSON.parse(installed);
    json.hooksConfig = { disabled: ['wmem-after-tool'] };
    delete json.hooks.SessionEnd;
    const status = gemini.config.diagnose('user', FILE, JSON.stringify(json), {});
    expect(status.missing).toEqual(['SessionEnd']);
    expect(status.problems.join('\n')).toMatch(/lacks SessionEnd/);
    expect(status.problems.join('\n')).toMatch(/disables wmem-after-tool/);
    expect(gemini.config.diagnose('user', FILE, '{oops', {}).error).toMatch(/not valid JSON/);
  });

  it('reads folder trust the way Gemini does: the longest rule wins, TRUST_PARENT trusts the parent', () => {
    const rules = JSON.stringify({ '/work': 'TRUST_FOLDER', '/work/secret': 'DO_NOT_TRUST', '/src/app': 'TRUST_PARENT' });
    expect(folderTrust(rules, '/work/p')).toBe('trusted');
    expect(folderTrust(rules, '/work/secret/x')).toBe('distrusted');
    expect(folderTrust(rules, '/src/other')).toBe('trusted');
    expect(folderTrust(rules, '/elsewhere')).toBe('unknown');
    expect(folderTrust('not json', '/work')).toBe('unknown');
  });
});
