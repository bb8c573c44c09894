// SessionEnd's consolidation for the hook entries, which are CommonJS files in dist/fast/ (the
// full one, fast-hook.cjs, and the compaction and session-end first stage, first-end*.cjs).
import { fileURLToPath } from 'node:url';
import type { ConsolidationModule } from '../app/env.js';

/**
 * The consolidation from its own CommonJS build beside the entry (dist/fast/consolidate.cjs, the
 * build:end script): bundled into a hook entry it would cost every hook its compiling, and as the
 * full build's ES module it costs the ES module loader and that build's module graph.
 */
export function consolidationBeside(): Promise<ConsolidationModule> {
  return Promise.resolve(require(fileURLToPath(new URL('./consolidate.cjs', import.meta.url))) as ConsolidationModule);
}
