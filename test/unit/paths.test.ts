import path from 'node:path';
import os from 'node:os';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeCwd, isValidSessionId, joinName, newSessionId, projectFolderCandidate, resolveHome } from '../../src/store/paths.js';

describe('encodeCwd', () => {
  it.each([
    ['/Users/genius/project/ai', '--Users-genius-project-ai--'],
    ['/a-b/c', '--a-b-c--'],
    ['/a/b-c', '--a-b-c--'],
    ['C:\\Users\\me\\app', '--C--Users-me-app--'],
    ['/', '----'],
  ])('%s → %s', (input, expected) => {
    expect(encodeCwd(input)).toBe(expected);
  });

  it('numbers colliding folders with names no path can encode to', () => {
    expect(projectFolderCandidate('--a-b-c--', 0)).toBe('--a-b-c--');
    expect(projectFolderCandidate('--a-b-c--', 1)).toBe('--a-b-c--2');
    expect(projectFolderCandidate('--a-b-c--', 1).endsWith('--')).toBe(false);
  });
});

describe('session ids', () => {
  it.each(['abc', 'a.b_c-d', '0', 'x'.repeat(128), 'ef958aa1-0e93-49f0-bb71-150f63befcd1'])('accepts %s', (id) => {
    expect(isValidSessionId(id)).toBe(true);
  });
  it.each(['', '.', '..', '../x', 'a/b', 'a b', 'x'.repeat(129), 'é', 'a\\b', 'a\0b'])('refuses %j', (id) => {
    expect(isValidSessionId(id)).toBe(false);
  });
  it('generates valid ids that sort by creation time', () => {
    const times = [0, 1, 999, 1000, 60_000, 86_400_000].map((ms) => new Date(Date.UTC(2026, 0, 1) + ms));
    const ids = times.map(newSessionId);
    for (const id of ids) expect(isValidSessionId(id)).toBe(true);
    expect([...ids].sort()).toEqual(ids);
  });
});

describe('resolveHome', () => {
  it('prefers the flag, then WMEM_HOME, then ~/.ai', () => {
    expect(resolveHome('/x', { WMEM_HOME: '/y' })).toBe('/x');
    expect(resolveHome(undefined, { WMEM_HOME: '/y' })).toBe('/y');
    expect(resolveHome(undefined, {})).toMatch(/[\\/]\.ai$/);
  });

  it("takes ~ from the environment's $HOME, as os.homedir() does for the process's own (a hook then never loads node:os)", () => {
    expect(resolveHome(undefined, { HOME: '/h' })).toBe(path.resolve('/h/.ai'));
    expect(resolveHome('~/m', { HOME: '/h' })).toBe(path.resolve('/h/m'));
    expect(resolveHome(undefined, { HOME: '' })).toBe(path.join(os.homedir(), '.ai'));
  });
});

describe('version', () => {
  it('matches package.json', async () => {
    const { VERSION } = await import('../../src/options.js');
    const { readFileSync } = await import('node:fs');
    const { ROOT } = await import('../helpers/cli.js');
    expect(VERSION).toBe(JSON.parse(readFileSync(`${ROOT}/package.json`, 'utf8')).version);
  });
});

describe('joinName', () => {
  // Paths made of the parts that decide normal form: separators, `.`, `..`, plain names.
  const part = fc.constantFrom('', '.', '..', 'a', 'b.c', '.d', 'e..', '...', '-x-', 'é', ' ');
  const text = fc.array(fc.oneof(part, fc.constant('/')), { maxLength: 8 }).map((xs) => xs.join(''));

  it('is path.join, for every folder and name', () => {
    fc.assert(
      fc.property(text, text, (dir, name) => {
        expect(joinName(dir, name)).toBe(path.join(dir, name));
        expect(joinName(`/${dir}`, name)).toBe(path.join(`/${dir}`, name));
        expect(joinName(path.join('/', dir), name)).toBe(path.join('/', dir, name));
      }),
      { numRuns: 3000 },
    );
  });

  it.each([
    ['/home/u/.ai/sessions', 'state'],
    ['/', 'a'],
    ['/a/', 'b'],
    ['/a//b', 'c'],
    ['/a/./b', 'c'],
    ['/a/../b', 'c'],
    ['/a/.', 'b'],
    ['/a/..', 'b'],
    ['a/b', 'c'],
    ['/a', '../b'],
    ['/a', '.'],
    ['/a', ''],
    ['/a', 'b/c'],
  ])('%j + %j', (dir, name) => {
    expect(joinName(dir, name)).toBe(path.join(dir, name));
  });
});
