import { configDefaults, defineConfig } from 'vitest/config';
import { reporters } from './reporters.js';
import { SLOW, UNIT } from './tiers.js';

// `npm run test:unit`: the unit and property tests, on the TypeScript sources (no build), in seconds;
// the slow ones (test/tiers.ts) run in `npm run test:slow`.
export default defineConfig({
  test: {
    root: new URL('..', import.meta.url).pathname,
    include: UNIT,
    exclude: [...configDefaults.exclude, ...SLOW],
    testTimeout: 60_000,
    hookTimeout: 30_000,
    maxWorkers: 2,
    reporters: reporters(),
  },
});
