import { defineConfig } from 'vitest/config';
import { reporters } from '../reporters.js';

// The fault suite (npm run test:faults): real processes killed at random instants, a full disk,
// symlinks out of home, secrets through every door. Each test prints what it tried and lost.
export default defineConfig({
  test: {
    root: new URL('../..', import.meta.url).pathname,
    include: ['test/faults/**/*.test.ts'],
    testTimeout: 300_000,
    hookTimeout: 60_000,
    maxWorkers: 1,
    reporters: reporters(),
  },
});
