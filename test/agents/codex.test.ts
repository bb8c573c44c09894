// The real Codex CLI (pinned, installed by the suite's setup) against a loopback mock of the
// Responses API. First what the client itself does with hooks (probe hooks that record their
// stdin), then wmem's hooks installed by the built wmem.
import { afterAll, describe, expect, inject, it } from 'vitest';
import { CodexWorld } from './helpers/codex-world.js';

const codexBin = inject('codexBin');

async function withWorld<T>(fn: (world: CodexWorld) => Promise<T>): Promise<T> {
  const world = await CodexWorld.create(codexBin);
  try {
    return await fn(world);
  } finally {
    await world.cleanup();
  }
}

describe('Codex CLI 0.169.0: the hooks as the client runs them', () => {
  it('fires each event with the fields wmem reads; a failed command shows only in the rollout', () =>
    withWorld(async (world) => {
      await world.probeHooks();
      const run = await world.codex('List it: [[exec: ls /nonexistent-wmem-dir]]');
      expect(run.exitCode).toBe(0);
      const records = await world.probeRecords();
      const byEvent = new Map(records.map((r) => [r.input.hook_event_name, r.input]));
      expect(records.map((r) => r.input.hook_event_name)).toEqual(['SessionStart', 'UserPromptSubmit', 'PreToolUse', 'PostToolUse', 'Stop', 'SessionEnd']);
      const rollout = world.rolloutPath(run.threadId);
      for (const r of records) {
        expect(r.input).toMatchObject({ session_id: run.threadId, transcript_path: rollout, cwd: world.project });
        // No session id in the environment: the hook learns it from stdin only.
        expect(Object.keys(r.env).sort()).toEqual(['CODEX_HOME']);
      }
      expect(byEvent.get('SessionStart')).toMatchObject({ source: 'startup' });
      expect(byEvent.get('UserPromptSubmit')).toMatchObject({ prompt: 'List it: [[exec: ls /nonexistent-wmem-dir]]' });
      const post = byEvent.get('PostToolUse');
      expect(post).toMatchObject({ tool_name: 'Bash', tool_input: { command: 'ls /nonexistent-wmem-dir' } });
      // The tool response is the output only: nothing says the command failed...
      expect(typeof post.tool_response).toBe('string');
      expect(post.tool_response).toMatch(/No such file or directory/);
      expect(post.tool_response).not.toMatch(/exit/i);
      // ...but the rollout already holds the finished command, keyed by the hook's tool_use_id.
      const lines = await world.rollout(run.threadId);
      const done = lines.find((l) => l.type === 'event_msg' && l.payload?.type === 'item_completed' && l.payload.item?.id === post.tool_use_id);
      expect(done?.payload.item).toMatchObject({ type: 'CommandExecution', status: 'failed', exit_code: 2 });
      expect(byEvent.get('SessionEnd')).toMatchObject({ reason: 'other' });
    }));

  it('runs no hook without trust', () =>
    withWorld(async (world) => {
      await world.probeHooks();
      const run = await world.codex('Hello.', { trusted: false });
      expect(run.exitCode).toBe(0);
      expect(await world.probeRecords()).toEqual([]);
      expect(world.mock.responseRequests().length).toBe(1);
    }));
});
