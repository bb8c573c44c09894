// Runs once before the real-client suite: installs the pinned Claude Code (cached outside the
// clone) and hands its binary's path to the tests.
import type { TestProject } from 'vitest/node';
import { ensureClaude } from './helpers/install-claude.js';

declare module 'vitest' {
  export interface ProvidedContext {
    claudeBin: string;
  }
}

export default async function setup(project: TestProject): Promise<void> {
  const bin = await ensureClaude((line) => process.stderr.write(`[test:agents] ${line}\n`));
  project.provide('claudeBin', bin);
}
