import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { sandbox, runJson, type Sandbox } from '../helpers/cli.js';

let box: Sandbox;
beforeEach(async () => {
  box = await sandbox();
});
afterEach(async () => {
  await box.cleanup();
});

describe('wmem init', () => {
  it('creates the tree with private modes and prints id and path', async () => {
    const result = await box.run(['init']);
    expect(result.exitCode).toBe(0);
    const [id, dir] = String(result.stdout).split('\n');
    expect(id).toMatch(/^\d{8}T\d{9}Z-[0-9a-f]{6}$/);
    expect(dir).toBe(path.join(box.home, 'sessions', `--${box.project.slice(1).replace(/\//g, '-')}--`, id));
    for (const file of ['meta.json', 'messages.jsonl', 'working-memory/overview.md', 'working-memory/scratch.md']) {
      expect((await stat(path.join(dir, file))).mode & 0o777).toBe(0o600);
    }
    for (const folder of ['', 'working-memory', 'working-memory/detail', 'working-memory/archive']) {
      expect((await stat(path.join(dir, folder))).mode & 0o777).toBe(0o700);
    }
  });
});
