import { defineConfig } from 'vitest/config';
import { reporters } from '../reporters.js';

// The browser suite (npm run test:browser): reports made by the built CLI from real fixtures,
// opened from disk in Debian's Chromium (/usr/bin/chromium; test/browser/ensure-chromium.sh
// installs it) driven by playwright-core. Never a browser a test tool downloads.
export default defineConfig({
  test: {
    root: new URL('../..', import.meta.url).pathname,
    include: ['test/browser/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    maxWorkers: 1,
    reporters: reporters(),
  },
});
