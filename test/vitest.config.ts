import { defineConfig } from 'vitest/config';
import { reporters } from './reporters.js';

export default defineConfig({
  test: {
    root: new URL('..', import.meta.url).pathname,
    include: ['test/{unit,e2e,property}/**/*.test.ts'],
    // Generous: a CI machine may be slower than this one; a test that hangs still fails.
    testTimeout: 60_000,
    hookTimeout: 30_000,
    // e2e tests spawn the built CLI; two cores, so keep parallelism modest.
    maxWorkers: 2,
    reporters: reporters(),
  },
});
