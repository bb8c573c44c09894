// The prompt after a tool call that changed the session state alone writes the render cache by
// splicing: the file's stable head (everything before the session state's block) copied as read,
// the tail serialized anew (store/context-cache.ts Head). A space planted in the head shows which
// write happened: a splice keeps it, a whole write does not. Without keepWhole keeping the blocks
// read as those very objects (app/context-recall.ts), every write here would be whole: the answers
// stay right (test/e2e/prompt-after-change.test.ts holds them), only the saving is lost unseen.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { readFile, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { sandbox, type Sandbox } from '../helpers/cli.js';

let box: Sandbox;
const SID = 'cache-splice-1a2b3c4d';
const input = (event: string, fields: Record<string, unknown> = {}) => JSON.stringify({ session_id: SID, cwd: box.project, hook_event_name: event, ...fields });

async function cacheFile(): Promise<string> {
  const [project] = await readdir(path.join(box.home, 'sessions'));
  return path.join(box.home, 'sessions', project!, SID, 'state', 'context-cache.json');
}

async function hook(event: string, fields: Record<string, unknown>): Promise<void> {
  const result = await box.run(['hook', event], { input: input(event, fields) });
  expect(result.exitCode, `${event}: ${result.stderr}`).toBe(0);
}

beforeAll(async () => {
  box = await sandbox();
  await hook('SessionStart', { source: 'startup' });
});
afterAll(() => box?.cleanup());

it('the prompt after an edit splices the head as read and writes a cache that reads back whole', async () => {
  const file = await cacheFile();
  const writes: string[] = [];
  for (let n = 0; n < 4; n++) {
    await hook('UserPromptSubmit', { prompt: `p${n}` });
    const text = await readFile(file, 'utf8');
    expect(text.startsWith('{"version":3,')).toBe(true);
    await writeFile(file, text.replace('{"version":3,', '{"version":3, '), { mode: 0o600 });
    const edited = path.join(box.project, `src/f${n}.ts`);
    await hook('PostToolUse', { tool_name: 'Edit', tool_input: { file_path: edited, old_string: 'a', new_string: 'b' }, tool_response: { success: true }, tool_use_id: `e${n}` });
    await hook('UserPromptSubmit', { prompt: `q${n}` });
    const after = await readFile(file, 'utf8');
    writes.push(after.startsWith('{"version":3, ') ? 'spliced' : 'whole');
    // The spliced file is whole JSON, its session state last among the blocks and naming the edit.
    const cache = JSON.parse(after);
    expect(Object.keys(cache.memory.blocks).at(-1)).toBe('session_state');
    expect(JSON.stringify(cache.memory.blocks.session_state)).toContain(`f${n}.ts`);
  }
  expect(writes).toEqual(['spliced', 'spliced', 'spliced', 'spliced']);
});
