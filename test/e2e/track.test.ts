// End-to-end: `wmem track` reads tool events (generic and Claude Code's) into hot state, shown
// in <session_state>; real tool outputs open errors and a passing run clears them.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readFile } from 'node:fs/promises';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT, sandbox, runJson, type Sandbox } from '../helpers/cli.js';

let box: Sandbox;
let dir: string;
beforeEach(async () => {
  box = await sandbox();
  dir = (await runJson(box, ['init'])).path;
});
afterEach(async () => {
  await box.cleanup();
});

const track = (event: unknown) => box.run(['track'], { input: JSON.stringify(event) });
const fixture = (name: string) => readFileSync(path.join(ROOT, 'test/fixtures/tool-outputs', name), 'utf8');
const memory = async () => String((await box.run(['context', '--part', 'memory'])).stdout);

describe('track', () => {
  it('keeps active files from the generic shape and Claude Code input, relative to the project', async () => {
    expect((await track({ tool: 'read', files: ['src/a.ts'] })).exitCode).toBe(0);
    expect((await track({ hook_event_name: 'PostToolUse', tool_name: 'Edit', tool_input: { file_path: path.join(box.project, 'src/b.ts') }, tool_response: {} })).exitCode).toBe(0);
    const text = await memory();
    expect(text).toMatch(/<session_state>\nActive files:\n- src\/b\.ts \(edit\)\n- src\/a\.ts \(read\)\n<\/session_state>/);
    const state = JSON.parse(await readFile(path.join(dir, 'state/hot.json'), 'utf8'));
    expect(state.version).toBe(1);
  });

  it('opens a typecheck error on a failing tsc and clears it when tsc passes', async () => {
    const opened = await runJson(box, ['track'], { input: JSON.stringify({ tool: 'bash', command: 'npx tsc --noEmit', exit_code: 2, output: fixture('tsc.txt') }) });
    expect(opened.opened).toMatchObject({ category: 'typecheck', fingerprint: expect.stringMatching(/^[0-9a-f]{12}$/) });
    expect(await memory()).toMatch(/Open errors:\n- \[typecheck\] bad\.ts\(1,14\): error TS2322/);
    // Another category passing does not clear it; a missing exit code changes nothing.
    await track({ tool: 'bash', command: 'npx vitest run', exit_code: 0 });
    await track({ tool: 'bash', command: 'npx tsc --noEmit' });
    expect(await memory()).toContain('[typecheck]');
    const cleared = await runJson(box, ['track'], { input: JSON.stringify({ tool: 'bash', command: 'npx tsc --noEmit', exit_code: 0, output: '' }) });
    expect(cleared.cleared).toHaveLength(1);
    expect(await memory()).not.toContain('Open errors');
  });

  it('reads a PostToolUseFailure (error text, non-zero exit) and ignores an interrupt', async () => {
    await track({ hook_event_name: 'PostToolUseFailure', tool_name: 'Bash', tool_input: { command: 'npx vitest run' }, error: `Exit code 1\n${fixture('vitest.txt')}` });
    expect(await memory()).toMatch(/- \[test\] FAIL sum\.test\.ts > adds two numbers/);
    await track({ hook_event_name: 'PostToolUseFailure', tool_name: 'Bash', tool_input: { command: 'npx tsc' }, error: 'interrupted by user', is_interrupt: true });
    expect(await memory()).not.toContain('[typecheck]');
  });

  it('never stores a secret from an output or a command', async () => {
    await track({ tool: 'bash', command: 'curl -H "x-api-key: sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123" https://api', exit_code: 1, output: 'Error: 401 unauthorized for sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123\n    at request (/app/client.js:10:5)' });
    const stored = await readFile(path.join(dir, 'state/hot.json'), 'utf8');
    expect(stored).not.toContain('abcdefghijklmnopqrstuvwxyz0123');
    expect(await memory()).not.toContain('abcdefghijklmnopqrstuvwxyz0123');
  });

  it.each([
    ['not JSON', '{tool: edit', /not valid JSON/],
    ['empty', '', /no tool event/],
    ['not an object', '[1,2]', /must be a JSON object/],
  ])('refuses input that is %s with exit 2 and stores nothing', async (_what, input, message) => {
    const r = await box.run(['track'], { input: input as string });
    expect(r.exitCode).toBe(2);
    expect(String(r.stderr)).toMatch(message as RegExp);
    expect(existsSync(path.join(dir, 'state/hot.json'))).toBe(false);
  });

  it('says where input that is not JSON broke, never what it says (it may start with a secret)', async () => {
    const r = await box.run(['track'], { input: 'sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123 then a tool output' });
    expect(r.exitCode).toBe(2);
    expect(String(r.stderr)).toMatch(/the tool event is not valid JSON/);
    expect(String(r.stderr)).not.toContain('sk-ant');
  });
});
