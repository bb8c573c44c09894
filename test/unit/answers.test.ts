// The answer cache's keys (src/store/answers.ts) and its settling rule (answers-save.ts).
import { describe, expect, it } from 'vitest';
import { chmodSync, mkdtempSync, writeFileSync, rmSync, renameSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ANSWERS_VERSION, PRESENT, answerKey, answersFile, envKey, folderId, lookupAnswer, presence, signature } from '../../src/store/answers.js';
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

  it('a link is signed as itself and its target: a dangling link is not the absence of a file', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'wmem-answers-'));
    try {
      const off = path.join(dir, 'off');
      expect(signature(off)).toBe('-');
      symlinkSync(path.join(dir, 'nowhere'), off);
      expect(signature(off)).not.toBe('-');
      expect(presence(off)).toBe(PRESENT);
      expect(settled([['off', signature(off)]], Date.now() + 10_000, 2_000)).toBe(true);
      expect(settled([['off', PRESENT]], 0, 2_000)).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('answers only from a cache file of this user that nobody else may write, with inputs listed', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'wmem-answers-'));
    try {
      const input = path.join(dir, 'overview.md');
      writeFileSync(input, 'x');
      const key = { argv: ['context'], version: 'v', cwd: dir, env: { A: '1' } };
      const entry = (inputs: [string, string][], state: string) => ({ version: 'v', cwd: dir, env: envKey(key.env), inputs, state, stdout: 'hello', stderr: '' });
      const write = (inputs: [string, string][], mode: number, state = folderId(dir)) => {
        writeFileSync(answersFile(dir), JSON.stringify({ v: ANSWERS_VERSION, entries: { [answerKey(key.argv, envKey(key.env))]: entry(inputs, state) } }));
        chmodSync(answersFile(dir), mode);
      };
      write([[input, signature(input)]], 0o600);
      expect(lookupAnswer(dir, key)?.stdout).toBe('hello');
      write([], 0o600);
      expect(lookupAnswer(dir, key)).toBeUndefined();
      // Written in another state folder (a copied session, a copied cache): its inputs still match, the folder not.
      write([[input, signature(input)]], 0o600, folderId(os.tmpdir()));
      expect(lookupAnswer(dir, key)).toBeUndefined();
      write([[input, signature(input)]], 0o666);
      expect(lookupAnswer(dir, key)).toBeUndefined();
      write([[input, signature(input)]], 0o600);
      renameSync(answersFile(dir), path.join(dir, 'elsewhere.json'));
      symlinkSync(path.join(dir, 'elsewhere.json'), answersFile(dir));
      expect(lookupAnswer(dir, key)).toBeUndefined();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
