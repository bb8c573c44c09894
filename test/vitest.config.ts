import { configDefaults, defineConfig } from 'vitest/config';
import { reporters } from './reporters.js';
import { SLOW, UNIT } from './tiers.js';

// `npm test`: unit, property and end-to-end tests; the slow tier (test/tiers.ts) runs apart.
export default defineConfig({
  test: {
    root: new URL('..', import.meta.url).pathname,
    include: [...UNIT, 'test/e2e/**/*.test.ts'],
    exclude: [...configDefaults.exclude, ...SLOW],
    // Generous: a CI machine may be slower than this one; a test that hangs still fails. Only a
    // hang: nothing here is timed, and a test of fixed work (property runs, process starts) took
    // 15 times longer at a heavy load than on a quiet machine (4 s to over 60 s), as the other
    // tiers allow for.
    testTimeout: 300_000,
    hookTimeout: 30_000,
    // e2e tests spawn the built CLI; two cores, so keep parallelism modest.
    maxWorkers: 2,
    reporters: reporters(),
  },
});
