// The answer cache's keys (src/store/answers.ts) and its settling rule (answers-save.ts).
import { describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync, rmSync, renameSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { envKey, signature } from '../../src/store/answers.js';
import { settled } from '../../src/store/answers-save.js';

describe('the answer cache', () => {
  it('a file replaced by rename, grown, or gone has another signature', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'wmem-answers-'));
    try {
      const file = path.join(dir, 'overview.md');
      expect(signature(file)).toBe('-');
      writeFileSync(file, 'abc');
      const first = signature(file);
      writeFileSync(path.join(dir, 'next'), 'abc');
      renameSync(path.join(dir, 'next'), file);
      const renamed = signature(file);
      expect(renamed).not.toBe(first);
      writeFileSync(file, 'abcd');
      expect(signature(file)).not.toBe(renamed);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('keys on every variable of the environment, in any order', () => {
    expect(envKey({ A: '1', B: '2' })).toBe(envKey({ B: '2', A: '1' }));
    expect(envKey({ A: '1', B: '2' })).not.toBe(envKey({ A: '1', B: '3' }));
    expect(envKey({ A: '1' })).not.toBe(envKey({ A: '1', WMEM_TOKENS_MAX: '' }));
  });

  it('keeps an answer only once its files stood unchanged for the settling time', () => {
    const ns = (ms: number) => `1:2:${BigInt(ms) * 1_000_000n}:${BigInt(ms) * 1_000_000n}`;
    expect(settled([['a', ns(1_000)], ['b', '-']], 3_000, 2_000)).toBe(true);
    expect(settled([['a', ns(1_000)], ['b', ns(2_500)]], 3_000, 2_000)).toBe(false);
    expect(settled([['a', ns(2_999)]], 3_000, 0)).toBe(true);
  });
});
