import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readFile, stat } from 'node:fs/promises';
import { sandbox, runJson, type Sandbox } from '../helpers/cli.js';

let box: Sandbox;
beforeEach(async () => {
  box = await sandbox();
});
afterEach(async () => {
  await box.cleanup();
});

const listing = Array.from({ length: 300 }, (_, i) => `./src/components/widget${i}.tsx`).join('\n') + '\n';

describe('wmem prune', () => {
  it('cuts a file listing, keeps the full text in cache/tool-outputs (0600) and points at it', async () => {
    await box.run(['init']);
    const r = await box.run(['prune', '--mode', 'normal'], { input: listing });
    expect(r.exitCode).toBe(0);
    const out = String(r.stdout).split('\n');
    expect(out.slice(0, 15)).toEqual(listing.split('\n').slice(0, 15));
    expect(out).toContain('… [270 entries omitted: 270 .tsx]');
    const pointer = out.find((l) => l.startsWith('[wmem: listing output cut from 300 lines; full text: '))!;
    const file = pointer.match(/full text: (.*)\]$/)![1]!;
    expect(file).toContain('/cache/tool-outputs/');
    expect(await readFile(file, 'utf8')).toBe(listing);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
  });

  it('keeps error lines of a log', async () => {
    const lines = Array.from({ length: 120 }, (_, i) => `[2026-03-01 10:00:${String(i % 60).padStart(2, '0')}] INFO step ${i} ok`);
    lines[60] = '[2026-03-01 10:01:00] ERROR could not connect to db: ECONNREFUSED';
    const data = await runJson(box, ['prune', '--mode', 'hyper'], { input: lines.join('\n') });
    expect(data).toMatchObject({ pruned: true, kind: 'log', mode: 'hyper', totalLines: 120, errorLines: 1 });
    expect(data.text).toContain('ERROR could not connect to db: ECONNREFUSED');
    expect(data.text.split('\n').length).toBeLessThan(20);
  });

  it('passes short output through byte for byte (no newline added)', async () => {
    const r = await box.run(['prune'], { input: 'total 3\na.txt\nb.txt' });
    expect(r.exitCode).toBe(0);
    expect(String(r.stdout)).toBe('total 3\na.txt\nb.txt');
  });

  it('auto follows the session pressure (high → hyper); without a session it is normal', async () => {
    const noSession = await runJson(box, ['prune'], { input: listing });
    expect(noSession.mode).toBe('normal');
    await box.run(['init', '--tokens-max', '1000']);
    const session = await runJson(box, ['show', 'messages']);
    const { writeFile } = await import('node:fs/promises');
    await writeFile(session.file, JSON.stringify({ type: 'assistant', message: { id: 'm', role: 'assistant', content: [], usage: { input_tokens: 950 } } }) + '\n');
    const high = await runJson(box, ['prune'], { input: listing });
    expect(high).toMatchObject({ mode: 'hyper', pressure: 'high', pruned: true });
    const forty = Array.from({ length: 40 }, (_, i) => `f${i}.ts`).join('\n');
    expect((await runJson(box, ['prune', '--mode', 'normal'], { input: forty })).pruned).toBe(false);
    expect((await runJson(box, ['prune'], { input: forty })).pruned).toBe(true);
  });
});
