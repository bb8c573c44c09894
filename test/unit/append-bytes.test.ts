// appendBytes (a compaction's carried bytes) goes through the store's durable append: raw bytes
// as they are, no link followed, and nothing left half written.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { appendBytes } from '../../src/history/stream/durable.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'wmem-append-bytes-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('appendBytes', () => {
  it('appends the bytes as they are (no newline added, no re-encoding), creating a private file', async () => {
    const file = path.join(dir, 'messages.jsonl');
    writeFileSync(file, '{"a":1}'); // no newline at the end: the bytes carried continue it
    await appendBytes(file, Buffer.from([0x2c, 0xff, 0x0a]));
    expect([...readFileSync(file)]).toEqual([...Buffer.from('{"a":1}'), 0x2c, 0xff, 0x0a]);
    const fresh = path.join(dir, 'new.jsonl');
    await appendBytes(fresh, Buffer.from('x\n'));
    expect(readFileSync(fresh, 'utf8')).toBe('x\n');
    expect(statSync(fresh).mode & 0o777).toBe(0o600);
  });

  it('follows no symbolic link: the file it points at is left as it was', async () => {
    const outside = path.join(dir, 'outside.txt');
    writeFileSync(outside, 'theirs\n');
    const file = path.join(dir, 'messages.jsonl');
    symlinkSync(outside, file);
    await expect(appendBytes(file, Buffer.from('carried\n'))).rejects.toThrow(/link/i);
    expect(readFileSync(outside, 'utf8')).toBe('theirs\n');
  });
});
