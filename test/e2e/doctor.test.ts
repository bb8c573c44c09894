// End-to-end: `wmem doctor` says whether the hooks are installed, whether their command runs,
// and when each event last fired.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runJson, sandbox, type Sandbox } from '../helpers/cli.js';

let box: Sandbox;
beforeEach(async () => {
  box = await sandbox();
});
afterEach(async () => {
  await box.cleanup();
});

describe('doctor', () => {
  it('says the hooks are not installed (exit 1)', async () => {
    const result = await box.run(['doctor']);
    expect(result.exitCode).toBe(1);
    expect(String(result.stdout)).toMatch(/not installed: run 'wmem install claude'/);
  });

  it('after install: installed, the command runs, and when each hook last fired', async () => {
    await runJson(box, ['install', 'claude']);
    let report = await runJson(box, ['doctor']);
    expect(report.ok).toBe(true);
    expect(report.command.runs).toBe(true);
    expect(report.fired.SessionStart).toBeNull();
    await box.run(['hook', 'SessionStart'], { input: JSON.stringify({ session_id: 'd-1', cwd: box.project, hook_event_name: 'SessionStart', source: 'startup' }) });
    await box.run(['hook', 'UserPromptSubmit'], { input: '{oops' });
    report = await runJson(box, ['doctor']);
    expect(report.fired.SessionStart).toMatchObject({ ok: true, session: 'd-1' });
    expect(report.fired.UserPromptSubmit).toMatchObject({ ok: false });
    expect(report.recentErrors.join('\n')).toMatch(/not JSON/);
    const text = String((await box.run(['doctor'])).stdout);
    expect(text).toMatch(/SessionStart\s+\d+s ago ok/);
    expect(text).toMatch(/UserPromptSubmit\s+\d+s ago FAILED/);
  });

  it('a hook command that does not run (exit 1)', async () => {
    await runJson(box, ['install', 'claude'], { env: { WMEM_HOOK_COMMAND: '/no/such/wmem' } });
    const result = await box.run(['doctor', '--json']);
    expect(result.exitCode).toBe(1);
    const report = JSON.parse(String(result.stdout));
    expect(report.command.runs).toBe(false);
    expect(report.problems.join('\n')).toMatch(/does not run/);
  });

  it('warns when the hooks are installed in two scopes (each would run twice)', async () => {
    await runJson(box, ['install', 'claude']);
    await runJson(box, ['install', 'claude', '--scope', 'user']);
    const result = await box.run(['doctor', '--json']);
    expect(result.exitCode).toBe(1);
    expect(JSON.parse(String(result.stdout)).problems.join('\n')).toMatch(/in 2 settings files .* runs twice/);
  });
});
