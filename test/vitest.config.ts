import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    root: new URL('..', import.meta.url).pathname,
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // e2e tests spawn the built CLI; two cores, so keep parallelism modest.
    maxWorkers: 2,
  },
});
