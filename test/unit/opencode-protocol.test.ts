// OpenCode's adapter, pure parts: the inputs wmem's plugin sends (built from what OpenCode 1.18.33
// gave the plugin in a real run: test/fixtures/opencode), token use from the messages, the tool
// event and its failure from the exit code, the plugin file plans.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigShapeError, HookInputError } from '../../src/agents/adapter.js';
import { opencode } from '../../src/agents/opencode/index.js';
import { compactionSummary, contextOf, opencodeEvent, parseOpenCodeInput, usageFromMessages, type OpenCodeMessage } from '../../src/agents/opencode/protocol.js';
import { isWmemPlugin, planPluginInstall, planPluginUninstall, pluginCommand, PLUGIN_MARK } from '../../src/agents/opencode/plugin-file.js';
import { readTemplate } from '../../src/store/templates.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const fixture = (name: string) => JSON.parse(readFileSync(path.join(here, '..', 'fixtures', 'opencode', name), 'utf8'));
const messages: OpenCodeMessage[] = fixture('messages-before-compaction.json');
const toolAfter = fixture('tool-execute-after-failed.json');
const event = (name: string) => opencodeEvent(name)!;

describe("OpenCode's hook input", () => {
  it('reads token use from the last assistant message: prompt (cached included) + completion', () => {
    const input = parseOpenCodeInput(JSON.stringify({ event: 'chat.message', sessionID: 'ses_1', directory: '/p', model: { providerID: 'mock', modelID: 'm1', limit: { context: 4000, output: 500 } }, messages }), event('chat.message'));
    // The mock reported prompt 3,700 + completion 30 for the last response of that run.
    expect(input).toMatchObject({ moment: 'prompt', sessionId: 'ses_1', cwd: '/p', model: 'm1', usage: { lastUsage: 3730, window: 4000, model: 'm1' } });
    // …and prompt 1,500 (400 cached, which OpenCode leaves out of tokens.input) + completion 30 before it.
    expect(contextOf(messages[1].info.tokens)).toBe(1530);
  });

  it('counts nothing from before a compaction, nor the summary request itself', () => {
    const summary: OpenCodeMessage = { info: { id: 'msg_s', role: 'assistant', summary: true, modelID: 'm1', tokens: { total: 3900, input: 3800, output: 100, reasoning: 0, cache: { read: 0, write: 0 } } }, parts: [{ type: 'text', text: 'What we did: ran ls.' }] };
    expect(usageFromMessages([...messages, summary])).toMatchObject({ lastUsage: null, afterCompaction: 100 });
    const after: OpenCodeMessage = { info: { id: 'msg_a', role: 'assistant', modelID: 'm1', tokens: { input: 200, output: 10, reasoning: 5, cache: { read: 800, write: 100 } } } };
    expect(usageFromMessages([...messages, summary, after]).lastUsage).toBe(1115);
    expect(compactionSummary([...messages, summary, after])).toBe('What we did: ran ls.');
  });

  it('makes a bash call that exited non-zero a failure, with its output as the error', () => {
    const raw = { event: 'tool.execute.after', sessionID: toolAfter.input.sessionID, directory: '/p', tool: { ...toolAfter.input, ...toolAfter.output } };
    const input = parseOpenCodeInput(JSON.stringify(raw), event('tool.execute.after'));
    expect(input.moment).toBe('tool-failed');
    expect(input.tool).toMatchObject({ name: 'bash', exitCode: 2, error: "ls: cannot access '/nonexistent-x': No such file or directory" });
    expect(opencode.toolEvent(input, '/p')).toMatchObject({ tool: 'bash', command: 'ls /nonexistent-x', exit_code: 2 });
    const ok = parseOpenCodeInput(JSON.stringify({ ...raw, tool: { ...raw.tool, metadata: { exit: 0 } } }), event('tool.execute.after'));
    expect(ok.moment).toBe('tool-done');
    const edit = parseOpenCodeInput(JSON.stringify({ ...raw, tool: { tool: 'edit', args: { filePath: '/p/src/a.ts' }, output: 'ok', metadata: {} } }), event('tool.execute.after'));
    expect(opencode.toolEvent(edit, '/p')).toMatchObject({ tool: 'edit', files: ['src/a.ts'] });
  });

  it('hands the messages to archive before a compaction, one JSON line each', () => {
    const input = parseOpenCodeInput(JSON.stringify({ event: 'session.compacting', sessionID: 'ses_1', messages }), event('session.compacting'));
    expect(input.conversation!.map((c) => c.id)).toEqual(messages.map((m) => m.info.id));
    for (const [i, c] of input.conversation!.entries()) {
      expect(c.line).not.toContain('\n');
      expect(JSON.parse(c.line)).toEqual(messages[i]);
    }
  });

  it('refuses what is not its input, by name', () => {
    expect(() => parseOpenCodeInput('', event('chat.message'))).toThrow(HookInputError);
    expect(() => parseOpenCodeInput('{', event('chat.message'))).toThrow(/not JSON/);
    expect(() => parseOpenCodeInput('{"event":"session.idle"}', event('chat.message'))).toThrow(/is for session.idle/);
    expect(() => parseOpenCodeInput('{"sessionID":3}', event('chat.message'))).toThrow(/sessionID/);
    expect(() => parseOpenCodeInput('{"messages":{}}', event('chat.message'))).toThrow(/messages/);
    expect(() => parseOpenCodeInput('{}', event('tool.execute.after'))).toThrow(/tool object/);
  });
});

describe("OpenCode's plugin file", () => {
  const file = '/home/me/app/.opencode/plugin/wmem.ts';
  const template = readTemplate('opencode-plugin.ts');
  const request = { command: "'/usr/bin/node' '/opt/wmem/bin/wmem.js' --home '/home/me/my ai'", home: '/home/me/my ai', tokensMax: 128000 };

  it('renders the command, the flags and the log file into the template, and reads the command back', () => {
    const plan = planPluginInstall(file, undefined, request, template);
    expect(plan.after.startsWith(PLUGIN_MARK)).toBe(true);
    expect(plan.after).not.toMatch(/__WMEM_\w+__/);
    expect(plan.after).toContain(JSON.stringify(' --tokens-max 128000'));
    expect(plan.after).toContain(JSON.stringify('/home/me/my ai/logs/opencode-plugin.log'));
    expect(pluginCommand(plan.after)).toBe(request.command);
    expect(opencode.config.diagnose('project', file, plan.after, {})).toMatchObject({ installed: ['plugin'], command: request.command, problems: [] });
  });

  it('never overwrites nor removes a file of the user (any content without the mark)', () => {
    fc.assert(
      fc.property(fc.string().filter((s) => !s.startsWith(PLUGIN_MARK)), (text) => {
        expect(() => planPluginInstall(file, text, request, template)).toThrow(ConfigShapeError);
        expect(planPluginUninstall(file, text)).toMatchObject({ changed: false, removed: 0 });
        expect(isWmemPlugin(text)).toBe(false);
      }),
    );
  });

  it('uninstall removes the file rather than leaving it empty; an older plugin is reported', () => {
    const plan = planPluginInstall(file, undefined, request, template);
    expect(planPluginUninstall(file, plan.after)).toMatchObject({ remove: true, changed: true, removed: 1 });
    const older = plan.after.replace(/^(\/\/ wmem:opencode-plugin) v\d+/, '$1 v0');
    expect(opencode.config.diagnose('user', file, older, {}).problems.join('\n')).toMatch(/older wmem plugin/);
  });
});

describe('OpenCode: memory that changed, and subagent sessions', () => {
  const event = (name: string) => opencodeEvent(name)!;

  it('a prompt answer carries a changed memory part beside the meter; the plugin swaps it in', () => {
    const input = parseOpenCodeInput(JSON.stringify({ event: 'chat.message', sessionID: 'ses_1', directory: '/p', messages: [] }), event('chat.message'));
    expect(opencode.answer.memoryCopy).toBe('replaced');
    expect(opencode.answer.answer(input, '<context_meta>x</context_meta>', '<working_memory>\nnew\n</working_memory>')).toEqual({ context: '<context_meta>x</context_meta>', memory: '<working_memory>\nnew\n</working_memory>' });
    expect(opencode.answer.answer(input, '<context_meta>x</context_meta>')).toEqual({ context: '<context_meta>x</context_meta>' });
    const template = readTemplate('opencode-plugin.ts');
    expect(template).toMatch(/typeof answer\?\.memory === 'string'\) cache\.memory = answer\.memory/);
  });

  it("a subagent's session (the plugin names its parentID) counts for the parent and is marked as a subagent's", () => {
    const input = parseOpenCodeInput(JSON.stringify({ event: 'tool.execute.after', sessionID: 'ses_child', parentID: 'ses_parent', directory: '/p', tool: { tool: 'bash', args: { command: 'ls' }, output: 'x' } }), event('tool.execute.after'));
    expect(input).toMatchObject({ subagent: true, sessionId: 'ses_parent' });
    expect(() => parseOpenCodeInput(JSON.stringify({ event: 'chat.message', sessionID: 'ses_1', parentID: 7 }), event('chat.message'))).toThrow(/parentID is not a string/);
  });

  it('the plugin does nothing at all under WMEM_DISABLED, and skips a child session', () => {
    const template = readTemplate('opencode-plugin.ts');
    expect(template).toMatch(/if \(disabled\(\)\) return \{\};/);
    expect(template).toMatch(/client\.session\.get\(\{ path: \{ id: sessionID \} \}\)/);
  });
});
