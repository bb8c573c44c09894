// The test tiers (test/tiers.ts) split the suite without losing a test: every file the slow tier
// names exists and is one the main suite would otherwise run, so CI (`npm test`, then
// `npm run test:slow`) runs each test file exactly once.
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';
import { SLOW } from '../tiers.js';

const testFiles = (folder: string): string[] =>
  readdirSync(path.join(ROOT, folder), { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.test.ts'))
    .map((name) => `${folder}/${name.split(path.sep).join('/')}`);

it('names only existing test files of the unit, property and end-to-end folders, each once', () => {
  const suite = new Set(['test/unit', 'test/property', 'test/e2e'].flatMap(testFiles));
  expect(SLOW.filter((file) => !existsSync(path.join(ROOT, file)) || !suite.has(file))).toEqual([]);
  expect(new Set(SLOW).size).toBe(SLOW.length);
  expect(suite.size - SLOW.length).toBeGreaterThan(60);
});
