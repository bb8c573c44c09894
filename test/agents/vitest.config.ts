import { defineConfig } from 'vitest/config';
import { reporters } from '../reporters.js';

// The real-client suite (npm run test:agents): each agent's own CLI, pinned, run headless against
// a loopback mock of its model API that the test starts. No network, no keys.
export default defineConfig({
  test: {
    root: new URL('../..', import.meta.url).pathname,
    include: ['test/agents/**/*.test.ts'],
    // Installs the pinned client once (cached outside the clone) before any test runs.
    globalSetup: ['test/agents/global-setup.ts'],
    testTimeout: 300_000,
    hookTimeout: 600_000,
    maxWorkers: 1,
    reporters: reporters(),
  },
});
