// What every use case is given besides its own options: where things live and the clock. The
// CLI's RunContext is one (it adds printing); the hook driver and, later, the MCP server build
// their own. Use cases return result objects: no printing, no exit codes, no CLI library.
import type { Where } from '../store/session.js';

/** What SessionEnd calls to consolidate (src/ops/consolidate/consolidate.ts). */
export type ConsolidationModule = Pick<typeof import('../ops/consolidate/consolidate.js'), 'consolidateSession'>;

export interface AppEnv extends Where {
  now: () => Date;
  /**
   * A diagnostic as it happens, in long operations where it must not wait for the result (the
   * CLI prints it on stderr; other hosts may log or drop it). Results carry the rest.
   */
  warn?: (message: string) => void;
  /**
   * Loads the consolidation. A host that is one CommonJS file (the hook entry) gives its own
   * CommonJS build of it, so that SessionEnd starts no ES module loader; by default, the module.
   */
  loadConsolidation?: () => Promise<ConsolidationModule>;
}
