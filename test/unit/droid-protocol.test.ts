// Factory Droid's adapter, pure parts and its small file reads: the failed call of a turn as the
// transcript shows it (lines shaped as Droid 0.215.0 wrote them in a real run), token use from
// the session settings file, the hooks.json plans, and a compaction's new session traced back to
// the first one of the chain.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ConfigShapeError } from '../../src/agents/adapter.js';
import { droid } from '../../src/agents/droid/index.js';
import { diagnoseDroidHooks, planDroidInstall, planDroidUninstall } from '../../src/agents/droid/hooks-file.js';
import { completeDroidInput, failureMessage, isPrompt, lastTurnFailure, mayMatterToTurn } from '../../src/agents/droid/protocol.js';
import { compactionChain, readTail, usageFromSettings } from '../../src/agents/droid/transcript.js';

const prompt = (text: string) => ({ type: 'message', id: `p-${text}`, message: { role: 'user', content: [{ type: 'text', text }] } });
const hookMessage = { type: 'message', id: 'h1', message: { role: 'user', content: [], hookEventName: 'SessionStart' } };
const call = (id: string, command: string) => ({ type: 'message', id: `a-${id}`, message: { role: 'assistant', content: [{ type: 'tool_use', id, name: 'Execute', input: { command, riskLevel: 'low' } }] } });
const result = (id: string, isError: boolean, content: string) => ({ type: 'message', id: `r-${id}`, message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, is_error: isError, content }] } });
const FAILED = 'Error: Command failed (exit code: 3)\nAssertionError: expected 1 to be 2\n\n\n[Process exited with code 3]';

describe('Droid: a failed command from the transcript', () => {
  it("finds the turn's failed call with its command, its informative text and its exit code", () => {
    const lines = [hookMessage, prompt('run it'), call('c1', 'npm test'), result('c1', true, FAILED)];
    expect(lastTurnFailure(lines)).toEqual({ name: 'Execute', input: { command: 'npm test', riskLevel: 'low' }, id: 'c1', error: 'AssertionError: expected 1 to be 2', exitCode: 3 });
    const event = droid.toolEvent({ agent: 'droid', event: 'Stop', moment: 'tool-failed', tool: lastTurnFailure(lines) }, '/p') as Record<string, unknown>;
    expect(event).toMatchObject({ tool: 'execute', command: 'npm test', error: 'AssertionError: expected 1 to be 2', exit_code: 3 });
  });

  it('sees nothing when the failure belongs to an earlier turn, or the call succeeded', () => {
    expect(lastTurnFailure([prompt('one'), call('c1', 'x'), result('c1', true, FAILED), prompt('two')])).toBeUndefined();
    expect(lastTurnFailure([prompt('one'), call('c1', 'x'), result('c1', false, 'ok')])).toBeUndefined();
  });

  it("strips only Droid's frame from the failure text", () => {
    expect(failureMessage(FAILED)).toEqual({ message: 'AssertionError: expected 1 to be 2', exitCode: 3 });
    expect(failureMessage('Error: Command failed (exit code: 1)\n')).toEqual({ message: 'Error: Command failed (exit code: 1)', exitCode: 1 });
  });
});

describe('Droid: token use from the session settings file', () => {
  it('is the last call whole prompt: input (cached left out) + cache read + cache creation', () => {
    const text = JSON.stringify({ model: 'custom:m-0', tokenUsage: { inputTokens: 9999 }, lastCallTokenUsage: { inputTokens: 1100, outputTokens: 30, cacheReadTokens: 400, cacheCreationTokens: 5 } });
    expect(usageFromSettings(text)).toEqual({ lastUsage: 1505, model: 'custom:m-0' });
    expect(usageFromSettings('{"model":"m"}')).toEqual({ lastUsage: null, model: 'm' });
    expect(usageFromSettings('not json')).toEqual({ lastUsage: null });
  });
});

describe('Droid: hooks.json keyed by event', () => {
  const request = { command: 'wmem' };
  const userFile = (events: Record<string, string>) =>
    JSON.stringify(Object.fromEntries(Object.entries(events).map(([event, command]) => [event, [{ hooks: [{ type: 'command', command, timeout: 5 }] }]])), null, 2) + '\n';

  it('writes each event at the top with no outer hooks key, seconds, and a matcher on PostToolUse only', () => {
    const plan = planDroidInstall('/h/.factory/hooks.json', undefined, request);
    const json = JSON.parse(plan.after);
    expect(Object.keys(json)).toEqual(['SessionStart', 'UserPromptSubmit', 'PostToolUse', 'Stop', 'PreCompact', 'SessionEnd']);
    expect(json.SessionStart).toEqual([{ hooks: [{ type: 'command', command: 'wmem hook --agent droid SessionStart', timeout: 10 }] }]);
    expect(json.PostToolUse[0].matcher).toMatch(/Execute/);
    expect(diagnoseDroidHooks('user', '/h/.factory/hooks.json', plan.after)).toMatchObject({ installed: Object.keys(json), missing: [], problems: [], command: 'wmem hook --agent droid SessionStart' });
  });

  it('property: install then uninstall gives the user file back byte for byte; a second install changes nothing', () => {
    const events = fc.dictionary(fc.constantFrom('Notification', 'Stop', 'PreToolUse', 'SessionStart', 'SubagentStop'), fc.constantFrom('true', 'echo hi', 'my-linter --fix'));
    fc.assert(
      fc.property(events, (user) => {
        const before = userFile(user);
        const installed = planDroidInstall('f', before, request);
        expect(planDroidInstall('f', installed.after, request).changed).toBe(false);
        expect(planDroidUninstall('f', installed.after).after).toBe(before);
      }),
    );
  });

  it('refuses a file it cannot change safely, naming an outer "hooks" key Droid would ignore', () => {
    expect(() => planDroidInstall('f', '{"SessionStart": {}}', request)).toThrow(ConfigShapeError);
    expect(() => planDroidInstall('f', '[', request)).toThrow(/is not valid JSON/);
    expect(() => planDroidInstall('f', '{"hooks": {"SessionStart": []}}', request)).toThrow(/outer "hooks" key, which Droid ignores/);
    expect(diagnoseDroidHooks('user', 'f', '{"hooks": {}}').error).toMatch(/outer "hooks" key/);
  });
});

describe('Droid: a compaction starts a session with a new id', () => {
  it('is traced back through its parents to the first session of the chain', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'wmem-droid-chain-'));
    try {
      const head = (parent: string) => `{"type":"session_start","id":"x","parent":"${parent}"}\n{"type":"compaction_state","removedCount":3}\n`;
      await writeFile(path.join(dir, 'first.jsonl'), '{"type":"session_start","id":"first"}\n');
      await writeFile(path.join(dir, 'second.jsonl'), head('first'));
      await writeFile(path.join(dir, 'third.jsonl'), head('second'));
      await writeFile(path.join(dir, 'fork.jsonl'), '{"type":"session_start","id":"fork","parent":"first"}\n');
      expect(await compactionChain(path.join(dir, 'third.jsonl'))).toEqual({ root: 'first', parentTranscript: path.join(dir, 'second.jsonl') });
      expect(await compactionChain(path.join(dir, 'first.jsonl'))).toBeUndefined();
      // A session with a parent but no compaction (a fork) is a session of its own.
      expect(await compactionChain(path.join(dir, 'fork.jsonl'))).toBeUndefined();
      // The head's bytes are looked at before any JSON: an escaped word is still read as JSON, and a
      // session_start past the head's four lines, or a head of plain lines, is no compaction's.
      await writeFile(path.join(dir, 'escaped.jsonl'), '{"type":"\\u0073ession_start","parent":"first"}\n{"type":"compaction_state"}\n');
      expect(await compactionChain(path.join(dir, 'escaped.jsonl'))).toEqual({ root: 'first', parentTranscript: path.join(dir, 'first.jsonl') });
      await writeFile(path.join(dir, 'late.jsonl'), '{"type":"message"}\n'.repeat(4) + head('first'));
      expect(await compactionChain(path.join(dir, 'late.jsonl'))).toBeUndefined();
      await writeFile(path.join(dir, 'plain.jsonl'), '{"type":"message","id":"m1"}\n'.repeat(5000));
      expect(await compactionChain(path.join(dir, 'plain.jsonl'))).toBeUndefined();
      const input = await droid.completeInput!({ agent: 'droid', event: 'SessionStart', moment: 'session-start', sessionId: 'third', source: 'compact', transcriptPath: path.join(dir, 'third.jsonl') });
      expect(input).toMatchObject({ sessionId: 'first', source: 'resume', transcriptPath: path.join(dir, 'second.jsonl') });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe("Droid: the last turn read back from the transcript's end", () => {
  // What the whole read gave (the last 4 MiB less the line they cut, every line parsed), from the last start on.
  const reference = (text: string, isStart: (l: Record<string, unknown>) => boolean) => {
    const bytes = Buffer.from(text);
    const cut = bytes.length > 4 * 1024 * 1024;
    let tail = bytes.subarray(bytes.length - Math.min(bytes.length, 4 * 1024 * 1024)).toString('utf8');
    if (cut) tail = tail.slice(tail.indexOf('\n') + 1);
    const lines = tail.split('\n').flatMap((l) => {
      try {
        const v = JSON.parse(l) as unknown;
        return l.trim() && v && typeof v === 'object' && !Array.isArray(v) ? [v as Record<string, unknown>] : [];
      } catch {
        return [];
      }
    });
    const at = lines.map(isStart).lastIndexOf(true);
    return at < 0 ? lines : lines.slice(at);
  };
  const isStart = (l: Record<string, unknown>) => l.kind === 'prompt';

  it('gives the lines the whole read gave from the last prompt on, across blocks, long lines and a cut window', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'wmem-droid-tail-'));
    try {
      let seed = 7;
      const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2147483648), seed % n);
      const file = path.join(dir, 't.jsonl');
      for (let round = 0; round < 60; round++) {
        const count = 1 + rand(40);
        const lines = Array.from({ length: count }, (_, i) => {
          const kind = rand(10) === 0 ? 'prompt' : 'other';
          const pad = rand(8) === 0 ? 'é'.repeat(20_000 + rand(60_000)) : 'x'.repeat(rand(3000));
          return rand(25) === 0 ? '{"broken' : rand(30) === 0 ? '' : JSON.stringify({ kind, i, pad });
        });
        const text = lines.join('\n') + (rand(2) ? '\n' : '');
        await writeFile(file, text);
        expect(readTail(file, isStart)).toEqual(reference(text, isStart));
        expect(readTail(file)).toEqual(reference(text, () => false));
      }
      // More than the 4 MiB window: its first line is cut as before; and a window without a newline.
      const big = Array.from({ length: 90 }, (_, i) => JSON.stringify({ kind: i === 3 ? 'prompt' : 'other', i, pad: 'y'.repeat(50_000) })).join('\n') + '\n';
      await writeFile(file, big);
      expect(readTail(file, isStart)).toEqual(reference(big, isStart));
      // The window starts inside a line longer than a block whose cut end happens to be JSON: still cut.
      const cutEnd = JSON.stringify({ kind: 'prompt', pad: 'w'.repeat(70_000) });
      const filler = Array.from({ length: 70 }, (_, i) => JSON.stringify({ kind: 'other', i, pad: 'v'.repeat(52_000) })).join('\n');
      const rest = '\n' + filler + '\n' + 'u'.repeat(4 * 1024 * 1024 - cutEnd.length - 3 - filler.length) + '\n';
      const straddling = 'x'.repeat(1000) + cutEnd + rest;
      await writeFile(file, straddling);
      expect(Buffer.byteLength(straddling) - 4 * 1024 * 1024).toBe(1000);
      expect(readTail(file, isStart)).toEqual(reference(straddling, isStart));
      const endless = 'z'.repeat(5 * 1024 * 1024);
      await writeFile(file, endless);
      expect(readTail(file, isStart)).toEqual(reference(endless, isStart));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('finds the same failed call when lines that cannot matter are dropped unparsed', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'wmem-droid-turn-'));
    try {
      let seed = 11;
      const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2147483648), seed % n);
      const file = path.join(dir, 't.jsonl');
      const escaped = (line: object) => JSON.stringify(line).replace('"user"', '"\\u0075ser"').replace('"tool_use"', '"tool\\u005fuse"');
      let found = 0;
      for (let round = 0; round < 200; round++) {
        const ids = ['c1', 'c2', 'c3'];
        const lines = Array.from({ length: 1 + rand(30) }, (_, i) => {
          const id = ids[rand(3)];
          const pick = rand(9);
          const line =
            pick === 0 ? prompt(`p${i}`) : pick === 1 ? hookMessage : pick <= 3 ? call(id, `cmd ${i}`) : pick <= 5 ? result(id, rand(2) === 0, rand(2) ? FAILED : 'ok é') : pick === 6 ? { type: 'message', id: `t${i}`, message: { role: 'assistant', content: [{ type: 'text', text: 'working "user" ' + 'é'.repeat(rand(10) === 0 ? 40_000 + rand(90_000) : rand(100)) }] } } : { type: 'message', id: `b${i}`, message: { role: 'assistant', content: [call(id, 'both').message.content[0], result(ids[rand(3)], true, FAILED).message.content[0]] } };
          return rand(12) === 0 ? escaped(line) : rand(40) === 0 ? '{"broken' : JSON.stringify(line);
        });
        // Some rounds end their lines with CRLF; long lines (up to ~260 KB) straddle the reader's blocks.
        const newline = rand(4) === 0 ? '\r\n' : '\n';
        const text = lines.join(newline) + (rand(2) ? newline : '');
        await writeFile(file, text);
        const whole = lastTurnFailure(readTail(file, isPrompt));
        expect(lastTurnFailure(readTail(file, isPrompt, mayMatterToTurn))).toEqual(whole);
        if (whole) found++;
      }
      expect(found).toBeGreaterThan(20);
      // A line with none of the words is dropped before any JSON; a call is kept only below a failure.
      expect(mayMatterToTurn(Buffer.from(JSON.stringify(call('c1', 'ls'))), [])).toBe(false);
      expect(mayMatterToTurn(Buffer.from(JSON.stringify(call('c1', 'ls'))), [result('c1', true, FAILED)])).toBe(true);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe("Droid: a transcript_path the transcript rule refuses is never read", () => {
  it('a Stop naming a file that is not a .jsonl, or a .jsonl link to one, finds no failed call in it', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'wmem-droid-path-'));
    try {
      const lines = [prompt('run it'), call('c1', 'npm test'), result('c1', true, FAILED)].map((l) => JSON.stringify(l) + '\n').join('');
      const [other, link, real] = [path.join(dir, 'notes.txt'), path.join(dir, 'link.jsonl'), path.join(dir, 'real.jsonl')];
      await writeFile(other, lines);
      await writeFile(real, lines);
      await symlink(other, link);
      const stop = (transcriptPath: string) => completeDroidInput({ agent: 'droid', event: 'Stop', moment: 'tool-failed', sessionId: 's1', transcriptPath });
      for (const refused of [other, link, `${dir}/../${path.basename(dir)}/real.jsonl`]) expect(await stop(refused), refused).toMatchObject({ moment: 'ignore' });
      expect((await stop(real)).tool).toMatchObject({ name: 'Execute', exitCode: 3 });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
