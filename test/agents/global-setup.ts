// Runs once before the real-client suite: installs the pinned clients (cached outside the clone)
// and hands their binaries' paths to the tests.
import type { TestProject } from 'vitest/node';
import { ensureClaude } from './helpers/install-claude.js';
import { ensureCodex } from './helpers/install-codex.js';
import { ensureCopilot } from './helpers/install-copilot.js';
import { ensureGemini } from './helpers/install-gemini.js';
import { ensureOpenCode } from './helpers/install-opencode.js';
import { ensureQwen } from './helpers/install-qwen.js';
import { ensureDroid } from './helpers/install-droid.js';
import { ensureKilo } from './helpers/install-kilo.js';
import { ensureAmp } from './helpers/install-amp.js';

declare module 'vitest' {
  export interface ProvidedContext {
    claudeBin: string;
    codexBin: string;
    /** Gemini CLI's entry script (bundle/gemini.js), run with node. */
    geminiEntry: string;
    opencodeBin: string;
    copilotBin: string;
    /** Qwen Code's entry script (cli-entry.js), run with node. */
    qwenEntry: string;
    droidBin: string;
    kiloBin: string;
    ampBin: string;
  }
}

export default async function setup(project: TestProject): Promise<void> {
  const log = (line: string) => process.stderr.write(`[test:agents] ${line}\n`);
  project.provide('claudeBin', await ensureClaude(log));
  project.provide('codexBin', await ensureCodex(log));
  project.provide('geminiEntry', await ensureGemini(log));
  project.provide('opencodeBin', await ensureOpenCode(log));
  project.provide('copilotBin', await ensureCopilot(log));
  project.provide('qwenEntry', await ensureQwen(log));
  project.provide('droidBin', await ensureDroid(log));
  project.provide('kiloBin', await ensureKilo(log));
  project.provide('ampBin', await ensureAmp(log));
}
