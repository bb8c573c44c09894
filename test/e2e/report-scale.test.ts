// `wmem report` at scale (the slow tier, test/tiers.ts): a 100,000-message history gives a page
// under 2 MB.
import { afterEach, beforeEach, expect, it } from 'vitest';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { runJson, sandbox, type Sandbox } from '../helpers/cli.js';

let box: Sandbox;
beforeEach(async () => {
  box = await sandbox();
});
afterEach(async () => {
  await box.cleanup();
});

it('keeps a 100,000-message session under 2 MB', async () => {
  const dir = (await runJson(box, ['init'])).path as string;
  const lines: string[] = [];
  for (let i = 0; i < 100_000; i++) {
    lines.push(JSON.stringify({ type: 'assistant', timestamp: new Date(Date.UTC(2026, 10, 1) + i * 1000).toISOString(), message: { id: `m${i}`, role: 'assistant', model: 'claude-sonnet-4-5', content: [{ type: 'text', text: 'ok' }], usage: { input_tokens: 10, cache_read_input_tokens: 1000 + ((i * 37) % 150_000), cache_creation_input_tokens: 0 } } }));
  }
  await writeFile(path.join(dir, 'messages.jsonl'), lines.join('\n') + '\n');
  const { file, bytes } = await runJson(box, ['report'], { timeout: 60_000 });
  expect(bytes).toBeLessThan(2 * 1024 * 1024);
  expect(await readFile(file, 'utf8')).toContain('100,000 requests');
});
