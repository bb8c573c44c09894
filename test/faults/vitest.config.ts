import { defineConfig } from 'vitest/config';
import { reporters } from '../reporters.js';

// The fault suite (npm run test:faults): real processes killed at random instants, a full disk,
// symbolic links out of the home planted for every command, and a table of secrets fed through
// every door. Each file prints what it tried and what was lost or leaked (always 0).
export default defineConfig({
  test: {
    root: new URL('../..', import.meta.url).pathname,
    include: ['test/faults/**/*.test.ts'],
    testTimeout: 300_000,
    hookTimeout: 120_000,
    maxWorkers: 1,
    reporters: reporters(),
  },
});
