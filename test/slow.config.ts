import { defineConfig } from 'vitest/config';
import { reporters } from './reporters.js';
import { SLOW } from './tiers.js';

// `npm run test:slow`: kill loops and scale tests of the built CLI (test/tiers.ts), one file at a
// time, since each loads the machine on its own.
export default defineConfig({
  test: {
    root: new URL('..', import.meta.url).pathname,
    include: SLOW,
    testTimeout: 300_000,
    hookTimeout: 120_000,
    maxWorkers: 1,
    reporters: reporters(),
  },
});
